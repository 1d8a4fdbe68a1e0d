import { OoxmlPackage } from './package.js';
import { parseXml, serializeDocument } from './xml.js';
import { putInSchemaOrder } from './properties-order.js';

/**
 * A DOCX the office wrote, made as Word reads it: property elements in schema order (LibreOffice
 * 7.4 writes a paragraph's section properties first, and a numbering level's paragraph style
 * before its number format; Word reports such a file as damaged).
 * A package that needs nothing comes back as it came.
 */
export function tidyOfficeDocx(bytes: Buffer): Buffer {
  const pkg = OoxmlPackage.read(bytes, "The office's DOCX");
  let changed = false;
  for (const name of [...pkg.parts.keys()]) {
    if (!name.startsWith('word/') || !name.endsWith('.xml')) continue;
    const xml = pkg.text(name);
    // Seen out of order: section properties inside a paragraph's, a numbering level's paragraph
    // style before its number format. Other parts are not parsed.
    if (!xml || !(/<w:pPr>\s*<w:sectPr\b/.test(xml) || /<w:pStyle\b[^>]*\/>\s*<w:numFmt\b/.test(xml))) continue;
    const doc = parseXml(xml, name);
    if (!putInSchemaOrder(doc.root)) continue;
    pkg.setText(name, serializeDocument(doc));
    changed = true;
  }
  return changed ? pkg.toBuffer() : bytes;
}
