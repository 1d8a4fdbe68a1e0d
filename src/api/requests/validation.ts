/**
 * The request schemas as the one source of body rules: Fastify validates HTTP bodies with them
 * (app.ts, these options), and `checkBody` validates what reaches the parsers another way (the
 * CLI's files) with the same schemas, options and messages.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { InputError } from '../../errors.js';
import { jsonType } from '../../util/json.js';

/**
 * verbose: messages quote the value and the schema's description; union types are the SDKs'
 * nulls and "true"s. unicode: false: string lengths by .length, not by code points, which walked
 * every 100 MB document on the event loop.
 */
export const AJV_OPTIONS = {
  coerceTypes: false,
  allErrors: false,
  verbose: true,
  allowUnionTypes: true,
  unicode: false,
  logger: {
    log: console.log,
    // Ajv calls `unicode` deprecated at every compile yet still honours it (its limitLength
    // keyword): that one warning is dropped, so that it does not reach the CLI's output.
    warn: (message: unknown, ...rest: unknown[]) => {
      if (!String(message).includes('option unicode')) console.warn(message, ...rest);
    },
    error: console.error,
  },
} as const;

const ajv = new Ajv(AJV_OPTIONS);
const compiled = new WeakMap<object, ValidateFunction>();

/** `value` as the schema admits it, or a 400 with the message the HTTP API would give. */
export function checkBody<const S extends JSONSchema & object>(schema: S, value: unknown, dataVar = 'body'): FromSchema<S> {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  if (!validate(value)) throw new InputError(describeSchemaFailure(validate.errors?.[0] as SchemaFailure | undefined, dataVar));
  return value as FromSchema<S>;
}

/** The parts of an Ajv error (verbose mode) that the message needs. */
export interface SchemaFailure {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  parentSchema?: { description?: string; properties?: Record<string, { description?: string }>; items?: { title?: string } };
}

/** "/mergeData/3/name" -> "mergeData[3].name"; "" -> the request body. */
function placeOf(path: string, dataVar: string): string {
  if (path === '') return dataVar === 'body' ? 'The request body' : `The ${dataVar}`;
  return path
    .slice(1)
    .split('/')
    .map((step, i) => (/^\d+$/.test(step) ? `[${step}]` : `${i ? '.' : ''}${step.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('');
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function describeSchemaFailure(failure: SchemaFailure | undefined, dataVar: string): string {
  if (!failure) return `Invalid request: the ${dataVar} is not valid.`;
  const { keyword, params, data, parentSchema } = failure;
  const place = placeOf(failure.instancePath, dataVar);
  const expected = parentSchema?.description;
  switch (keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      if (dataVar === 'querystring') return `The query parameter "${missing}" is required.`;
      const what = parentSchema?.properties?.[missing]?.description;
      const name = failure.instancePath === '' ? missing : `${place}.${missing}`;
      return `${name} is missing${what ? `: send ${what}` : ''}.`;
    }
    case 'type':
      if ((data === undefined || data === null) && failure.instancePath === '')
        return `The request body is empty; send ${expected ?? `a JSON ${String(params.type)}`}.`;
      return `${place} must be ${expected ?? `a JSON ${String(params.type).replace(/,/g, ' or ')}`}, not a JSON ${jsonType(data)}.`;
    case 'minItems':
      if (Array.isArray(data) && data.length === 0)
        return `${place} is an empty array; send at least one ${parentSchema?.items?.title ?? 'entry'}.`;
      return `${place} must be ${expected ?? `an array of at least ${String(params.limit)} entries`}.`;
    case 'maxItems':
      if (Array.isArray(data) && parentSchema?.items?.title)
        return `${place} has ${data.length} entries; at most ${String(params.limit)} are allowed.`;
      return `${place} must be ${expected ?? `an array of at most ${String(params.limit)} entries`}.`;
    case 'minLength':
      if (data === '') return `${place} is an empty string; send ${expected ?? 'a value'}.`;
      return `${place} must be ${expected ?? 'longer'}.`;
    default:
      return `${place} must be ${expected ?? String(params.message ?? 'valid')}, not ${shown(data)}.`;
  }
}
