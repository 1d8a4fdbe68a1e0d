import CFB from 'cfb';
import { DEFAULT_ZIP_LIMITS, readZip, ZipError } from '../ooxml/zip.js';
import { InputError } from '../errors.js';

/** Formats we can tell apart by their bytes. */
export type DocumentFormat = 'docx' | 'doc' | 'rtf' | 'html' | 'pdf' | 'xlsx' | 'tx';

/** What a template may be: stored, merged, described. */
export const TEMPLATE_FORMATS = ['docx', 'doc', 'rtf', 'tx'] as const satisfies readonly DocumentFormat[];
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];

export function isTemplateFormat(format: DocumentFormat): format is TemplateFormat {
  return (TEMPLATE_FORMATS as readonly DocumentFormat[]).includes(format);
}
/** What any document operation reads (conversion, thumbnails, append add their own). */
export const DOCUMENT_FORMATS = ['docx', 'doc', 'rtf', 'tx', 'html', 'pdf'] as const satisfies readonly DocumentFormat[];

export type Detection =
  { ok: true; format: DocumentFormat } | { ok: false; problem: 'empty' | 'encrypted' | 'macro' | 'corrupt' | 'unknown'; message: string };

export const FORMAT_NAMES: Record<DocumentFormat, string> = {
  docx: 'DOCX',
  doc: 'DOC',
  rtf: 'RTF',
  html: 'HTML',
  pdf: 'PDF',
  xlsx: 'XLSX',
  tx: 'TX',
};

const MAX_CONTENT_TYPES_BYTES = 1024 * 1024;

const fail = (problem: Exclude<Detection, { ok: true }>['problem'], message: string): Detection => ({ ok: false, problem, message });

/** Tells the real format from the content; never from a name. */
export function detectFormat(bytes: Uint8Array): Detection {
  if (bytes.length === 0) return fail('empty', 'The document is empty (0 bytes).');
  // TX Text Control's own format (formats/tx/): what it holds is checked when it is read.
  if (startsWith(bytes, [0x08, 0x07, 0x01, 0x00])) return { ok: true, format: 'tx' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return detectZip(bytes);
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return detectCompound(bytes);
  const head = Buffer.from(bytes.subarray(0, 4096)).toString('latin1');
  if (head.startsWith('{\\rtf')) return { ok: true, format: 'rtf' };
  if (head.slice(0, 1024).includes('%PDF-')) return { ok: true, format: 'pdf' };
  if (looksLikeHtml(head)) return { ok: true, format: 'html' };
  return fail('unknown', `The data is not a document in a format we read (${FORMATS}).`);
}

/** Where a message names the formats read, requireFormat puts those of the endpoint asked. */
const FORMATS = '{formats}';

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  return signature.every((b, i) => bytes[i] === b);
}

/** Elements a fragment a browser renders may start with (after comments and white space). */
const HTML_START =
  /^<(?:html|head|body|div|p|table|thead|tbody|tr|td|th|caption|span|h[1-6]|ul|ol|li|dl|dt|dd|br|hr|b|i|u|s|strong|em|font|center|a|img|picture|figure|figcaption|meta|title|style|link|script|noscript|template|iframe|frameset|frame|object|embed|video|audio|canvas|svg|section|article|header|footer|main|nav|aside|pre|blockquote|form|fieldset|legend|label|input|button|select|textarea|details|summary|mark|abbr|cite|q|time|var|kbd|samp|dfn|ins|del|tt|small|big|sup|sub|code|address|base)[\s>/]/;

function looksLikeHtml(head: string): boolean {
  const text = head
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  if (!text.startsWith('<')) return false;
  if (/^<!doctype html|<html[\s>]|<body[\s>]|<head[\s>]/.test(text) || /<html[\s>]/.test(text.slice(0, 1024))) return true;
  // A fragment (no doctype, html or body): what a browser would render, and text, not binary.
  const start = text.replace(/^(?:<!--[\s\S]*?-->\s*)+/, '');
  // eslint-disable-next-line no-control-regex
  return HTML_START.test(start) && !/[\x00-\x08\x0e-\x1f]/.test(head);
}

/** OpenDocument kinds by the package's `mimetype` entry. */
const OPEN_DOCUMENT: Record<string, string> = {
  'application/vnd.oasis.opendocument.text': 'OpenDocument text (ODT)',
  'application/vnd.oasis.opendocument.text-template': 'OpenDocument text templates (OTT)',
  'application/vnd.oasis.opendocument.spreadsheet': 'OpenDocument spreadsheets (ODS)',
  'application/vnd.oasis.opendocument.presentation': 'OpenDocument presentations (ODP)',
};

function detectZip(bytes: Uint8Array): Detection {
  let contentTypes: string | undefined;
  let mimetype: string | undefined;
  try {
    const files = readZip(
      bytes,
      { ...DEFAULT_ZIP_LIMITS, maxPartBytes: MAX_CONTENT_TYPES_BYTES, ratioFloorBytes: MAX_CONTENT_TYPES_BYTES },
      (name) => name === '[Content_Types].xml' || name === 'mimetype',
    );
    const entry = files.get('[Content_Types].xml');
    contentTypes = entry ? Buffer.from(entry).toString('utf8') : undefined;
    const kind = files.get('mimetype');
    mimetype = kind ? Buffer.from(kind).toString('latin1').trim() : undefined;
  } catch (error) {
    if (error instanceof ZipError && error.kind === 'limit') return fail('corrupt', `The document is refused: ${error.message}.`);
    return fail('corrupt', 'The document is a damaged ZIP package (truncated or corrupt); it cannot be opened.');
  }
  if (contentTypes === undefined) {
    const openDocument = mimetype === undefined ? undefined : OPEN_DOCUMENT[mimetype];
    if (openDocument)
      return fail(
        'unknown',
        `${openDocument} documents are not accepted; save it in Word's format (in LibreOffice: File > Save As, "Word 2007-365 (.docx)") and send that.`,
      );
    return fail('unknown', 'The data is a ZIP archive but not an Office document (no [Content_Types].xml).');
  }
  if (
    contentTypes.includes('application/vnd.ms-word.document.macroEnabled.main+xml') ||
    contentTypes.includes('application/vnd.ms-word.template.macroEnabledTemplate.main+xml')
  ) {
    return fail('macro', 'Macro-enabled Word documents (DOCM/DOTM) are not accepted; save the document as DOCX.');
  }
  if (contentTypes.includes('wordprocessingml.document.main+xml') || contentTypes.includes('wordprocessingml.template.main+xml')) {
    return { ok: true, format: 'docx' };
  }
  if (contentTypes.includes('spreadsheetml.sheet.main+xml')) return { ok: true, format: 'xlsx' };
  if (contentTypes.includes('presentationml')) {
    return fail('unknown', `PowerPoint presentations are not supported; send a document in one of these formats: ${FORMATS}.`);
  }
  return fail('unknown', 'The data is an Office package of a kind we do not read (not DOCX or XLSX).');
}

/** Which Word wrote a DOC: 97-2003, 95 or 6.0 (the FIB's nFib), for the office's import filter. */
export type WordVersion = 'word97' | 'word95' | 'word6';

/** The document's real format when it is one of `accepted`, or a 400 that says what it is instead. */
export function requireFormat(bytes: Uint8Array, accepted: readonly DocumentFormat[], what = 'The document'): DocumentFormat {
  const detected = detectFormat(bytes);
  if (!detected.ok) throw new InputError(`${what} cannot be used: ${formatsIn(detected.message, accepted)}`);
  if (!accepted.includes(detected.format)) {
    throw new InputError(
      `${what} is ${FORMAT_NAMES[detected.format]}, which is not accepted here (${accepted.map((f) => FORMAT_NAMES[f]).join(', ')}).`,
    );
  }
  return detected.format;
}

/** A message with the formats of `accepted` (all we read, when none are given) where it names them. */
export function formatsIn(message: string, accepted: readonly DocumentFormat[] = READ_FORMATS): string {
  return message.replace(FORMATS, accepted.map((f) => FORMAT_NAMES[f]).join(', '));
}

const READ_FORMATS: readonly DocumentFormat[] = ['docx', 'doc', 'rtf', 'tx', 'html', 'pdf', 'xlsx'];

export function wordVersion(bytes: Uint8Array): WordVersion {
  try {
    const container = CFB.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { type: 'buffer' });
    const word = container.FileIndex.find((entry) => entry.name.toLowerCase() === 'worddocument')?.content as Uint8Array | undefined;
    if (!word || word.length < 4) return 'word97';
    const nFib = word[2]! | (word[3]! << 8);
    // Word 97 and later write 193 or more; Word 95 104, Word 6.0 101.
    if (nFib >= 193 || nFib < 101) return 'word97';
    return nFib >= 104 ? 'word95' : 'word6';
  } catch {
    return 'word97';
  }
}

/** The compound file as our reader sees it, or null when it cannot take it apart. */
export function readCompound(bytes: Uint8Array): CFB.CFB$Container | null {
  try {
    return CFB.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { type: 'buffer' });
  } catch {
    return null;
  }
}

/**
 * A compound file our reader refuses may still be a Word document the office reads (fuzzed and
 * damaged files often are): worth the office's try when its header is sound and it holds more
 * than a header and a few sectors. A cut-off stub is refused at once.
 */
function plausibleCompound(bytes: Uint8Array): boolean {
  if (bytes.length < 8192) return false;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const byteOrder = view.readUInt16LE(28);
  const sectorShift = view.readUInt16LE(30);
  return byteOrder === 0xfffe && (sectorShift === 9 || sectorShift === 12);
}

/** A compound file's directory names an Excel workbook stream and no Word one (UTF-16 names, found without the reader). */
function namesWorkbook(bytes: Uint8Array): boolean {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.includes(Buffer.from('Workbook', 'utf16le')) && !view.includes(Buffer.from('WordDocument', 'utf16le'));
}

function detectCompound(bytes: Uint8Array): Detection {
  const container = readCompound(bytes);
  if (!container) {
    if (namesWorkbook(bytes)) return fail('unknown', 'Excel 97-2003 workbooks (XLS) are not supported; save it as XLSX.');
    if (plausibleCompound(bytes)) return { ok: true, format: 'doc' };
    return fail('corrupt', 'The document is a damaged OLE compound file (truncated or corrupt); it cannot be opened.');
  }
  // Stream names are case-insensitive in the compound file format.
  const names = new Set(container.FileIndex.map((entry) => entry.name.toLowerCase()));
  if (names.has('encryptioninfo') || names.has('encryptedpackage')) {
    return fail('encrypted', 'The document is password-protected (encrypted); remove the password and send it again.');
  }
  const word = container.FileIndex.find((entry) => entry.name.toLowerCase() === 'worddocument');
  if (word) {
    const content = word.content as Uint8Array | undefined;
    if (!content || content.length < 12)
      return fail('corrupt', 'The Word 97-2003 document is damaged (its main stream is missing or too short).');
    const flags = content[10]! | (content[11]! << 8);
    if (flags & 0x0100) return fail('encrypted', 'The Word 97-2003 document is password-protected; remove the password and send it again.');
    return { ok: true, format: 'doc' };
  }
  if (names.has('workbook') || names.has('book')) {
    return fail('unknown', 'Excel 97-2003 workbooks (XLS) are not supported; save it as XLSX.');
  }
  return fail('unknown', 'The data is an OLE compound file but not a Word document.');
}
