/**
 * How a route's schema is shown in /openapi.json (and the /docs reference made from it): the
 * route keeps validating with its own schema; only the description gains what a generated client
 * and a reader need. A stable operation id from the method and path; no credentials on the public
 * routes; a description on every answer; the errors any call may meet; the values a query
 * parameter takes (return formats, image formats, true and false).
 */
import { errorSchema } from './schemas.js';

type Schema = Record<string, unknown> & {
  body?: unknown;
  summary?: string;
  querystring?: { properties?: Record<string, Record<string, unknown>> };
  response?: Record<string, Record<string, unknown>>;
};

const RETURN_FORMATS = ['PDF', 'PDFA', 'DOCX', 'DOC', 'RTF', 'HTML', 'TXT', 'TX'];
const IMAGE_FORMATS = ['PNG', 'JPG', 'GIF', 'BMP'];

const SUCCESS: Record<string, string> = {
  '200': 'Done',
  '201': 'Created',
  '202': 'Accepted: the work runs as a background job (its state at /v1/jobs/{id})',
  '204': 'Done; nothing to answer',
};

/** Answers any authenticated call may get, besides its own. */
const COMMON_ERRORS: Record<string, Record<string, unknown>> = {
  '403': {
    description: 'No or wrong credentials (403, as ReportingCloud answers), or over a quota or limit of the account',
    ...errorSchema,
  },
  '413': { description: 'The request body, or the documents it would make, larger than the server allows', ...errorSchema },
  '429': { description: 'Too many failed sign-ins from this address or for this user; Retry-After says when to try again', ...errorSchema },
  '503': {
    description: 'Busy, or the database is away; nothing was done. Retry-After says when to send it again',
    ...errorSchema,
  },
};

const TIME_LIMIT = {
  description: 'The work took longer than the processing limit (DOCSMITH_PROCESSING_LIMIT_MS) and was stopped',
  ...errorSchema,
};

/** Routes that answer documents, as files too when the Accept header names their type (api/wire.ts answerDocuments). */
const DOCUMENT_ANSWERS = /^\/v1\/(?:document\/(?:merge|findandreplace|append|convert|thumbnails|preview)|templates\/thumbnails)$/;

const NOT_ACCEPTABLE = {
  description:
    'The Accept header names no form the answer can take (JSON, a ZIP of the documents, or the document itself as its type), or asks for one file where several documents were made (docsmith)',
  ...errorSchema,
};

/** Routes that do document work, under the processing limit. */
const DOCUMENT_WORK = /^\/v1\/(?:document|processing)\/|^\/v1\/templates\/(?:info|thumbnails|pagecount|upload|validate)\b/;

/** The operation id: the method and the path's words, `postDocumentMerge`, `getJobsByIdResult`. */
export function operationId(method: string, url: string): string {
  const words = url
    .replace(/^\/v1\//, '/')
    .split(/[/_-]/)
    .filter(Boolean)
    .map((w) => (w.startsWith(':') ? `by${w[1]!.toUpperCase()}${w.slice(2)}` : w));
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** The schema as documented (a copy: the route's own schema is left as it validates). */
export function documented(schema: Schema, method: string, url: string): Schema {
  const out: Schema = { ...schema, operationId: operationId(method, url) };
  const api = url.startsWith('/v1/');
  // Health, version and shared previews ask for no credentials.
  if (!api) out.security = [];
  const response: Record<string, Record<string, unknown>> = {};
  for (const [status, answer] of Object.entries(schema.response ?? { '200': {} }))
    response[status] = answer.description ? answer : { ...answer, description: SUCCESS[status] ?? schema.summary ?? 'The answer' };
  if (api) {
    for (const [status, answer] of Object.entries(COMMON_ERRORS)) response[status] ??= answer;
    if (DOCUMENT_WORK.test(url)) response['504'] ??= TIME_LIMIT;
    if (DOCUMENT_ANSWERS.test(url)) response['406'] ??= NOT_ACCEPTABLE;
  }
  if (Object.keys(response).length) out.response = response;
  if (schema.body) out.body = asOpenApi31(schema.body);
  const query = schema.querystring?.properties;
  if (query) {
    const properties: Record<string, Record<string, unknown>> = {};
    for (const [name, property] of Object.entries(query)) {
      if (name === 'returnFormat') properties[name] = { ...property, enum: RETURN_FORMATS, description: 'the output format (any case)' };
      else if (name === 'imageFormat') properties[name] = { ...property, enum: IMAGE_FORMATS, description: 'the image format (any case)' };
      // The wire takes true and false as words (and True, False, 1, 0): a boolean to a generated client.
      else if (typeof property.description === 'string' && /^true\b/.test(property.description))
        properties[name] = { ...property, type: 'boolean' };
      else properties[name] = property;
    }
    out.querystring = { ...schema.querystring, properties };
  }
  return out;
}

/**
 * A validation schema (JSON Schema draft-07, as Fastify's Ajv takes it) in OpenAPI 3.1's dialect
 * (2020-12): a tuple's `items: [...]` and `additionalItems: false` become `prefixItems` and
 * `items: false`. Everything else is the same in both.
 */
export function asOpenApi31(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asOpenApi31);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // Values, not schemas: left as they are.
    if (['examples', 'example', 'default', 'const', 'enum'].includes(key)) out[key] = value;
    else if (key === 'items' && Array.isArray(value)) out.prefixItems = value.map(asOpenApi31);
    else if (key === 'additionalItems') out.items = asOpenApi31(value);
    else out[key] = asOpenApi31(value);
  }
  return out;
}

/**
 * The description with its named shapes (`x-type` on a schema: Job, TemplateInfo, ...) as
 * `components.schemas`, referred to by `$ref` wherever they appear (inside each other too), so
 * generators name their types (openapi-typescript, openapi-generator). A name given to two
 * different shapes stays inline.
 */
export function withComponents<T extends object>(doc: T): T {
  const named = new Map<string, { node: Record<string, unknown>; text: string }>();
  const clashing = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    const name = record['x-type'];
    if (typeof name === 'string') {
      // A description beside the shape is the place's, not the shape's (a 202's "Accepted: ...").
      const { description: _place, ...shape } = record;
      const text = JSON.stringify(shape);
      const seen = named.get(name);
      // `{ type, x-type }` alone points at the shape (a merge block's nested blocks): no definition.
      const pointer = Object.keys(shape).every((key) => key === 'type' || key === 'x-type');
      if (pointer) return Object.values(record).forEach(collect);
      if (seen && seen.text !== text) clashing.add(name);
      else named.set(name, { node: shape, text });
    }
    Object.values(record).forEach(collect);
  };
  const inner = (node: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(node).map(([key, value]) => [key, replace(value)]));
  const replace = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(replace);
    if (typeof node !== 'object' || node === null) return node;
    const record = node as Record<string, unknown>;
    const name = record['x-type'];
    if (typeof name === 'string' && !clashing.has(name))
      return {
        $ref: `#/components/schemas/${name}`,
        ...(typeof record.description === 'string' ? { description: record.description } : {}),
      };
    return inner(record);
  };
  collect(doc);
  const schemas: Record<string, unknown> = {};
  for (const [name, { node }] of named) {
    if (clashing.has(name)) continue;
    const { 'x-type': _own, ...rest } = node;
    schemas[name] = inner(rest);
  }
  const out = replace(doc) as T & { components?: Record<string, unknown> };
  return { ...out, components: { ...(out.components ?? {}), schemas } };
}
