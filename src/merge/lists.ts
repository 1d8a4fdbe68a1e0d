import { OoxmlPackage } from '../ooxml/package.js';

/** A list made from an HTML value: bullets or numbers, at a nesting level. */
export interface ListRequest {
  ordered: boolean;
  level: number;
}

const NUMBERING_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering';
const NUMBERING_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml';
const BULLETS = ['\u2022', '\u25e6', '\u25aa'];
const ORDERED = [
  ['decimal', '%N.'],
  ['lowerLetter', '%N.'],
  ['lowerRoman', '%N.'],
] as const;

/** The placeholder a list's paragraphs carry until the document is written. */
export const listToken = (index: number) => `docsmith-list-${index}`;
const TOKEN = /docsmith-list-(\d+)/g;

function abstractNum(id: number, ordered: boolean): string {
  const levels = Array.from({ length: 9 }, (_, ilvl) => {
    const [format, text] = ordered ? ORDERED[ilvl % 3]! : ['bullet', BULLETS[ilvl % 3]!];
    return (
      `<w:lvl w:ilvl="${ilvl}"><w:start w:val="1"/><w:numFmt w:val="${format}"/><w:lvlText w:val="${text.replace('N', String(ilvl + 1))}"/><w:lvlJc w:val="left"/>` +
      `<w:pPr><w:ind w:left="${720 * (ilvl + 1)}" w:hanging="360"/></w:pPr></w:lvl>`
    );
  }).join('');
  return `<w:abstractNum w:abstractNumId="${id}"><w:multiLevelType w:val="hybridMultilevel"/>${levels}</w:abstractNum>`;
}

const maxOf = (xml: string, pattern: RegExp) => Math.max(0, ...[...xml.matchAll(pattern)].map((m) => Number(m[1])));

/**
 * Adds numbering definitions for the lists of HTML values to the package (making the numbering
 * part when the template has none): one bullet and one numbered definition, and one instance per
 * list, numbered lists restarting at 1. Returns the part XML rewriter that puts in the numIds.
 */
export function addListNumbering(pkg: OoxmlPackage, mainPart: string, lists: ListRequest[]): (xml: string) => string {
  if (lists.length === 0) return (xml) => xml;
  const rel = pkg.relationships(mainPart).find((r) => r.type === NUMBERING_REL && !r.external);
  const part = rel ? OoxmlPackage.resolve(mainPart, rel.target) : 'word/numbering.xml';
  if (!pkg.has(part)) {
    pkg.setText(
      part,
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"></w:numbering>',
    );
    if (!rel) pkg.addRelationships(mainPart, [{ id: 'rIdDocsmithNumbering', type: NUMBERING_REL, target: 'numbering.xml' }]);
    pkg.addContentTypeOverride(part, NUMBERING_TYPE);
  }
  let xml = pkg.text(part)!;
  let nextAbstract = maxOf(xml, /<w:abstractNum\b[^>]*\bw:abstractNumId="(\d+)"/g) + 1;
  let nextNum = maxOf(xml, /<w:num\b[^>]*\bw:numId="(\d+)"/g) + 1;
  const abstractIds = new Map<boolean, number>();
  let abstracts = '';
  for (const ordered of new Set(lists.map((l) => l.ordered))) {
    abstractIds.set(ordered, nextAbstract);
    abstracts += abstractNum(nextAbstract++, ordered);
  }
  const numIds = lists.map(() => nextNum++);
  const nums = lists
    .map(
      (list, i) =>
        `<w:num w:numId="${numIds[i]}"><w:abstractNumId w:val="${abstractIds.get(list.ordered)}"/>` +
        (list.ordered ? `<w:lvlOverride w:ilvl="${list.level}"><w:startOverride w:val="1"/></w:lvlOverride>` : '') +
        '</w:num>',
    )
    .join('');
  // Schema order: numPicBullet*, abstractNum*, num*, numIdMacAtCleanup?
  const firstNum = xml.search(/<w:num[\s>]|<w:numIdMacAtCleanup\b|<\/w:numbering>/);
  xml = xml.slice(0, firstNum) + abstracts + xml.slice(firstNum);
  const end = xml.search(/<w:numIdMacAtCleanup\b|<\/w:numbering>/);
  pkg.setText(part, xml.slice(0, end) + nums + xml.slice(end));
  return (text) => text.replace(TOKEN, (whole, index: string) => String(numIds[Number(index) - 1] ?? whole));
}
