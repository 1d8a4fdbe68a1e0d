import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../store/types.js';
import type { Authenticator } from '../auth/authenticate.js';
import { ForbiddenError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
}

/** Every route registered in this scope needs a valid API key or Basic login (403 otherwise). */
export function requireAuthentication(scope: FastifyInstance, authenticator: Authenticator): void {
  scope.decorateRequest('account', null);
  scope.addHook('onRequest', async (request) => {
    request.account = await authenticator.authenticate(request.headers.authorization, request.ip);
    if (!request.account) {
      throw new ForbiddenError('Not authorized: send "Authorization: ReportingCloud-APIKey <key>" or Basic credentials of an account.');
    }
  });
}

/** The authenticated account of a request in an authenticated scope. */
export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new ForbiddenError('Not authorized.');
  return request.account;
}
