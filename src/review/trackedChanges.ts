import { InputError } from '../errors.js';
import { OoxmlPackage } from '../ooxml/package.js';
import { attr, parseXml, serializeDocument, type XmlDocument, type XmlElement, type XmlNode } from '../ooxml/xml.js';

/** Change kinds as the API reports them. */
export const CHANGE_KIND = { inserted: 4096, deleted: 8192, formatting: 16384, paragraph: 32768 } as const;

export interface TrackedChange {
  id: number;
  changeKind: number;
  changeTime: string;
  userName: string;
  text: string;
  start: number;
  length: number;
  highlightMode: number;
  highlightColor: string;
  defaultHighlightColor: string;
}

const HIGHLIGHT: Record<number, string> = { 4096: '#0000FF', 8192: '#FF0000', 16384: '#008000', 32768: '#808080' };

interface Found {
  element: XmlElement;
  parent: XmlElement;
  kind: number;
  part: string;
  change: TrackedChange;
}

function textOf(node: XmlNode): string {
  if (node.kind !== 'element') return '';
  if (node.name === 'w:t' || node.name === 'w:delText') return node.children.map((c) => (c.kind === 'text' ? c.text : '')).join('');
  if (node.name === 'w:tab') return '\t';
  if (node.name === 'w:br' || node.name === 'w:cr') return '\n';
  return node.children.map(textOf).join('');
}

/** Walks every tracked change in document order, with offsets in the document's plain text. */
function findChanges(pkg: OoxmlPackage, docs: Map<string, XmlDocument>): Found[] {
  const found: Found[] = [];
  let offset = 0;
  const record = (element: XmlElement, parent: XmlElement, kind: number, part: string, text: string) => {
    found.push({
      element,
      parent,
      kind,
      part,
      change: {
        id: found.length + 1,
        changeKind: kind,
        changeTime: (attr(element, 'w:date') ?? '').replace(/Z$/, '+00:00'),
        userName: attr(element, 'w:author') ?? '',
        text,
        start: offset,
        length: text.length,
        highlightMode: 1,
        highlightColor: HIGHLIGHT[kind] ?? '',
        defaultHighlightColor: HIGHLIGHT[kind] ?? '',
      },
    });
  };
  const visit = (node: XmlElement, part: string) => {
    for (const child of node.children) {
      if (child.kind !== 'element') continue;
      const name = child.name;
      if (name === 'w:ins' || name === 'w:moveTo' || name === 'w:del' || name === 'w:moveFrom') {
        const kind = name === 'w:ins' || name === 'w:moveTo' ? CHANGE_KIND.inserted : CHANGE_KIND.deleted;
        if (node.name === 'w:rPr') {
          // The paragraph mark itself was inserted or deleted.
          record(child, node, CHANGE_KIND.paragraph, part, '');
          continue;
        }
        record(child, node, kind, part, textOf(child));
        visit(child, part); // counts the change's own text into the offset
        continue;
      }
      if (name === 'w:rPrChange' || name === 'w:pPrChange') {
        record(child, node, CHANGE_KIND.formatting, part, '');
        continue;
      }
      if (name === 'w:t' || name === 'w:delText' || name === 'w:tab' || name === 'w:br' || name === 'w:cr') {
        offset += textOf(child).length;
        continue;
      }
      visit(child, part);
      if (name === 'w:p') offset += 1; // a paragraph ends with a break in the plain text
    }
  };
  for (const part of pkg.textParts()) {
    const doc = parseXml(pkg.text(part)!, part);
    docs.set(part, doc);
    visit(doc.root, part);
  }
  return found;
}

export function listTrackedChanges(docx: Uint8Array): TrackedChange[] {
  return findChanges(OoxmlPackage.read(docx), new Map()).map((f) => f.change);
}

function unwrap(parent: XmlElement, element: XmlElement, convertDeleted: boolean): void {
  const index = parent.children.indexOf(element);
  const children = element.children;
  if (convertDeleted) {
    const rename = (node: XmlNode) => {
      if (node.kind !== 'element') return;
      if (node.name === 'w:delText') node.name = 'w:t';
      if (node.name === 'w:delInstrText') node.name = 'w:instrText';
      node.children.forEach(rename);
    };
    children.forEach(rename);
  }
  parent.children.splice(index, 1, ...children);
}

function remove(parent: XmlElement, element: XmlElement): void {
  parent.children.splice(parent.children.indexOf(element), 1);
}

/** Accepts or rejects one change (by its id from the list) and returns the new DOCX. */
export function removeTrackedChange(docx: Uint8Array, id: number, accept: boolean): Buffer {
  const pkg = OoxmlPackage.read(docx);
  const docs = new Map<string, XmlDocument>();
  const found = findChanges(pkg, docs);
  const target = found.find((f) => f.change.id === id);
  if (!target) throw new InputError(`The document has no tracked change with id ${id} (it has ${found.length}).`);
  const { element, parent, kind } = target;
  if (kind === CHANGE_KIND.inserted) {
    if (accept) unwrap(parent, element, false);
    else remove(parent, element);
  } else if (kind === CHANGE_KIND.deleted) {
    if (accept) remove(parent, element);
    else unwrap(parent, element, true);
  } else if (kind === CHANGE_KIND.formatting) {
    if (accept) {
      remove(parent, element);
    } else {
      // The properties before the change replace the current ones.
      const before = element.children.find((c): c is XmlElement => c.kind === 'element' && (c.name === 'w:rPr' || c.name === 'w:pPr'));
      parent.children = before ? [...before.children] : [];
    }
  } else {
    // A paragraph mark: accepting an insertion or rejecting a deletion keeps the paragraph as is.
    remove(parent, element);
  }
  pkg.setText(target.part, serializeDocument(docs.get(target.part)!));
  return pkg.toBuffer();
}
