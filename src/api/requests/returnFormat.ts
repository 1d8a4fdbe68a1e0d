import { InputError } from '../../errors.js';
import { RETURN_FORMATS, type ReturnFormat } from '../../formats/returnFormat.js';

/** `returnFormat` as sent (any case). */
export function parseReturnFormat(value: string | undefined): ReturnFormat {
  if (value === undefined)
    throw new InputError(`The query parameter "returnFormat" is required (${RETURN_FORMATS.map((f) => f.toUpperCase()).join(', ')}).`);
  const lower = value.trim().toLowerCase();
  if (!(RETURN_FORMATS as readonly string[]).includes(lower)) {
    throw new InputError(`returnFormat "${value}" is not supported; choose PDF, PDFA, DOCX, DOC, RTF, HTML, TXT or TX.`);
  }
  return lower as ReturnFormat;
}
