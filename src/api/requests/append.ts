import { InputError } from '../../errors.js';
import type { Divider } from '../../compose/builder.js';
import { decodeBase64 } from '../../util/base64.js';
import { jsonType } from '../../util/json.js';
import { MAX_APPEND_DOCUMENTS as MAX_DOCUMENTS } from './schemas.js';

export interface Entry {
  bytes: Buffer;
  divider: Divider;
}

export function parseEntries(body: unknown): { entries: Entry[]; settings: unknown } {
  if (body === undefined || body === null) throw new InputError('The request body is empty; send a JSON object with "documents".');
  if (typeof body !== 'object' || Array.isArray(body))
    throw new InputError(`The request body must be a JSON object with "documents", not a JSON ${jsonType(body)}.`);
  const { documents, documentSettings } = body as Record<string, unknown>;
  if (documents === undefined || documents === null)
    throw new InputError('"documents" is missing: send an array of {"document": "<Base64>", "documentDivider": 1|2|3}.');
  if (!Array.isArray(documents)) throw new InputError(`"documents" must be an array, not a JSON ${jsonType(documents)}.`);
  if (documents.length === 0) throw new InputError('"documents" is an empty array; send at least one document.');
  if (documents.length > MAX_DOCUMENTS)
    throw new InputError(`"documents" has ${documents.length} entries; at most ${MAX_DOCUMENTS} are allowed.`);
  const entries = documents.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new InputError(`documents[${i}] must be an object with "document" and "documentDivider".`);
    const { document, documentDivider } = entry as Record<string, unknown>;
    if (typeof document !== 'string' || document === '')
      throw new InputError(`documents[${i}].document must be the document as a Base64 string.`);
    return { bytes: decodeBase64(document, `documents[${i}].document`), divider: parseDivider(documentDivider, i) };
  });
  return { entries, settings: documentSettings };
}

/** `documentDivider`: 1|2|3 or "None"|"NewParagraph"|"NewSection". */
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
