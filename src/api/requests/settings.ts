/** mergeSettings and documentSettings, normalised (their shape is checked by the schemas first). */
import { culture } from '../../merge/format/culture.js';
import { InputError } from '../../errors.js';
import type { DocumentSettings } from '../../documents/settings.js';
import { DEFAULT_MERGE_OPTIONS, type MergeOptions } from '../../merge/engine.js';
import { parseWireDate } from '../../util/dates.js';
import { isTimeZone } from '../../merge/format/date.js';
import type { JsonObject } from '../../merge/scope.js';
import type { DocumentSettingsBody, MergeSettingsBody } from './schemas.js';

/** A flag as the SDKs send it: true, "True", "false", or null for the default. */
const flag = (value: boolean | string | null | undefined, fallback: boolean): boolean =>
  value === undefined || value === null ? fallback : typeof value === 'boolean' ? value : value.toLowerCase() === 'true';

const text = (value: string | null | undefined): string | undefined => value ?? undefined;

function date(value: string | null | undefined, name: string, what: string): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = parseWireDate(value);
  if (!parsed) throw new InputError(`${what}.${name} "${value}" is not a date like 2024-05-06T07:08:09Z.`);
  return parsed;
}

/** Document properties and password, shared by mergeSettings and documentSettings. */
export function parseDocumentSettings(raw: DocumentSettingsBody | MergeSettingsBody | undefined, what: string): DocumentSettings {
  const settings = raw ?? {};
  return {
    properties: {
      author: text(settings.author),
      title: text(settings.documentTitle),
      subject: text(settings.documentSubject),
      creatorApplication: text(settings.creatorApplication),
      creationDate: date(settings.creationDate, 'creationDate', what),
      lastModificationDate: date(settings.lastModificationDate, 'lastModificationDate', what),
    },
    password: settings.userPassword || undefined,
  };
}

/** A culture name the merge can format with (a 400 naming it otherwise). */
function known(name: string): string {
  culture(name);
  return name;
}

/** `timezone`: an IANA name the runtime knows, or a 400 saying what it takes. */
function timeZone(name: string | null | undefined): { timeZone?: string } {
  if (name === undefined || name === null || name === '') return {};
  if (!isTimeZone(name))
    throw new InputError(`mergeSettings.timezone "${name}" is not a time zone; use an IANA name such as Europe/Paris, or UTC.`);
  return { timeZone: name };
}

export function parseMergeSettings(raw: MergeSettingsBody | undefined): {
  options: MergeOptions;
  document: DocumentSettings;
  translations?: Record<string, Record<string, string>>;
} {
  const settings = raw ?? {};
  const defaults = DEFAULT_MERGE_OPTIONS;
  return {
    ...(settings.translations ? { translations: settings.translations as Record<string, Record<string, string>> } : {}),
    options: {
      removeEmptyFields: flag(settings.removeEmptyFields, defaults.removeEmptyFields),
      removeEmptyBlocks: flag(settings.removeEmptyBlocks, defaults.removeEmptyBlocks),
      removeEmptyLines: flag(settings.removeEmptyLines, defaults.removeEmptyLines),
      removeEmptyImages: flag(settings.removeEmptyImages, defaults.removeEmptyImages),
      mergeHtml: flag(settings.mergeHtml, defaults.mergeHtml),
      removeTrailingWhitespace: flag(settings.removeTrailingWhitespace, defaults.removeTrailingWhitespace),
      // Checked here, so that a background job with an unknown culture is refused at submission.
      culture: known(settings.culture || defaults.culture),
      ...timeZone(settings.timezone),
      ...(settings.complement ? { complement: settings.complement as JsonObject } : {}),
    },
    document: parseDocumentSettings(settings, 'mergeSettings'),
  };
}
