import { escapeText, openTag, type XmlElement } from '../ooxml/xml.js';
import { serializeT, type BlockNode, type FieldNode, type TElement, type TNode } from './template.js';

/**
 * A template tree flattened for rendering: runs of static XML are single strings, and only
 * the places that depend on data are objects. Rendering one record is a walk over this list.
 */
export type Segment = string | FieldSegment | BlockSegment | ParagraphSegment | ContainerSegment;

export interface FieldSegment {
  kind: 'field';
  field: FieldNode;
}

export interface BlockSegment {
  kind: 'block';
  name: string;
  body: Segment[];
}

/** A paragraph with fields: removable when it holds nothing but fields that all came out empty. */
export interface ParagraphSegment {
  kind: 'paragraph';
  body: Segment[];
  onlyFields: boolean;
}

/** A table or cell holding a block: a table left without rows goes; a cell keeps a paragraph. */
export interface ContainerSegment {
  kind: 'table' | 'cell';
  open: string;
  body: Segment[];
  close: string;
}

function contains(node: TNode, test: (n: TNode) => boolean): boolean {
  if (test(node)) return true;
  if (node.kind === 'element' || node.kind === 'block') return node.children.some((c) => contains(c, test));
  return false;
}

const isField = (n: TNode) => n.kind === 'field';
const isBlock = (n: TNode) => n.kind === 'block';

/** Whether a paragraph has visible text besides its fields. */
function hasLiteralText(node: TNode): boolean {
  if (node.kind === 'field' || node.kind === 'text' || node.kind === 'raw') return false;
  if (node.kind === 'block') return node.children.some(hasLiteralText);
  if (node.name === 'w:t') return node.children.some((c) => c.kind === 'text' && c.text.trim() !== '');
  if (node.name === 'w:drawing' || node.name === 'w:pict' || node.name === 'w:object' || node.name === 'w:sym') return true;
  return node.children.some(hasLiteralText);
}

class Builder {
  readonly out: Segment[] = [];
  private pending = '';

  text(s: string): void {
    this.pending += s;
  }

  push(segment: Exclude<Segment, string>): void {
    this.flush();
    this.out.push(segment);
  }

  done(): Segment[] {
    this.flush();
    return this.out;
  }

  private flush(): void {
    if (this.pending) this.out.push(this.pending);
    this.pending = '';
  }
}

function emit(node: TNode, b: Builder): void {
  if (node.kind === 'field') return b.push({ kind: 'field', field: node });
  if (node.kind === 'block') return b.push({ kind: 'block', name: node.name, body: compileNodes(node.children) });
  if (node.kind === 'text') return b.text(escapeText(node.text));
  if (node.kind === 'raw') return b.text(node.xml);
  const dynamic = contains(node, (n) => isField(n) || isBlock(n));
  if (!dynamic) return b.text(serializeT(node));
  if (node.name === 'w:p' && !contains(node, isBlock)) {
    return b.push({ kind: 'paragraph', body: compileChildren(node), onlyFields: !hasLiteralText(node) });
  }
  if ((node.name === 'w:tbl' || node.name === 'w:tc') && contains(node, isBlock)) {
    return b.push({ kind: node.name === 'w:tbl' ? 'table' : 'cell', open: openTag(node as XmlElement), body: compileNodes(node.children), close: `</${node.name}>` });
  }
  b.text(openTag(node as XmlElement));
  for (const child of node.children) emit(child, b);
  b.text(`</${node.name}>`);
}

function compileChildren(node: TElement): Segment[] {
  const b = new Builder();
  b.text(openTag(node as XmlElement));
  for (const child of node.children) emit(child, b);
  b.text(`</${node.name}>`);
  return b.done();
}

export function compileNodes(nodes: TNode[]): Segment[] {
  const b = new Builder();
  for (const node of nodes) emit(node, b);
  return b.done();
}

export type { BlockNode };
