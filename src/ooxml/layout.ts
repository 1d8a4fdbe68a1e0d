import { fieldKeywords } from './fields.js';
import { OoxmlPackage } from './package.js';

/**
 * Whether appended records of this template can be laid out in separate office jobs and their
 * PDFs joined, giving the same pages as one layout: nothing in it depends on pages or places
 * outside a record. Fields that count or refer across the document (NUMPAGES, SECTIONPAGES,
 * PAGEREF, TOC, NOTEREF, SECTION), PAGE unless each record restarts its numbering, notes (Word
 * numbers them through the document), headings (one PDF outline), and links to places in the
 * document all need the whole layout.
 */
export function laysOutInParts(docx: Buffer | OoxmlPackage, restartsNumbering: boolean): boolean {
  const pkg = docx instanceof OoxmlPackage ? docx : OoxmlPackage.read(docx);
  const parts = pkg.textParts();
  for (const name of parts) {
    const xml = pkg.text(name) ?? '';
    for (const keyword of fieldKeywords(xml)) {
      if (['NUMPAGES', 'SECTIONPAGES', 'PAGEREF', 'TOC', 'NOTEREF', 'SECTION', 'REF', 'SEQ'].includes(keyword)) return false;
      if (keyword === 'PAGE' && !restartsNumbering) return false;
    }
    if (/<w:(?:footnoteReference|endnoteReference)\b|<w:hyperlink\b[^>]*\bw:anchor=|<w:outlineLvl\b/.test(xml)) return false;
  }
  // Paragraphs in heading styles (an outline level, their own or by the style they are based on) give the PDF its outline.
  const used = new Set(parts.flatMap((name) => [...(pkg.text(name) ?? '').matchAll(/<w:pStyle w:val="([^"]+)"/g)].map((m) => m[1]!)));
  const styles = new Map<string, { basedOn?: string; outline: boolean }>();
  for (const match of (pkg.text('word/styles.xml') ?? '').matchAll(/<w:style\b[^>]*w:styleId="([^"]+)"[^>]*>([\s\S]*?)<\/w:style>/g)) {
    styles.set(match[1]!, { basedOn: /<w:basedOn w:val="([^"]+)"/.exec(match[2]!)?.[1], outline: /<w:outlineLvl\b/.test(match[2]!) });
  }
  const outlined = (id: string | undefined, depth = 0): boolean => {
    const style = id === undefined ? undefined : styles.get(id);
    return style !== undefined && depth < 20 && (style.outline || outlined(style.basedOn, depth + 1));
  };
  return ![...used].some((id) => outlined(id));
}
