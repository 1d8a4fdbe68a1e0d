import type { Services } from '../../services.js';
import { InputError } from '../../errors.js';
import { formatWireDate } from '../../util/dates.js';
import { accountOf } from '../auth.js';
import { accountSettingsSchema, apiKeySchema, errorResponses } from '../schemas.js';
import { requireQuery, sendEmpty, sendJson, type Api } from '../wire.js';

/**
 * The SDKs parse validUntil as a date and fail on null (Java throws): "never" is a date far away,
 * early enough in its day that every time zone's local time is still in year 9999 (the .NET SDK
 * converts to local time and throws past 9999-12-31, as east of UTC 23:59:59 would be).
 */
const NEVER_EXPIRES = new Date('9999-12-31T00:00:00Z');

export function accountRoutes(app: Api, services: Services): void {
  app.get(
    '/account/settings',
    {
      schema: {
        tags: ['account'],
        summary: 'Licence, quotas and usage of the account',
        response: { 200: accountSettingsSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      return sendJson(reply, 200, {
        serialNumber: account.licence,
        createdDocuments: account.createdDocuments,
        uploadedTemplates: await services.templates.count(account),
        maxDocuments: account.maxDocuments,
        maxTemplates: account.maxTemplates,
        validUntil: formatWireDate(account.validUntil ?? NEVER_EXPIRES),
        proofingTransactions: account.proofingTransactions,
        maxProofingTransactions: account.maxProofingTransactions,
      });
    },
  );

  app.get(
    '/account/apikeys',
    {
      schema: {
        tags: ['account'],
        summary: 'The API keys of the account',
        response: {
          200: { type: 'array', items: apiKeySchema },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => sendJson(reply, 200, await services.apiKeys.list(accountOf(request).id)),
  );

  app.put(
    '/account/apikey',
    {
      schema: {
        tags: ['account'],
        summary: 'Create an API key',
        description: `Answers the new key as a JSON string. An account holds at most ${services.config.maxApiKeys} keys.`,
        response: { 201: { type: 'string', description: 'The new key' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const key = await services.apiKeys.create(accountOf(request).id);
      if (!key) {
        throw new InputError(
          `This account has ${services.config.maxApiKeys} API keys, the most allowed; delete one before creating another.`,
        );
      }
      return sendJson(reply, 201, key);
    },
  );

  app.delete(
    '/account/apikey',
    {
      schema: {
        tags: ['account'],
        summary: 'Delete an API key',
        querystring: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        response: { 200: { type: 'null', description: 'Empty body' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const key = requireQuery(request, 'key');
      if (!(await services.apiKeys.revoke(accountOf(request).id, key))) {
        throw new InputError('This account has no such API key.');
      }
      return sendEmpty(reply, 200);
    },
  );
}
