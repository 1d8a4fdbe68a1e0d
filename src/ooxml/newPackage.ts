import { escapeAttr } from './xml.js';
import { writeZip } from './zip.js';

export const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
export const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const WP_NS = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const NAMESPACES = `xmlns:w="${W_NS}" xmlns:r="${R_NS}" xmlns:wp="${WP_NS}"`;
/**
 * A part with Word 2010 shapes (text boxes: wps:wsp in a:graphicData) names their namespace
 * ignorable (ECMA-376 Part 3), as no ECMA-376 schema declares it: a consumer that does not know
 * it skips the shape; Word and the office read it.
 */
const shapes = (content: string) =>
  content.includes('<wps:')
    ? ' xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" mc:Ignorable="wps"'
    : '';
const WORD = 'application/vnd.openxmlformats-officedocument.wordprocessingml';

/** The parts a new document may have besides its main one, each with its root element. */
const ROOTS = { styles: 'w:styles', settings: 'w:settings', header: 'w:hdr', footer: 'w:ftr' } as const;
/** Parts that may refer to others (pictures, links) declare the relationships namespace too. */
const REFERS = new Set<string>(['header', 'footer']);
export type PartKind = keyof typeof ROOTS;

/** A hyperlink's relationship: an address a reader follows by a click, never fetched. */
export type Link = [id: string, url: string];

/** A picture of a part: its relationship id, its type (png, jpg, gif, bmp, emf, wmf, svg), its bytes. */
export interface Image {
  id: string;
  type: string;
  data: Uint8Array;
}

/** The media type of each picture type a package holds (and of page images). */
export const IMAGE_MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  emf: 'image/x-emf',
  wmf: 'image/x-wmf',
  svg: 'image/svg+xml',
};

export interface NewPart {
  kind: PartKind;
  /** The relationship id the main document (or its sectPr) refers to it by. */
  id: string;
  /** What goes inside its root element. */
  content: string;
  links?: Link[];
  images?: Image[];
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
export function newDocx(body: string, parts: NewPart[] = [], links: Link[] = [], images: Image[] = []): Buffer {
  const files: [string, Uint8Array][] = [];
  const media = new Set<string>();
  /** A part's pictures as media files (image1.png, ...) and their relationships. */
  const pictures = (list: Image[]) =>
    list.map((image) => {
      if (!IMAGE_MEDIA_TYPES[image.type]) throw new RangeError(`no picture type ${image.type}`);
      const file = `image${files.filter(([name]) => name.startsWith('word/media/')).length + 1}.${image.type}`;
      files.push([`word/media/${file}`, image.data]);
      media.add(image.type);
      return `<Relationship Id="${image.id}" Type="${R_NS}/image" Target="media/${file}"/>`;
    });
  const overrides = [`<Override PartName="/word/document.xml" ContentType="${WORD}.document.main+xml"/>`];
  const rels: string[] = [];
  const counts = new Map<PartKind, number>();
  for (const part of parts) {
    const n = (counts.get(part.kind) ?? 0) + 1;
    counts.set(part.kind, n);
    const file = part.kind === 'header' || part.kind === 'footer' ? `${part.kind}${n}.xml` : `${part.kind}.xml`;
    const root = ROOTS[part.kind];
    const namespaces = REFERS.has(part.kind) ? NAMESPACES : `xmlns:w="${W_NS}"`;
    files.push([`word/${file}`, utf8(`${XML}<${root} ${namespaces}${shapes(part.content)}>${part.content}</${root}>`)]);
    const partRels = [...linkRelationships(part.links ?? []), ...pictures(part.images ?? [])];
    if (partRels.length) files.push([`word/_rels/${file}.rels`, utf8(relationships(partRels))]);
    overrides.push(`<Override PartName="/word/${file}" ContentType="${WORD}.${part.kind}+xml"/>`);
    rels.push(`<Relationship Id="${part.id}" Type="${R_NS}/${part.kind}" Target="${file}"/>`);
  }
  rels.push(...linkRelationships(links), ...pictures(images));
  return writeZip([
    [
      '[Content_Types].xml',
      utf8(
        `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
          '<Default Extension="xml" ContentType="application/xml"/>' +
          [...media].map((type) => `<Default Extension="${type}" ContentType="${IMAGE_MEDIA_TYPES[type]!}"/>`).join('') +
          `${overrides.join('')}</Types>`,
      ),
    ],
    ['_rels/.rels', utf8(relationships([`<Relationship Id="rId1" Type="${R_NS}/officeDocument" Target="word/document.xml"/>`]))],
    ['word/document.xml', utf8(`${XML}<w:document ${NAMESPACES}${shapes(body)}><w:body>${body}</w:body></w:document>`)],
    ...(rels.length ? [['word/_rels/document.xml.rels', utf8(relationships(rels))] as [string, Buffer]] : []),
    ...files,
  ]);
}
