import { OoxmlPackage } from './package.js';

/**
 * Stored results of SECTIONPAGES ("page X of Y" of a merged record, merge/engine.ts). Word lays
 * out and computes the field itself; LibreOffice shows the result stored in the file. The
 * measured page count of each section goes into the headers and footers that show the field:
 * in place when all their sections have one count, else into a copy per count.
 */

const SECT_PR = /<w:sectPr\b[^>]*>[\s\S]*?<\/w:sectPr>/g;
const REFERENCE = /(<w:(?:header|footer)Reference\b[^>]*?\br:id=")([^"]+)(")/g;

/** Whether a part shows SECTIONPAGES, its instruction whole or split over runs as Word writes it. */
function showsField(xml: string | undefined): boolean {
  if (!xml) return false;
  return (
    xml.includes('SECTIONPAGES') ||
    xml.replace(/<\/w:instrText>(?:(?!<w:instrText\b|<w:fldChar\b)[\s\S])*?<w:instrText\b[^>]*>/g, '').includes('SECTIONPAGES')
  );
}

/** Whether the document has several sections and a header or footer showing SECTIONPAGES: then measuring is worth it. */
export function showsSectionPages(docx: Buffer): boolean {
  const pkg = OoxmlPackage.read(docx);
  const main = pkg.mainDocument();
  const xml = pkg.text(main) ?? '';
  if ((xml.match(SECT_PR) ?? []).length < 2) return false;
  return pkg
    .relationships(main)
    .some((rel) => !rel.external && /\/(header|footer)$/.test(rel.type) && showsField(pkg.text(OoxmlPackage.resolve(main, rel.target))));
}

/** The package with each section's SECTIONPAGES results set to `pages[i]`; unchanged when the sections and counts do not match up. */
export function storeSectionPages(docx: Buffer, pages: number[]): Buffer {
  const pkg = OoxmlPackage.read(docx);
  const main = pkg.mainDocument();
  const xml = pkg.text(main) ?? '';
  const sections = xml.match(SECT_PR) ?? [];
  if (sections.length !== pages.length) return docx;
  const rels = new Map(
    pkg
      .relationships(main)
      .filter((rel) => !rel.external)
      .map((rel) => [rel.id, rel]),
  );
  // Which counts each header or footer must show: one count, set in place (appended records have parts of their own); several, a copy per count.
  const counts = new Map<string, Set<number>>();
  sections.forEach((section, i) => {
    for (const [, , id] of section.matchAll(REFERENCE)) counts.set(id!, (counts.get(id!) ?? new Set()).add(pages[i]!));
  });
  let changed = false;
  const copies = new Map<string, string>(); // "relId count" -> the copy's relationship id
  const copyFor = (relId: string, count: number): string | undefined => {
    const key = `${relId} ${count}`;
    if (copies.has(key)) return copies.get(key);
    const rel = rels.get(relId);
    const source = rel ? OoxmlPackage.resolve(main, rel.target) : undefined;
    const text = source ? pkg.text(source) : undefined;
    if (!rel || !source || !text || !showsField(text)) return undefined;
    changed = true;
    if (counts.get(relId)!.size === 1) {
      pkg.setText(source, withFieldResult(text, 'SECTIONPAGES', String(count)));
      copies.set(key, relId);
      return relId;
    }
    const dot = source.lastIndexOf('.');
    const name = `${source.slice(0, dot)}-pages${count}${source.slice(dot)}`;
    pkg.setText(name, withFieldResult(text, 'SECTIONPAGES', String(count)));
    const sourceRels = relsName(source);
    if (pkg.has(sourceRels)) pkg.setText(relsName(name), pkg.text(sourceRels)!);
    const type = pkg.contentTypeOf(source);
    if (type) pkg.addContentTypeOverride(name, type);
    const id = `rIdDsPages${copies.size + 1}`; // unique: ids in place are the part's own
    pkg.addRelationships(main, [{ id, type: rel.type, target: name.slice(name.lastIndexOf('/') + 1) }]);
    copies.set(key, id);
    return id;
  };
  let index = 0;
  const out = xml.replace(SECT_PR, (section) => {
    const count = pages[index++]!;
    return section.replace(REFERENCE, (whole, open: string, id: string, close: string) => {
      const copy = copyFor(id, count);
      return copy ? `${open}${copy}${close}` : whole;
    });
  });
  if (!changed) return docx;
  pkg.setText(main, out);
  return pkg.toBuffer();
}

function relsName(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/**
 * Sets the shown result of every field of one kind: a simple field's text, or a complex field's
 * result runs (the first run's text becomes the value, later ones are emptied).
 */
export function withFieldResult(xml: string, keyword: string, value: string): string {
  const named = new RegExp(`^\\s*${keyword}\\b`, 'i');
  const simple = xml.replace(
    /(<w:fldSimple\b[^>]*\bw:instr="([^"]*)"[^>]*>)([\s\S]*?)(<\/w:fldSimple>)/g,
    (whole, open: string, instr: string, inner: string, close: string) =>
      named.test(instr) ? open + setTexts(inner, value) + close : whole,
  );
  // begin, instruction runs, separate, result runs, end (the instruction holds no nested field here).
  return simple.replace(
    /(<w:fldChar\b[^>]*w:fldCharType="begin"[^>]*\/>)((?:(?!<w:fldChar\b)[\s\S])*?)(<w:fldChar\b[^>]*w:fldCharType="separate"[^>]*\/>)((?:(?!<w:fldChar\b)[\s\S])*?)(?=<w:fldChar\b[^>]*w:fldCharType="end")/g,
    (whole, begin: string, instruction: string, separate: string, result: string) => {
      const text = [...instruction.matchAll(/<w:instrText\b[^>]*>([^<]*)<\/w:instrText>/g)].map((m) => m[1]).join('');
      return named.test(text) ? begin + instruction + separate + setTexts(result, value) : whole;
    },
  );
}

function setTexts(runs: string, value: string): string {
  let first = true;
  return runs.replace(/(<w:t\b[^>]*>)[^<]*(<\/w:t>)/g, (_m, open: string, close: string) => {
    const text = first ? value : '';
    first = false;
    return open + text + close;
  });
}
