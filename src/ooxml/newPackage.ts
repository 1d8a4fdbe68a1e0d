import { escapeAttr } from './xml.js';
import { writeZip } from './zip.js';

export const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
export const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const NAMESPACES = `xmlns:w="${W_NS}" xmlns:r="${R_NS}"`;
const WORD = 'application/vnd.openxmlformats-officedocument.wordprocessingml';

/** The parts a new document may have besides its main one, each with its root element. */
const ROOTS = { styles: 'w:styles', settings: 'w:settings', header: 'w:hdr', footer: 'w:ftr' } as const;
/** Parts that may refer to others (pictures, links) declare the relationships namespace too. */
const REFERS = new Set<string>(['header', 'footer']);
export type PartKind = keyof typeof ROOTS;

/** A hyperlink's relationship: an address a reader follows by a click, never fetched. */
export type Link = [id: string, url: string];

export interface NewPart {
  kind: PartKind;
  /** The relationship id the main document (or its sectPr) refers to it by. */
  id: string;
  /** What goes inside its root element. */
  content: string;
  links?: Link[];
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

const relationships = (rels: string[]) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`;

const linkRelationships = (links: Link[]) =>
  links.map(([id, url]) => `<Relationship Id="${id}" Type="${R_NS}/hyperlink" Target="${escapeAttr(url)}" TargetMode="External"/>`);

/**
 * A DOCX docsmith makes itself (the office's warm-up letter, the document threads' warm-up
 * template, a TX document read into DOCX): `body` inside w:body, each part under word/ with its
 * content type and its relationship from the main document. Headers and footers are numbered in
 * their order (header1.xml, footer1.xml, ...).
 */
export function newDocx(body: string, parts: NewPart[] = [], links: Link[] = []): Buffer {
  const files: [string, Buffer][] = [];
  const overrides = [`<Override PartName="/word/document.xml" ContentType="${WORD}.document.main+xml"/>`];
  const rels: string[] = [];
  const counts = new Map<PartKind, number>();
  for (const part of parts) {
    const n = (counts.get(part.kind) ?? 0) + 1;
    counts.set(part.kind, n);
    const file = part.kind === 'header' || part.kind === 'footer' ? `${part.kind}${n}.xml` : `${part.kind}.xml`;
    const root = ROOTS[part.kind];
    const namespaces = REFERS.has(part.kind) ? NAMESPACES : `xmlns:w="${W_NS}"`;
    files.push([`word/${file}`, utf8(`${XML}<${root} ${namespaces}>${part.content}</${root}>`)]);
    if (part.links?.length) files.push([`word/_rels/${file}.rels`, utf8(relationships(linkRelationships(part.links)))]);
    overrides.push(`<Override PartName="/word/${file}" ContentType="${WORD}.${part.kind}+xml"/>`);
    rels.push(`<Relationship Id="${part.id}" Type="${R_NS}/${part.kind}" Target="${file}"/>`);
  }
  rels.push(...linkRelationships(links));
  return writeZip([
    [
      '[Content_Types].xml',
      utf8(
        `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
          `<Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`,
      ),
    ],
    ['_rels/.rels', utf8(relationships([`<Relationship Id="rId1" Type="${R_NS}/officeDocument" Target="word/document.xml"/>`]))],
    ['word/document.xml', utf8(`${XML}<w:document ${NAMESPACES}><w:body>${body}</w:body></w:document>`)],
    ...(rels.length ? [['word/_rels/document.xml.rels', utf8(relationships(rels))] as [string, Buffer]] : []),
    ...files,
  ]);
}
