import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { InputError } from '../../errors.js';
import { formatWireDate } from '../../util/dates.js';
import { accountOf } from '../auth.js';
import { errorResponses } from '../schemas.js';
import { requireQuery, sendEmpty, sendJson } from '../wire.js';

const accountSettings = {
  type: 'object',
  properties: {
    serialNumber: { type: 'string', description: 'FREE, TRIAL or the serial number of the licence' },
    createdDocuments: { type: 'integer' },
    uploadedTemplates: { type: 'integer' },
    maxDocuments: { type: 'integer' },
    maxTemplates: { type: 'integer' },
    validUntil: { type: ['string', 'null'], description: 'YYYY-MM-DDTHH:MM:SS+00:00' },
    proofingTransactions: { type: 'integer' },
    maxProofingTransactions: { type: 'integer' },
  },
} as const;

export function accountRoutes(app: FastifyInstance, services: Services): void {
  app.get('/account/settings', {
    schema: {
      tags: ['account'], summary: 'Licence, quotas and usage of the account',
      response: { 200: accountSettings, ...errorResponses },
    },
  }, async (request, reply) => {
    const account = accountOf(request);
    return sendJson(reply, 200, {
      serialNumber: account.licence,
      createdDocuments: account.createdDocuments,
      uploadedTemplates: await services.templates.count(account),
      maxDocuments: account.maxDocuments,
      maxTemplates: account.maxTemplates,
      validUntil: account.validUntil ? formatWireDate(account.validUntil) : null,
      proofingTransactions: account.proofingTransactions,
      maxProofingTransactions: account.maxProofingTransactions,
    });
  });

  app.get('/account/apikeys', {
    schema: {
      tags: ['account'], summary: 'The API keys of the account',
      response: {
        200: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, active: { type: 'boolean' } } } },
        ...errorResponses,
      },
    },
  }, async (request, reply) => sendJson(reply, 200, await services.apiKeys.list(accountOf(request).id)));

  app.put('/account/apikey', {
    schema: {
      tags: ['account'], summary: 'Create an API key',
      description: `Answers the new key as a JSON string. An account holds at most ${services.config.maxApiKeys} keys.`,
      response: { 201: { type: 'string', description: 'The new key' }, ...errorResponses },
    },
  }, async (request, reply) => {
    const key = await services.apiKeys.create(accountOf(request).id);
    if (!key) {
      throw new InputError(`This account has ${services.config.maxApiKeys} API keys, the most allowed; delete one before creating another.`);
    }
    return sendJson(reply, 201, key);
  });

  app.delete('/account/apikey', {
    schema: {
      tags: ['account'], summary: 'Delete an API key',
      querystring: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      response: { 200: { type: 'null', description: 'Empty body' }, ...errorResponses },
    },
  }, async (request, reply) => {
    const key = requireQuery(request, 'key');
    if (!(await services.apiKeys.revoke(accountOf(request).id, key))) {
      throw new InputError('This account has no such API key.');
    }
    return sendEmpty(reply, 200);
  });
}
