import { escapeText, openTag, type XmlElement } from '../ooxml/xml.js';
import { serializeT, type BlockNode, type FieldNode, type TElement, type TNode } from './template.js';
import type { TxBarcode } from './barcodes.js';
import type { BlockMode } from './template.js';
import type { RowFilter } from './filter.js';

/** What compiling a part needs from its package: the TX barcode a relationship id points to. */
export interface CompileContext {
  barcode(relId: string): TxBarcode | undefined;
  /** Inside a table cell (long values are split into paragraphs there). */
  inCell?: boolean;
  /** Inside a merge block (a chart there shows each repetition's own rows). */
  inBlock?: boolean;
}

const NO_CONTEXT: CompileContext = { barcode: () => undefined };

/**
 * A template tree flattened for rendering: runs of static XML are single strings, and only
 * the places that depend on data are objects. Rendering one record is a walk over this list.
 */
export type Segment = string | FieldSegment | BlockSegment | ParagraphSegment | ContainerSegment | ImageSegment | ChartSegment;

/** A chart inside a merge block: each repetition gets a copy showing the rows of its block of the chart's name (merge/charts.ts). */
export interface ChartSegment {
  kind: 'chart';
  /** The chart's name without a `_tx_id_N_` prefix: the block whose rows it shows. */
  name: string;
  /** The template's relationship to the chart part. */
  relId: string;
  xml: string;
}

/** A picture that a data value may replace: found by its name (wp:docPr/@name). */
export interface ImageSegment {
  kind: 'image';
  /** The name, and the name without a `_tx_id_N_` prefix. */
  names: string[];
  xml: string;
  embed: string;
  cx: number;
  cy: number;
  /** A TX barcode picture: its value is drawn as a barcode; `relId` relates its custom XML. */
  barcode?: TxBarcode & { relId: string };
}

export interface FieldSegment {
  kind: 'field';
  field: FieldNode;
  inCell?: boolean;
}

export interface BlockSegment {
  kind: 'block';
  name: string;
  body: Segment[];
  mode?: BlockMode;
  filter?: RowFilter;
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

/**
 * Whether any markup a merge may copy from these segments passes `test`: the template's text
 * between fields, tables' and cells' edges, fields kept as they were, pictures and charts. Block
 * markers the compiler consumed (TX's bookmarks around a block) are in none of them.
 */
export function segmentsHold(segments: readonly Segment[], test: (xml: string) => boolean): boolean {
  return segments.some((segment) => {
    if (typeof segment === 'string') return test(segment);
    switch (segment.kind) {
      case 'field':
        return test(segment.field.original);
      case 'image':
      case 'chart':
        return test(segment.xml);
      case 'table':
      case 'cell':
        return test(segment.open) || test(segment.close) || segmentsHold(segment.body, test);
      case 'block':
      case 'paragraph':
        return segmentsHold(segment.body, test);
    }
  });
}

function contains(node: TNode, test: (n: TNode) => boolean): boolean {
  if (test(node)) return true;
  if (node.kind === 'element' || node.kind === 'block') return node.children.some((c) => contains(c, test));
  return false;
}

const isField = (n: TNode) => n.kind === 'field';
const isBlock = (n: TNode) => n.kind === 'block';
const isImage = (n: TNode) =>
  n.kind === 'element' && n.name === 'w:drawing' && find(n, 'a:blip') !== undefined && find(n, 'wp:docPr') !== undefined;
const isChart = (n: TNode) =>
  n.kind === 'element' && n.name === 'w:drawing' && findLocal(n, 'chart') !== undefined && find(n, 'wp:docPr') !== undefined;

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

function emit(node: TNode, b: Builder, ctx: CompileContext): void {
  if (node.kind === 'field') return b.push(ctx.inCell ? { kind: 'field', field: node, inCell: true } : { kind: 'field', field: node });
  if (node.kind === 'element' && node.name === 'w:tc' && !ctx.inCell) ctx = { ...ctx, inCell: true };
  if (node.kind === 'block')
    return b.push({
      kind: 'block',
      name: node.name,
      body: compileNodes(node.children, { ...ctx, inBlock: true }),
      ...(node.mode ? { mode: node.mode } : {}),
      ...(node.filter ? { filter: node.filter } : {}),
    });
  if (node.kind === 'text') return b.text(escapeText(node.text));
  if (node.kind === 'raw') return b.text(node.xml);
  if (node.name === 'w:drawing') {
    const chart = ctx.inBlock ? chartSegment(node) : undefined;
    if (chart) return b.push(chart);
    const image = imageSegment(node, ctx);
    if (image) return b.push(image);
  }
  const dynamic = contains(node, (n) => isField(n) || isBlock(n) || isImage(n) || (ctx.inBlock === true && isChart(n)));
  if (!dynamic) return b.text(serializeT(node));
  if (node.name === 'w:p' && !contains(node, isBlock)) {
    return b.push({ kind: 'paragraph', body: compileChildren(node, ctx), onlyFields: !hasLiteralText(node) });
  }
  // A cell with anything dynamic may lose all its paragraphs (empty blocks, empty lines): it is a segment that keeps one.
  if ((node.name === 'w:tbl' && contains(node, isBlock)) || node.name === 'w:tc') {
    return b.push({
      kind: node.name === 'w:tbl' ? 'table' : 'cell',
      open: openTag(node as XmlElement),
      body: compileNodes(node.children, ctx),
      close: `</${node.name}>`,
    });
  }
  b.text(openTag(node as XmlElement));
  for (const child of node.children) emit(child, b, ctx);
  b.text(`</${node.name}>`);
}

function find(node: TNode, name: string): TElement | undefined {
  if (node.kind !== 'element' && node.kind !== 'block') return undefined;
  for (const child of node.children) {
    if (child.kind === 'element' && child.name === name) return child;
    const deeper = find(child, name);
    if (deeper) return deeper;
  }
  return undefined;
}

/** An element by local name, whatever its prefix (TX writes tx19:, tx20:...). */
function findLocal(node: TNode, local: string): TElement | undefined {
  if (node.kind !== 'element' && node.kind !== 'block') return undefined;
  for (const child of node.children) {
    if (child.kind === 'element' && child.name.slice(child.name.indexOf(':') + 1) === local) return child;
    const deeper = findLocal(child, local);
    if (deeper) return deeper;
  }
  return undefined;
}

function attrLocal(node: TElement, local: string): string | undefined {
  return node.attrs.find(([key]) => key.slice(key.indexOf(':') + 1) === local)?.[1];
}

function attrOf(node: TElement | undefined, name: string): string | undefined {
  return node?.attrs.find(([key]) => key === name)?.[1];
}

/** The field a picture shows: its name, without TX's `_tx_id_N_` prefix. */
const pictureField = (name: string) => name.replace(/^_tx_id_\d+_/, '');

/** A TX barcode picture's relationship to the custom XML describing its symbol (tx:NetControl tx:val="barcode"). */
function barcodeControl(drawing: TElement): string | undefined {
  const control = findLocal(drawing, 'NetControl');
  return control && /barcode/i.test(attrLocal(control, 'val') ?? '') ? attrOf(control, 'r:id') : undefined;
}

/** The data field of a TX barcode picture (for /templates/info), or undefined for any other drawing. */
export function txBarcodeField(drawing: TElement): string | undefined {
  const name = attrOf(find(drawing, 'wp:docPr'), 'name');
  return name && barcodeControl(drawing) ? pictureField(name) : undefined;
}

function imageSegment(drawing: TElement, ctx: CompileContext): ImageSegment | undefined {
  const name = attrOf(find(drawing, 'wp:docPr'), 'name');
  const embed = attrOf(find(drawing, 'a:blip'), 'r:embed');
  const extent = find(drawing, 'wp:extent');
  if (!name || !embed || !extent) return undefined;
  const stripped = pictureField(name);
  const controlRel = barcodeControl(drawing);
  const barcode = controlRel ? ctx.barcode(controlRel) : undefined;
  return {
    kind: 'image',
    names: stripped === name ? [name] : [name, stripped],
    xml: serializeT(drawing),
    embed,
    cx: Number(attrOf(extent, 'cx') ?? 0),
    cy: Number(attrOf(extent, 'cy') ?? 0),
    ...(barcode && controlRel ? { barcode: { ...barcode, relId: controlRel } } : {}),
  };
}

function chartSegment(drawing: TElement): ChartSegment | undefined {
  const name = attrOf(find(drawing, 'wp:docPr'), 'name');
  const relId = attrOf(findLocal(drawing, 'chart'), 'r:id');
  if (!name || !relId) return undefined;
  return { kind: 'chart', name: name.replace(/^_tx_id_\d+_/, ''), relId, xml: serializeT(drawing) };
}

function compileChildren(node: TElement, ctx: CompileContext): Segment[] {
  const b = new Builder();
  b.text(openTag(node as XmlElement));
  for (const child of node.children) emit(child, b, ctx);
  b.text(`</${node.name}>`);
  return b.done();
}

export function compileNodes(nodes: TNode[], ctx: CompileContext = NO_CONTEXT): Segment[] {
  const b = new Builder();
  for (const node of nodes) emit(node, b, ctx);
  return b.done();
}

export type { BlockNode };
