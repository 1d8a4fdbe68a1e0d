/**
 * docxtemplater's raw XML values (`{@x}`, where the operator allows them): WordprocessingML
 * paragraphs and tables of text and formatting, checked and written anew. Nothing that refers
 * outside the markup passes: no relationships (pictures, links, embedded objects), no fields (a
 * linked field reads files), no parts it would need (notes, comments), no section breaks.
 */
import { InputError } from '../errors.js';
import { parseXml, serialize, type XmlElement, type XmlNode } from '../ooxml/xml.js';

/** Longest raw value, in characters: a document's worth of paragraphs, not a dump. */
export const MAX_RAW_XML = 1024 * 1024;

/** Deepest nesting a raw value may have (tables in tables stay far below it). */
const MAX_RAW_DEPTH = 64;

const TOP_LEVEL = new Set(['w:p', 'w:tbl']);

/** Elements that refer outside the markup or need parts of their own. */
const REFUSED = new Set([
  'w:fldSimple',
  'w:instrText',
  'w:delInstrText',
  'w:fldChar',
  'w:fldData',
  'w:hyperlink',
  'w:drawing',
  'w:pict',
  'w:object',
  'w:control',
  'w:altChunk',
  'w:subDoc',
  'w:sectPr',
  'w:dataBinding',
  'w:footnoteReference',
  'w:endnoteReference',
  'w:commentReference',
  'w:commentRangeStart',
  'w:commentRangeEnd',
  'w:bookmarkStart',
  'w:bookmarkEnd',
  'w:customXml',
  'w:embedRegular',
  'w:embedBold',
  'w:embedItalic',
  'w:embedBoldItalic',
]);

/** The value as markup to put where its paragraph was; a 400 naming what it may not hold. */
export function checkedRawXml(value: string, field: string): string {
  const what = `The raw XML of {@${field}}`;
  if (value.length > MAX_RAW_XML) throw new InputError(`${what} is longer than ${MAX_RAW_XML} characters.`);
  const root = parseXml(`<raw>${value}</raw>`, what).root;
  const check = (node: XmlElement, depth: number): void => {
    if (depth > MAX_RAW_DEPTH) throw new InputError(`${what} nests elements more than ${MAX_RAW_DEPTH} deep.`);
    if (!node.name.startsWith('w:') || REFUSED.has(node.name))
      throw new InputError(
        `${what} holds <${node.name}>: raw XML may hold paragraphs and tables of text and formatting (w: elements), nothing that refers outside them.`,
      );
    for (const [name] of node.attrs)
      if (!name.startsWith('w:') && name !== 'xml:space')
        throw new InputError(`${what} has the attribute ${name} on <${node.name}>: only w: attributes are kept.`);
    for (const child of node.children) {
      if (child.kind === 'element') check(child, depth + 1);
      else if (child.kind === 'raw' && !child.xml.startsWith('<!--'))
        throw new InputError(`${what} holds ${child.xml.slice(0, 12)}…: only elements and text.`);
    }
  };
  const top: XmlNode[] = [];
  for (const child of root.children) {
    if (child.kind === 'text' && child.text.trim() === '') continue;
    if (child.kind === 'raw' && child.xml.startsWith('<!--')) continue;
    if (child.kind !== 'element' || !TOP_LEVEL.has(child.name))
      throw new InputError(
        `${what} must be paragraphs (<w:p>) or tables (<w:tbl>), as docxtemplater puts in place of the tag's paragraph.`,
      );
    check(child, 1);
    top.push(child);
  }
  // Comments go: written anew, only what was checked.
  const strip = (node: XmlNode): XmlNode =>
    node.kind === 'element' ? { ...node, children: node.children.filter((c) => c.kind !== 'raw').map(strip) } : node;
  return top.map((node) => serialize(strip(node))).join('');
}

/** Whether markup ends with a table (a table cell must end with a paragraph). */
export const endsWithTable = (xml: string): boolean => xml.endsWith('</w:tbl>');
