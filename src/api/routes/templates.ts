import type { Services } from '../../services.js';
import { decodeBase64 } from '../../util/base64.js';
import { formatWireDate } from '../../util/dates.js';
import { accountOf } from '../auth.js';
import { base64BodySchema } from '../requests/schemas.js';
import { base64Body, errorResponses, templateListEntrySchema, templateNameQuery } from '../schemas.js';
import { requireQuery, sendEmpty, sendJson, type Api } from '../wire.js';

export function templateRoutes(app: Api, services: Services): void {
  const { templates } = services;

  app.get(
    '/templates/list',
    {
      schema: {
        tags: ['templates'],
        summary: 'The stored templates, by name',
        response: {
          200: { type: 'array', items: templateListEntrySchema },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const list = await templates.list(accountOf(request));
      return sendJson(
        reply,
        200,
        list.map((t) => ({ templateName: t.name, modified: formatWireDate(t.modifiedAt), size: t.size })),
      );
    },
  );

  app.get(
    '/templates/count',
    {
      schema: { tags: ['templates'], summary: 'How many templates are stored', response: { 200: { type: 'integer' }, ...errorResponses } },
    },
    async (request, reply) => sendJson(reply, 200, await templates.count(accountOf(request))),
  );

  app.get(
    '/templates/exists',
    {
      schema: {
        tags: ['templates'],
        summary: 'Whether a template is stored under this name',
        querystring: templateNameQuery,
        response: { 200: { type: 'boolean' }, ...errorResponses },
      },
    },
    async (request, reply) => sendJson(reply, 200, await templates.exists(accountOf(request), requireQuery(request, 'templateName'))),
  );

  app.get(
    '/templates/download',
    {
      schema: {
        tags: ['templates'],
        summary: 'The stored template, exactly as uploaded',
        querystring: templateNameQuery,
        response: { 200: base64Body, ...errorResponses },
      },
    },
    async (request, reply) => {
      const template = await templates.require(accountOf(request), requireQuery(request, 'templateName'));
      return sendJson(reply, 200, template.data.toString('base64'));
    },
  );

  app.post(
    '/templates/upload',
    {
      schema: {
        tags: ['templates'],
        summary: 'Store a template (DOCX, DOC, RTF or TX); the same name replaces it',
        querystring: templateNameQuery,
        body: base64BodySchema,
        response: { 201: { type: 'null', description: 'Empty body' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const name = requireQuery(request, 'templateName');
      const data = decodeBase64(request.body, 'The template');
      const account = accountOf(request);
      await templates.upload(account, name, data, (normal) =>
        services.door.perform(account, { kind: 'validateTemplate', bytes: data, name: normal }),
      );
      return sendEmpty(reply, 201);
    },
  );

  app.delete(
    '/templates/delete',
    {
      schema: {
        tags: ['templates'],
        summary: 'Delete a stored template',
        querystring: templateNameQuery,
        response: { 204: { type: 'null', description: 'Empty body' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await templates.delete(accountOf(request), requireQuery(request, 'templateName'));
      return sendEmpty(reply, 204);
    },
  );
}
