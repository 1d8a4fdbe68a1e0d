import { withoutComments } from '../ooxml/comments.js';
import { detectFormat, type DocumentFormat } from '../formats/detect.js';
import { inertCompound, inertDoc } from './doc.js';
import { inertPackage, inertPackageRead } from './docx.js';
import type { OoxmlPackage } from '../ooxml/package.js';
import { inertHtml } from './html.js';
import { inertRtf } from './rtf.js';
import { docxNeedsFieldUpdate } from '../ooxml/fields.js';

/** How deep documents nested in documents (altChunk, embedded packages) are followed. */
const NESTING = 3;

/**
 * The document with everything removed that could make the office read a file or fetch a URL
 * (linking fields, external relationships, linked objects, resource URLs). The first line of
 * defence; the office's sandbox is the second. Returns the input itself when nothing needed
 * removing.
 */
export function makeInert(bytes: Buffer, format: DocumentFormat, depth = NESTING): Buffer {
  switch (format) {
    case 'rtf':
      return inertRtf(bytes, { depth, nested });
    case 'doc':
      return inertDoc(bytes, { depth, nested });
    case 'html':
      return Buffer.from(inertHtml(bytes.toString('utf8')), 'utf8');
    case 'docx':
    case 'xlsx':
      return inertPackage(bytes, { depth, nested });
    case 'pdf':
      return bytes; // read by MuPDF, never by the office
    case 'tx':
      return bytes; // read by formats/tx/ into a DOCX without external references, never by the office
  }
}

/** A document made inert for the office, and for a DOCX whether it has fields to recompute: what the office is told. */
export interface InertDocument {
  bytes: Buffer;
  updateFields?: boolean;
}

/**
 * `fields: false`: the caller does not ask whether a DOCX has fields to recompute (it measures, or
 * learns it otherwise). `comments: false`: the output never shows comments, and a DOCX loses them
 * (ooxml/comments.ts).
 */
export interface InertOptions {
  fields?: boolean;
  comments?: boolean;
}

/**
 * A DOCX made inert for the office as inertForOffice makes it, with the package its bytes hold
 * (undefined when taking the comments out made new bytes): a merge's thread reads on in it.
 */
export function docxForOffice(
  bytes: Buffer,
  { comments = true }: Pick<InertOptions, 'comments'> = {},
): InertDocument & { pkg?: OoxmlPackage } {
  const made = inertPackageRead(bytes, { depth: NESTING, nested });
  const inert = comments ? made.bytes : withoutComments(made.bytes);
  return { bytes: inert, ...(inert === made.bytes ? { pkg: made.pkg } : {}) };
}

/** makeInert for the office: a DOCX is looked through for fields (ooxml/fields.ts) while it is at hand, in the same thread. */
export function inertForOffice(
  bytes: Buffer,
  format: DocumentFormat,
  { fields = true, comments = true }: InertOptions = {},
): InertDocument {
  if (format !== 'docx') return { bytes: makeInert(bytes, format) };
  const inert = docxForOffice(bytes, { comments }).bytes;
  return fields ? { bytes: inert, updateFields: docxNeedsFieldUpdate(inert, Infinity) } : { bytes: inert };
}

/** A part inside a package that is itself a document. */
function nested(bytes: Buffer, depth: number): Buffer {
  const detected = detectFormat(bytes);
  if (!detected.ok && isCompound(bytes)) {
    // An embedded object (a workbook, an OLE package): its pictures are read like a DOC's.
    return inertCompound(bytes, { depth, nested });
  }
  if (!detected.ok) {
    // An HTML fragment (altChunk) has no doctype to be recognised by; text with markup is treated as HTML.
    const head = bytes.subarray(0, 4096);
    return !head.includes(0) && head.includes(0x3c) ? Buffer.from(inertHtml(bytes.toString('utf8')), 'utf8') : bytes;
  }
  try {
    return makeInert(bytes, detected.format, depth);
  } catch {
    return Buffer.alloc(0); // a nested part we cannot read is not worth the risk
  }
}

const COMPOUND_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

function isCompound(bytes: Buffer): boolean {
  return bytes.subarray(0, 8).equals(COMPOUND_SIGNATURE);
}
