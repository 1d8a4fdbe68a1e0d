import { readZip, ZipError, DEFAULT_ZIP_LIMITS } from './zip.js';

/** Parts that show text on a page: the body, headers, footers, footnotes and endnotes. */
const SHOWN_PART = /^word\/(?:document|header\d*|footer\d*|footnotes|endnotes)\.xml$/;
/** Past this much text, the answer is "maybe": the check runs where requests are answered. */
const MAX_SCANNED_BYTES = 512 * 1024;
const FIELD_MARKUP = ['<w:fldSimple', '<w:instrText', '<w:fldChar'];

/**
 * Whether a DOCX may hold fields: false only when its shown parts were read and none has field
 * markup, so asking the office to recompute fields (a few milliseconds a document) can be skipped.
 */
export function mayHoldFields(docx: Uint8Array): boolean {
  let parts: Map<string, Uint8Array>;
  try {
    parts = readZip(docx, { ...DEFAULT_ZIP_LIMITS, maxPartBytes: MAX_SCANNED_BYTES, maxTotalBytes: MAX_SCANNED_BYTES }, (name) =>
      SHOWN_PART.test(name),
    );
  } catch (error) {
    if (error instanceof ZipError) return true;
    throw error;
  }
  if (!parts.has('word/document.xml')) return true;
  for (const xml of parts.values()) {
    const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
    if (FIELD_MARKUP.some((markup) => bytes.includes(markup))) return true;
  }
  return false;
}
