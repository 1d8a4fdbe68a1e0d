import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../store/types.js';
import type { Authenticator, KeyIdentity } from '../auth/authenticate.js';
import { accessOf, refusal } from '../auth/scopes.js';
import { ForbiddenError } from '../errors.js';
import { whoOf, type Who } from '../accounts/audit.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
    /** The API key the request signed in with (null: Basic credentials). */
    apiKey: KeyIdentity | null;
  }
}

/**
 * Every route registered in this scope needs a valid API key or Basic login (403 otherwise), and
 * a key whose scope allows what the route does (403 saying which scope would).
 */
export function requireAuthentication(scope: FastifyInstance, authenticator: Authenticator): void {
  scope.decorateRequest('account', null);
  scope.decorateRequest('apiKey', null);
  scope.addHook('onRequest', async (request) => {
    const signedIn = await authenticator.signIn(request.headers.authorization, request.ip);
    if (!signedIn) {
      throw new ForbiddenError('Not authorized: send "Authorization: ReportingCloud-APIKey <key>" or Basic credentials of an account.');
    }
    request.account = signedIn.account;
    request.apiKey = signedIn.key;
    const refused = signedIn.key && refusal(signedIn.key.scope, accessOf(request.method, request.routeOptions.url ?? request.url));
    if (refused) throw new ForbiddenError(refused);
  });
}

/** The authenticated account of a request in an authenticated scope. */
export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new ForbiddenError('Not authorized.');
  return request.account;
}

/** Who made a request, for the audit log: its key (number and name) or the account's password, and the client's address. */
export function whoMade(request: FastifyRequest): Who {
  return whoOf(request.apiKey, request.ip);
}
