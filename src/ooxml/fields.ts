import { readZip, ZipError, DEFAULT_ZIP_LIMITS } from './zip.js';
import type { OoxmlPackage } from './package.js';

/**
 * Parts that show text on a page: the body, headers, footers, footnotes and endnotes, under any
 * name (appended documents' headers are copied as `j2_footer1.xml`, other writers name theirs freely).
 */
const SHOWN_PART = /^word\/[^/]*(?:document|header|footer|footnotes|endnotes)[^/]*\.xml$/i;
/** Past this much text, the answer is "maybe" where the check runs on the thread that answers requests (about a millisecond at most). */
const MAX_SCANNED_BYTES = 128 * 1024;
/** Fields whose results the layout sets page by page: recomputing fields does nothing for them. */
const SET_BY_LAYOUT = new Set(['PAGE']);

/** A part's field instructions as Word writes them, whole or split over runs: trimmed, upper-case. */
export function fieldInstructions(xml: string): string[] {
  if (!/<w:instrText\b|\bw:instr="/.test(xml)) return [];
  return [
    ...xml
      .replace(/<\/w:instrText>(?:(?!<w:instrText\b|<w:fldChar\b)[\s\S])*?<w:instrText\b[^>]*>/g, '')
      .matchAll(/<w:instrText\b[^>]*>([^<]*)<\/w:instrText>|\bw:instr="([^"]*)"/g),
  ].map((match) => (match[1] ?? match[2] ?? '').trim().toUpperCase());
}

/**
 * Whether the office has fields of this part to recompute: any field but page numbers (a field
 * nested in another counts as more than one instruction, none of them a bare PAGE). Recomputing
 * costs the office time in proportion to the document, which it recounts.
 */
export function needsFieldUpdate(xml: string): boolean {
  return fieldKeywords(xml).some((keyword) => !SET_BY_LAYOUT.has(keyword));
}

/** The keyword of each of a part's field instructions: MERGEFIELD, PAGE, ... */
export function fieldKeywords(xml: string): string[] {
  return fieldInstructions(xml).map((instruction) => instruction.split(/\s+/)[0] ?? '');
}

/** As needsFieldUpdate for the text parts of a package read already (the body, headers, footers, notes). */
export function packageNeedsFieldUpdate(pkg: OoxmlPackage): boolean {
  return pkg.textParts().some((name) => needsFieldUpdate(pkg.text(name) ?? ''));
}

/**
 * As needsFieldUpdate for a whole DOCX: false only when its shown parts were read and none has a
 * field to recompute; more text than `maxBytes`, a damaged package or one without a main document: true.
 * A worker thread (a merge's result) may read the whole document: pass Infinity.
 */
export function docxNeedsFieldUpdate(docx: Uint8Array, maxBytes = MAX_SCANNED_BYTES): boolean {
  let parts: Map<string, Uint8Array>;
  const { maxPartBytes, maxTotalBytes } = DEFAULT_ZIP_LIMITS;
  const limits = {
    ...DEFAULT_ZIP_LIMITS,
    maxPartBytes: Math.min(maxBytes, maxPartBytes),
    maxTotalBytes: Math.min(maxBytes, maxTotalBytes),
  };
  try {
    parts = readZip(docx, limits, (name) => SHOWN_PART.test(name));
  } catch (error) {
    if (error instanceof ZipError) return true;
    throw error;
  }
  if (!parts.has('word/document.xml')) return true;
  const decoder = new TextDecoder();
  return [...parts.values()].some((xml) => needsFieldUpdate(decoder.decode(xml)));
}
