/** The append body, normalised (its shape is checked by appendBodySchema first). */
import { InputError } from '../../errors.js';
import type { Divider } from '../../compose/builder.js';
import { decodeBase64 } from '../../util/base64.js';
import type { AppendBody } from './schemas.js';

export interface Entry {
  bytes: Buffer;
  divider: Divider;
}

export function parseEntries(body: AppendBody): Entry[] {
  return body.documents.map((entry, i) => ({
    bytes: decodeBase64(entry.document, `documents[${i}].document`),
    divider: parseDivider(entry.documentDivider, i),
  }));
}

/** `documentDivider`: 1|2|3 or "None"|"NewParagraph"|"NewSection" (the CLI's --divider too). */
export function parseDivider(value: unknown, index: number): Divider {
  if (value === undefined || value === null) return 'section';
  const text = String(value).toLowerCase();
  if (text === '1' || text === 'none') return 'none';
  if (text === '2' || text === 'newparagraph') return 'paragraph';
  if (text === '3' || text === 'newsection') return 'section';
  throw new InputError(
    `documents[${index}].documentDivider must be 1 (None), 2 (NewParagraph) or 3 (NewSection), not ${JSON.stringify(value)}.`,
  );
}
