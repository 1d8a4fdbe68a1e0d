import { InputError } from '../../errors.js';
import type { DocumentSettings } from '../../documents/settings.js';
import { DEFAULT_MERGE_OPTIONS, type MergeOptions } from '../../merge/engine.js';
import { parseWireDate } from '../../util/dates.js';
import { jsonType } from '../../util/json.js';

type Raw = Record<string, unknown>;

function asObject(value: unknown, what: string): Raw {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new InputError(`${what} must be a JSON object, not a JSON ${jsonType(value)}.`);
  return value as Raw;
}

function bool(raw: Raw, name: string, fallback: boolean, what: string): boolean {
  const value = raw[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new InputError(`${what}.${name} must be true or false, not ${JSON.stringify(value)}.`);
}

function str(raw: Raw, name: string, what: string): string | undefined {
  const value = raw[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InputError(`${what}.${name} must be a string, not a JSON ${jsonType(value)}.`);
  return value;
}

function date(raw: Raw, name: string, what: string): Date | undefined {
  const text = str(raw, name, what);
  if (text === undefined || text === '') return undefined;
  const parsed = parseWireDate(text);
  if (!parsed) throw new InputError(`${what}.${name} "${text}" is not a date like 2024-05-06T07:08:09Z.`);
  return parsed;
}

/** Document properties and password, shared by mergeSettings and documentSettings. */
export function parseDocumentSettings(value: unknown, what: string): DocumentSettings {
  const raw = asObject(value, what);
  const password = str(raw, 'userPassword', what);
  return {
    properties: {
      author: str(raw, 'author', what),
      title: str(raw, 'documentTitle', what),
      subject: str(raw, 'documentSubject', what),
      creatorApplication: str(raw, 'creatorApplication', what),
      creationDate: date(raw, 'creationDate', what),
      lastModificationDate: date(raw, 'lastModificationDate', what),
    },
    password: password || undefined,
  };
}

export function parseMergeSettings(value: unknown): { options: MergeOptions; document: DocumentSettings } {
  const what = 'mergeSettings';
  const raw = asObject(value, what);
  return {
    options: {
      removeEmptyFields: bool(raw, 'removeEmptyFields', DEFAULT_MERGE_OPTIONS.removeEmptyFields, what),
      removeEmptyBlocks: bool(raw, 'removeEmptyBlocks', DEFAULT_MERGE_OPTIONS.removeEmptyBlocks, what),
      removeEmptyLines: bool(raw, 'removeEmptyLines', DEFAULT_MERGE_OPTIONS.removeEmptyLines, what),
      removeEmptyImages: bool(raw, 'removeEmptyImages', DEFAULT_MERGE_OPTIONS.removeEmptyImages, what),
      mergeHtml: bool(raw, 'mergeHtml', DEFAULT_MERGE_OPTIONS.mergeHtml, what),
      removeTrailingWhitespace: bool(raw, 'removeTrailingWhitespace', DEFAULT_MERGE_OPTIONS.removeTrailingWhitespace, what),
      culture: str(raw, 'culture', what) || DEFAULT_MERGE_OPTIONS.culture,
    },
    document: parseDocumentSettings(raw, what),
  };
}
