/** Turns a failed schema check into one sentence that says what to send instead. */
import { jsonType } from '../../util/json.js';

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
