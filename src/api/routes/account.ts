import type { Services } from '../../services.js';
import { formatWireDate } from '../../util/dates.js';
import { accountOf, whoMade } from '../auth.js';
import { keyScope, type ApiKeyDetails } from '../../accounts/accounts.js';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../../auth/scopes.js';
import { DocsmithError, InputError } from '../../errors.js';
import { accountSettingsSchema, apiKeyDetailsSchema, auditEventSchema, apiKeySchema, errorResponses, errorSchema } from '../schemas.js';
import { requireQuery, sendEmpty, sendJson, type Api } from '../wire.js';

/**
 * The SDKs parse validUntil as a date and fail on null (Java throws): "never" is a date far away,
 * early enough in its day that every time zone's local time is still in year 9999 (the .NET SDK
 * converts to local time and throws past 9999-12-31, as east of UTC 23:59:59 would be).
 */
const NEVER_EXPIRES = new Date('9999-12-31T00:00:00Z');

const keyView = (key: ApiKeyDetails) => ({
  id: key.id,
  name: key.name,
  masked: key.masked,
  active: key.active,
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  scope: key.scope,
});

const keyParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$', description: 'The number GET /v1/account/keys gives' } },
  required: ['id'],
} as const;
const noSuchKey = { 404: { ...errorSchema, description: 'The account has no key with this id' } };

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
        description:
          `Answers the new key as a JSON string. An account holds at most ${services.config.maxApiKeys} keys. ` +
          '`name` (docsmith) labels the key, as listed by GET /v1/account/keys. `scope` (docsmith): ' +
          Object.entries(SCOPE_DESCRIPTIONS)
            .map(([scope, what]) => `${scope}, ${what}`)
            .join('; ') +
          '. Default full; a key keeps its scope.',
        querystring: {
          type: 'object',
          properties: { name: { type: 'string', maxLength: 400 }, scope: { type: 'string', enum: [...SCOPES] } },
        },
        response: { 201: { type: 'string', description: 'The new key' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { name, scope } = request.query as { name?: string; scope?: string };
      const account = accountOf(request);
      const chosen = keyScope(scope);
      const key = await services.apiKeys.create(account.id, name ?? '', chosen);
      if (!key) {
        throw new InputError(
          `This account has ${services.config.maxApiKeys} API keys, the most allowed; delete one before creating another.`,
        );
      }
      await services.audit.record(account.id, 'key created', whoMade(request), describeKey(key, name ?? '', chosen));
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
      const account = accountOf(request);
      if (!(await services.apiKeys.revoke(account.id, key))) {
        throw new InputError('This account has no such API key.');
      }
      await services.audit.record(account.id, 'key revoked', whoMade(request), masked(key));
      return sendEmpty(reply, 200);
    },
  );

  app.get(
    '/account/keys',
    {
      schema: {
        tags: ['account'],
        summary: 'The API keys of the account, masked, with their names and dates (docsmith)',
        description: 'Each key shows only its ends: the full key is shown once, when it is created.',
        response: { 200: { type: 'array', items: apiKeyDetailsSchema }, ...errorResponses },
      },
    },
    async (request, reply) => sendJson(reply, 200, (await services.apiKeys.details(accountOf(request).id)).map(keyView)),
  );

  app.patch(
    '/account/keys/:id',
    {
      schema: {
        tags: ['account'],
        summary: 'Name an API key (docsmith)',
        params: keyParams,
        body: {
          type: 'object',
          properties: { name: { type: 'string', maxLength: 400, description: 'Up to 100 characters' } },
          required: ['name'],
          additionalProperties: false,
        },
        response: { 200: apiKeyDetailsSchema, ...noSuchKey, ...errorResponses },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const id = Number((request.params as { id: string }).id);
      const { name } = request.body as { name: string };
      const named = await services.apiKeys.rename(account.id, id, name);
      if (!named) throw new DocsmithError(404, `This account has no API key number ${id}; GET /v1/account/keys lists them.`);
      await services.audit.record(account.id, 'key renamed', whoMade(request), `key ${id} (${named.masked}) is now "${named.name}"`);
      return sendJson(reply, 200, keyView(named));
    },
  );

  app.delete(
    '/account/keys/:id',
    {
      schema: {
        tags: ['account'],
        summary: 'Revoke an API key by its number (docsmith)',
        params: keyParams,
        response: { 204: { type: 'null', description: 'Revoked' }, ...noSuchKey, ...errorResponses },
      },
    },
    async (request, reply) => {
      const id = Number((request.params as { id: string }).id);
      const account = accountOf(request);
      const key = await services.apiKeys.revokeById(account.id, id);
      if (!key) throw new DocsmithError(404, `This account has no API key number ${id}; GET /v1/account/keys lists them.`);
      await services.audit.record(
        account.id,
        'key revoked',
        whoMade(request),
        `key ${id}${key.name ? ` "${key.name}"` : ''} (${key.masked})`,
      );
      return sendEmpty(reply, 204);
    },
  );

  app.get(
    '/account/audit',
    {
      schema: {
        tags: ['account'],
        summary: "The account's audit log, newest first (docsmith)",
        description: `Sign-in failures, keys made, renamed and revoked, templates uploaded, replaced, rolled back and deleted, and the operator's changes, with who (the key's number and name, or the password) and the client's address; kept ${services.config.auditDays} days (DOCSMITH_AUDIT_DAYS). Page with before=<the last id>.`,
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string', pattern: '^[1-9][0-9]{0,2}$', description: 'at most this many (1-500, default 100)' },
            before: { type: 'string', pattern: '^[1-9][0-9]{0,15}$', description: 'entries older than the one with this id' },
          },
        },
        response: { 200: { type: 'array', items: auditEventSchema }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { limit, before } = request.query as { limit?: string; before?: string };
      const events = await services.audit.list(
        accountOf(request).id,
        Math.min(500, Number(limit ?? 100)),
        before === undefined ? undefined : Number(before),
      );
      return sendJson(
        reply,
        200,
        events.map((e) => ({ id: e.id, at: e.at.toISOString(), action: e.action, actor: e.actor, address: e.address, detail: e.detail })),
      );
    },
  );
}

/** A key in the audit log: its ends, name and scope (never the key). */
function describeKey(key: string, name: string, scope: string): string {
  return `${masked(key)}${name.trim() ? ` "${name.trim()}"` : ''}, scope ${scope}`;
}

const masked = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;
