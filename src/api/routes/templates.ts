import type { Services } from '../../services.js';
import { InputError } from '../../errors.js';
import type { DocumentFormat } from '../../formats/detect.js';
import { templateVersionOf } from '../requests/documents.js';
import { decodeBase64 } from '../../util/base64.js';
import { parseSyntax } from '../../merge/syntax/index.js';
import { formatWireDate } from '../../util/dates.js';
import { accountOf, whoMade } from '../auth.js';
import { base64BodySchema } from '../requests/schemas.js';
import {
  base64Body,
  errorResponses,
  templateDiffSchema,
  templateListEntrySchema,
  templateNameQuery,
  templateSyntaxProperty,
  templateVersionSchema,
} from '../schemas.js';
import { queryOf, requireQuery, sendEmpty, sendJson, type Api } from '../wire.js';

const versionQuery = {
  type: 'string',
  pattern: '^[1-9][0-9]{0,8}$',
  description: 'a version number from GET /v1/templates/versions (docsmith); absent: the current version',
} as const;

/** A version number in a query parameter the schema checked (the pattern), or 400 for the CLI's and tests' sake. */
function versionParam(value: string | undefined, name: string): number {
  if (value === undefined || !/^[1-9][0-9]{0,8}$/.test(value))
    throw new InputError(`${name} must be a version number, not "${value ?? ''}".`);
  return Number(value);
}

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
        querystring: { ...templateNameQuery, properties: { ...templateNameQuery.properties, templateVersion: versionQuery } },
        response: { 200: base64Body, ...errorResponses },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const name = requireQuery(request, 'templateName');
      const { templateVersion } = templateVersionOf(queryOf(request));
      const template =
        templateVersion === undefined
          ? await templates.require(account, name)
          : await templates.requireVersion(account, name, templateVersion);
      return sendJson(reply, 200, template.data.toString('base64'));
    },
  );

  app.get(
    '/templates/versions',
    {
      schema: {
        tags: ['templates'],
        summary: 'The versions of a stored template, newest first (docsmith)',
        description: `Replacing a template keeps its earlier versions (the server keeps ${services.config.templateVersions}, DOCSMITH_TEMPLATE_VERSIONS). Merge, template info and download take templateVersion=N; the vendor's endpoints without it use the current version.`,
        querystring: templateNameQuery,
        response: { 200: { type: 'array', items: templateVersionSchema }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const versions = await templates.versions(accountOf(request), requireQuery(request, 'templateName'));
      return sendJson(
        reply,
        200,
        versions.map((v) => ({
          version: v.version,
          current: v.current,
          modified: v.modifiedAt.toISOString(),
          size: v.size,
          sha256: v.sha256,
        })),
      );
    },
  );

  app.post(
    '/templates/rollback',
    {
      schema: {
        tags: ['templates'],
        summary: 'Make an earlier version current again, as a new version (docsmith)',
        querystring: {
          type: 'object',
          properties: { templateName: templateNameQuery.properties.templateName, version: versionQuery },
          required: ['templateName', 'version'],
        },
        response: {
          200: {
            type: 'object',
            properties: { version: { type: 'integer', description: 'the new current version' } },
            required: ['version'],
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const query = queryOf(request);
      const account = accountOf(request);
      const name = requireQuery(request, 'templateName');
      const from = versionParam(query.version, 'version');
      const version = await templates.rollback(account, name, from);
      await services.audit.record(account.id, 'template rolled back', whoMade(request), `${name}: version ${from} is version ${version}`);
      return sendJson(reply, 200, { version });
    },
  );

  app.get(
    '/templates/diff',
    {
      schema: {
        tags: ['templates'],
        summary: 'The merge fields and blocks added and removed between two versions (docsmith)',
        description: 'Paths: a field in block "items" is "items/price"; nested blocks "items/taxes".',
        querystring: {
          type: 'object',
          properties: { templateName: templateNameQuery.properties.templateName, from: versionQuery, to: versionQuery },
          required: ['templateName', 'from'],
        },
        response: {
          200: templateDiffSchema,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const query = queryOf(request);
      const templateName = requireQuery(request, 'templateName');
      const to = query.to === undefined ? undefined : versionParam(query.to, 'to');
      const diff = await templates.diff(account, templateName, versionParam(query.from, 'from'), to, (version) =>
        services.door.perform(account, {
          kind: 'info',
          source: { bytes: version.data, format: version.format as DocumentFormat, name: templateName },
        }),
      );
      return sendJson(reply, 200, diff);
    },
  );

  app.post(
    '/templates/upload',
    {
      schema: {
        tags: ['templates'],
        summary: 'Store a template (DOCX, DOC, RTF or TX); the same name replaces it',
        querystring: { ...templateNameQuery, properties: { ...templateNameQuery.properties, ...templateSyntaxProperty } },
        body: base64BodySchema,
        response: { 201: { type: 'null', description: 'Empty body' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const name = requireQuery(request, 'templateName');
      const data = decodeBase64(request.body, 'The template');
      const account = accountOf(request);
      const syntax = parseSyntax(queryOf(request).templateSyntax) ?? 'word';
      const result = await templates.upload(
        account,
        name,
        data,
        (normal) => services.door.perform(account, { kind: 'validateTemplate', bytes: data, name: normal, syntax }),
        syntax,
      );
      await services.audit.record(account.id, result === 'created' ? 'template uploaded' : 'template replaced', whoMade(request), name);
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
      const account = accountOf(request);
      const name = requireQuery(request, 'templateName');
      await templates.delete(account, name);
      await services.audit.record(account.id, 'template deleted', whoMade(request), name);
      return sendEmpty(reply, 204);
    },
  );
}
