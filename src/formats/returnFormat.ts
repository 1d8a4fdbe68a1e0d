/** Output formats a document operation can return. */
export type ReturnFormat = 'pdf' | 'pdfa' | 'docx' | 'doc' | 'rtf' | 'html' | 'txt' | 'tx';

export const RETURN_FORMATS: readonly ReturnFormat[] = ['pdf', 'pdfa', 'docx', 'doc', 'rtf', 'html', 'txt', 'tx'];

/** What the office writes; DOCX and TX are written here (TX from the DOCX, formats/tx/). */
export type OfficeFormat = Exclude<ReturnFormat, 'tx'>;

/** Whether the office writes a document's comments into this format (never into PDF or text). */
export function showsComments(format: OfficeFormat): boolean {
  return !['pdf', 'pdfa', 'txt'].includes(format);
}

/** The file extension of each return format (PDF/A is a PDF). */
export const RETURN_EXTENSIONS: Record<ReturnFormat, string> = {
  pdf: 'pdf',
  pdfa: 'pdf',
  docx: 'docx',
  doc: 'doc',
  rtf: 'rtf',
  html: 'html',
  txt: 'txt',
  tx: 'tx',
};

/** The media type of each return format's file (TX has no registered one). */
export const RETURN_MEDIA_TYPES: Record<ReturnFormat, string> = {
  pdf: 'application/pdf',
  pdfa: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  doc: 'application/msword',
  rtf: 'application/rtf',
  html: 'text/html; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  tx: 'application/octet-stream',
};
