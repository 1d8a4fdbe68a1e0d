// Generates packages/client/src/wire.ts, the client's types for request bodies and responses, from
// the schemas the server validates and documents with. `node --import tsx scripts/client-types.ts`
// rewrites the file; test/unit/client-types.test.ts fails when it is out of date.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import * as requests from '../src/api/requests/schemas.js';
import * as responses from '../src/api/schemas.js';
import { MERGE_DEFAULTS } from '../src/merge/defaults.js';

export const CLIENT_TYPES_FILE = path.join(
  path.dirname(path.dirname(fileURLToPath(import.meta.url))),
  'packages',
  'client',
  'src',
  'wire.ts',
);

/** Request bodies: the client sends the canonical type; responses say every type they may hold. */
const REQUESTS = new Set(['MergeBody', 'FindAndReplaceBody', 'AppendBody', 'MergeSettings', 'DocumentSettings']);

/** The named shapes of the contract, as the client sees them. */
const CONTRACT: Record<string, object> = {
  MergeBody: requests.mergeBodySchema,
  FindAndReplaceBody: requests.findAndReplaceBodySchema,
  AppendBody: requests.appendBodySchema,
  MergeSettings: requests.mergeSettingsSchema,
  DocumentSettings: requests.documentSettingsSchema,
  AccountSettings: responses.accountSettingsSchema,
  ApiKey: responses.apiKeySchema,
  ApiKeyDetails: responses.apiKeyDetailsSchema,
  AuditEvent: responses.auditEventSchema,
  TemplateListEntry: responses.templateListEntrySchema,
  ShareLink: responses.shareLinkSchema,
  MergeField: responses.mergeFieldSchema,
  MergeBlock: responses.mergeBlockSchema,
  ChartInfo: responses.chartInfoSchema,
  TemplateInfo: responses.templateInfoSchema,
  IncorrectWord: responses.incorrectWordSchema,
  TrackedChange: responses.trackedChangeSchema,
  Job: responses.jobSchema,
  TemplateVersion: responses.templateVersionSchema,
  TemplateDiff: responses.templateDiffSchema,
  DataCheck: responses.dataCheckSchema,
};

type Schema = Record<string, unknown>;

/**
 * The schema as a client should see it: in a request body the first of several types is the
 * canonical one (the rest are tolerated for the SDKs); nested titles are labels for messages, not type names, and a
 * shape that is itself named in the contract is referred to by name.
 */
function canonical(schema: Schema, root: boolean, request: boolean): Schema {
  if (!root) {
    const named = Object.entries(CONTRACT).find(([, value]) => value === schema)?.[0] ?? schema['x-type'];
    if (typeof named === 'string') return { $ref: `#/definitions/${named}` };
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'title' || key === 'examples' || key.startsWith('x-')) continue;
    if (key === 'type' && Array.isArray(value) && request) out.type = value[0];
    else if (key === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([name, sub]) => [name, canonical(sub, false, request)]),
      );
    else if (key === 'items' && Array.isArray(value)) out.items = value.map((sub: Schema) => canonical(sub, false, request));
    else if ((key === 'items' || key === 'additionalProperties') && typeof value === 'object' && value !== null)
      out[key] = canonical(value as Schema, false, request);
    else out[key] = value;
  }
  return out;
}

export async function generateClientTypes(): Promise<string> {
  const definitions = Object.fromEntries(
    Object.entries(CONTRACT).map(([name, schema]) => [name, { ...canonical(schema as Schema, true, REQUESTS.has(name)), title: name }]),
  );
  const source = await compile(
    { title: 'WireContract', type: 'object', definitions, additionalProperties: false } as JSONSchema,
    'WireContract',
    {
      additionalProperties: false,
      ignoreMinAndMaxItems: true,
      unreachableDefinitions: true,
      bannerComment: "// Generated from the server's schemas by scripts/client-types.ts; do not edit by hand.",
      format: true,
      style: { singleQuote: true, printWidth: 120 },
    },
  );
  // The root only gathers the definitions; the client needs the named shapes.
  const defaults =
    "\n/** What every merge starts from before its mergeSettings (the server's own defaults). */\n" +
    `export const MERGE_DEFAULTS = {\n${Object.entries(MERGE_DEFAULTS)
      .map(([key, value]) => `  ${key}: ${typeof value === 'string' ? `'${value}'` : String(value)},\n`)
      .join('')}};\n`;
  return (source + defaults)
    .replace(/export interface WireContract \{\}\n\n?/, '')
    .replace(/\n \*\n \* This interface was referenced by `WireContract`'s JSON-Schema\n \* via the `definition` "\w+"\./g, '')
    .replace(/\/\*\*\n \* This interface was referenced by `WireContract`'s JSON-Schema\n \* via the `definition` "\w+"\.\n \*\/\n/g, '');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(CLIENT_TYPES_FILE, await generateClientTypes());
  console.log(`wrote ${path.relative(process.cwd(), CLIENT_TYPES_FILE)}`);
}
