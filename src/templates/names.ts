import path from 'node:path';
import { InputError } from '../errors.js';

/**
 * Extensions a stored template may carry; the content decides the real format. `.tx` is allowed
 * because ReportingCloud users name templates so; real TX bytes get their own clear 400.
 */
export const TEMPLATE_EXTENSIONS = ['docx', 'doc', 'rtf', 'tx'] as const;

// Control characters are forbidden on purpose.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\\/:*?"<>|\u0000-\u001f\u007f]/;

/**
 * Invisible characters that make one name look like another: bidirectional overrides and
 * isolates (a right-to-left override turns `cod.docx` into what reads as another name), marks,
 * zero-width characters and the byte-order mark.
 */
export const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

/** The form a name is stored and looked up in: two spellings of the same letter are one name. */
export function normalName(name: string): string {
  return name.normalize('NFC');
}

/** A plain file name with a known extension: no folders, no control or invisible characters. Returns it in NFC. */
export function checkTemplateName(raw: string): string {
  const name = normalName(raw);
  if (name.length === 0) throw new InputError('templateName is empty.');
  if (INVISIBLE.test(name)) {
    throw new InputError(
      `templateName contains an invisible formatting character (such as a right-to-left override or a zero-width space), which is not allowed in a name.`,
    );
  }
  if (name.length > 255) throw new InputError('templateName is longer than 255 characters.');
  if (FORBIDDEN.test(name)) {
    throw new InputError(
      `templateName "${name}" contains a character that is not allowed in a file name (\\ / : * ? " < > | or a control character).`,
    );
  }
  if (name.trim() !== name || name.startsWith('.')) {
    throw new InputError(`templateName "${name}" must not start with a dot or begin or end with spaces.`);
  }
  const extension = path.extname(name).slice(1).toLowerCase();
  if (!(TEMPLATE_EXTENSIONS as readonly string[]).includes(extension)) {
    throw new InputError(`templateName "${name}" must end with ${TEMPLATE_EXTENSIONS.map((e) => `.${e}`).join(', ')}.`);
  }
  return name;
}
