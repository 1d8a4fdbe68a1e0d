import { InputError } from '../errors.js';
import { OoxmlPackage, TEXT_PART_KINDS } from '../ooxml/package.js';
import { parseXml, serializeDocument, setAttr, type XmlElement, type XmlNode } from '../ooxml/xml.js';

/** Containers whose runs belong to the paragraph around them. */
const INLINE = new Set([
  'w:r',
  'w:hyperlink',
  'w:smartTag',
  'w:customXml',
  'w:ins',
  'w:moveTo',
  'w:sdt',
  'w:sdtContent',
  'w:fldSimple',
  'w:dir',
  'w:bdo',
]);

interface Piece {
  node: XmlElement;
  start: number;
  text: string;
}

/** The w:t elements of one paragraph, in order; nested paragraphs (text boxes) are their own. */
function pieces(paragraph: XmlElement): Piece[] {
  const out: Piece[] = [];
  let offset = 0;
  const visit = (node: XmlNode) => {
    if (node.kind !== 'element') return;
    if (node.name === 'w:t') {
      const text = node.children.map((c) => (c.kind === 'text' ? c.text : '')).join('');
      out.push({ node, start: offset, text });
      offset += text.length;
      return;
    }
    if (node.name === 'w:p' && node !== paragraph) return;
    if (node === paragraph || INLINE.has(node.name)) node.children.forEach(visit);
  };
  visit(paragraph);
  return out;
}

function setText(piece: Piece, value: string): void {
  piece.node.children = value ? [{ kind: 'text', text: value }] : [];
  setAttr(piece.node, 'xml:space', 'preserve');
}

/** Replaces every occurrence in one paragraph; a match across runs takes its first run's format. */
function replaceInParagraph(paragraph: XmlElement, find: string, replacement: string): number {
  const list = pieces(paragraph);
  const text = list.map((p) => p.text).join('');
  const matches: number[] = [];
  for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + find.length)) matches.push(at);
  for (const start of matches.reverse()) {
    const end = start + find.length;
    const first = list.findIndex((p) => start >= p.start && start < p.start + p.text.length);
    const last = list.findIndex((p) => end - 1 >= p.start && end - 1 < p.start + p.text.length);
    const a = list[first]!;
    const b = list[last]!;
    const tail = b.text.slice(end - b.start);
    if (first === last) {
      a.text = a.text.slice(0, start - a.start) + replacement + tail;
      setText(a, a.text);
    } else {
      a.text = a.text.slice(0, start - a.start) + replacement;
      setText(a, a.text);
      for (let i = first + 1; i < last; i++) {
        list[i]!.text = '';
        setText(list[i]!, '');
      }
      b.text = tail;
      setText(b, tail);
    }
  }
  return matches.length;
}

function paragraphsOf(node: XmlElement, out: XmlElement[] = []): XmlElement[] {
  if (node.name === 'w:p') out.push(node);
  for (const child of node.children) if (child.kind === 'element') paragraphsOf(child, out);
  return out;
}

/** Applies find/replace pairs in order to the body, tables, headers, footers, notes and text boxes. */
export function findAndReplace(docx: Uint8Array, pairs: [string, string][]): Buffer {
  pairs.forEach(([find], i) => {
    if (find === '') throw new InputError(`findAndReplaceData[${i}] has an empty find text.`);
  });
  const pkg = OoxmlPackage.read(docx, 'The template');
  const parts = pkg.textParts([...TEXT_PART_KINDS, 'comments']);
  for (const name of parts) {
    const doc = parseXml(pkg.text(name)!, `The template (${name})`);
    const paragraphs = paragraphsOf(doc.root);
    let changed = 0;
    for (const [find, replacement] of pairs) {
      for (const paragraph of paragraphs) changed += replaceInParagraph(paragraph, find, replacement);
    }
    if (changed > 0) pkg.setText(name, serializeDocument(doc));
  }
  return pkg.toBuffer();
}
