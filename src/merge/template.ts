import { InputError } from '../errors.js';
import { parseBlockName, type RowFilter } from './filter.js';
import { attr, serialize, type XmlElement, type XmlNode, type XmlRaw, type XmlText } from '../ooxml/xml.js';
import { parseInstruction, type FieldInstruction } from './instruction.js';
import { keepPictureRowsTogether } from './rows.js';

/**
 * The template tree: the part's XML with every recognised field replaced by a FieldNode and
 * every merge block by a BlockNode holding the content it repeats.
 */
export interface FieldNode {
  kind: 'field';
  /** The instruction as text and nested fields (IF { MERGEFIELD x } = ...). */
  parts: (string | FieldNode)[];
  /** Run properties the merged value takes (`<w:rPr>...</w:rPr>` or ''). */
  runProps: string;
  /** The field as it stood in the template, for fields left alone. */
  original: string;
  /** The result text the template shows (e.g. «name»). */
  resultText: string;
  /** Parsed once; valid when the instruction has no nested fields. */
  parsed: FieldInstruction | undefined;
  /** The paragraph properties when the field sits directly in a paragraph (HTML values may split it). */
  hostPPr?: string;
}

/** How a block's data shows it besides a list: a section shows once for a true value, an inverted one for a false one (merge/syntax/). */
export type BlockMode = 'section' | 'inverted';

export interface BlockNode {
  kind: 'block';
  name: string;
  children: TNode[];
  /** How its data shows it (merge/syntax/): absent, a list repeats it and anything else leaves it empty. */
  mode?: BlockMode;
  /** Conditions its rows must meet (merge/filter.ts). */
  filter?: RowFilter;
}

export interface TElement {
  kind: 'element';
  name: string;
  attrs: [string, string][];
  children: TNode[];
}

export type TNode = XmlText | XmlRaw | TElement | FieldNode | BlockNode;

const RUN_CONTAINERS = new Set(['w:p', 'w:hyperlink', 'w:smartTag', 'w:customXml', 'w:ins', 'w:moveTo', 'w:sdtContent', 'w:dir', 'w:bdo']);
const BLOCK_CONTAINERS = new Set([
  'w:body',
  'w:tc',
  'w:txbxContent',
  'w:hdr',
  'w:ftr',
  'w:footnote',
  'w:endnote',
  'w:comment',
  'w:sdtContent',
  'w:docPartBody',
]);

const isElement = (n: TNode | XmlNode | undefined, name?: string): n is TElement =>
  n !== undefined && n.kind === 'element' && (name === undefined || n.name === name);

function firstChild(node: TElement, name: string): TElement | undefined {
  return node.children.find((c): c is TElement => isElement(c, name));
}

export function serializeT(node: TNode): string {
  if (node.kind === 'field') return node.original;
  if (node.kind === 'block') return node.children.map(serializeT).join('');
  if (node.kind !== 'element') return serialize(node);
  return serialize(node as XmlElement);
}

function textIn(node: TNode, names: string[]): string {
  if (node.kind === 'text' || node.kind === 'raw') return '';
  if (node.kind === 'field') return node.resultText;
  if (node.kind === 'block') return node.children.map((c) => textIn(c, names)).join('');
  if (names.includes(node.name)) return node.children.map((c) => (c.kind === 'text' ? c.text : '')).join('');
  return node.children.map((c) => textIn(c, names)).join('');
}

function fieldChar(run: TElement): string | undefined {
  const fc = firstChild(run, 'w:fldChar');
  return fc ? attr(fc as XmlElement, 'w:fldCharType') : undefined;
}

function runProps(run: TElement | undefined): string {
  const rPr = run ? firstChild(run, 'w:rPr') : undefined;
  return rPr ? serializeT(rPr) : '';
}

function makeField(parts: (string | FieldNode)[], props: string, original: string, resultText: string): FieldNode {
  const pure = parts.every((p) => typeof p === 'string');
  return { kind: 'field', parts, runProps: props, original, resultText, parsed: pure ? parseInstruction(parts.join('')) : undefined };
}

function simpleField(node: TElement): FieldNode {
  const instr = attr(node as XmlElement, 'w:instr') ?? '';
  const firstRun = node.children.find((c): c is TElement => isElement(c, 'w:r'));
  return makeField([instr], runProps(firstRun), serializeT(node), textIn(node, ['w:t']));
}

interface OpenField {
  parts: (string | FieldNode)[];
  phase: 'instr' | 'result';
  firstRun: TElement;
  resultRun: TElement | undefined;
  result: string;
  start: number;
}

/**
 * Replaces the complex field starting at `children[start]` (a run with fldChar begin) by a
 * FieldNode; returns the index after it, or -1 when the field does not end in this container.
 */
function takeComplexField(children: TNode[], start: number, out: TNode[]): number {
  const stack: OpenField[] = [];
  const kept: TNode[] = []; // bookmarks inside the field stay in the document
  for (let i = start; i < children.length; i++) {
    const node = children[i]!;
    if (!isElement(node)) continue;
    if (node.name === 'w:bookmarkStart' || node.name === 'w:bookmarkEnd') {
      kept.push(node);
      continue;
    }
    const top = stack[stack.length - 1];
    if (node.name === 'w:fldSimple' && top) {
      // A simple field inside a complex one: part of its instruction (IF <MERGEFIELD x> = ...), or of its result.
      const field = simpleField(node);
      if (top.phase === 'instr') top.parts.push(field);
      else top.result += field.resultText;
      continue;
    }
    if (node.name !== 'w:r') continue;
    const kind = fieldChar(node);
    if (kind === 'begin') {
      stack.push({ parts: [], phase: 'instr', firstRun: node, resultRun: undefined, result: '', start: i });
    } else if (kind === 'separate') {
      if (top) top.phase = 'result';
    } else if (kind === 'end') {
      const done = stack.pop();
      if (!done) continue;
      // Bookmarks inside the field follow it (kept), in the value and in a field left as it was alike.
      const original = children
        .slice(done.start, i + 1)
        .filter((n) => !isElement(n, 'w:bookmarkStart') && !isElement(n, 'w:bookmarkEnd'))
        .map(serializeT)
        .join('');
      const field = makeField(done.parts, runProps(done.resultRun ?? done.firstRun), original, done.result);
      const parent = stack[stack.length - 1];
      if (parent) {
        if (parent.phase === 'instr') parent.parts.push(field);
        else parent.result += field.resultText;
      } else {
        out.push(field, ...kept);
        return i + 1;
      }
    } else if (top) {
      const instr = firstChild(node, 'w:instrText');
      if (top.phase === 'instr' && instr) {
        top.parts.push(instr.children.map((c) => (c.kind === 'text' ? c.text : '')).join(''));
      } else if (top.phase === 'result') {
        top.result += textIn(node, ['w:t']);
        if (!top.resultRun && firstChild(node, 'w:t')) top.resultRun = node;
      }
    }
  }
  return -1;
}

/** Finds the fields among a container's children (and below), in place. */
function recogniseFields(node: TElement): void {
  const out: TNode[] = [];
  const children = node.children;
  for (let i = 0; i < children.length;) {
    const child = children[i]!;
    if (isElement(child, 'w:fldSimple')) {
      out.push(simpleField(child));
      i++;
      continue;
    }
    if (isElement(child, 'w:r') && fieldChar(child) === 'begin' && RUN_CONTAINERS.has(node.name)) {
      const next = takeComplexField(children, i, out);
      if (next > 0) {
        i = next;
        continue;
      }
    }
    if (isElement(child)) recogniseFields(child);
    out.push(child);
    i++;
  }
  if (node.name === 'w:p') {
    const pPr = node.children.find((c): c is TElement => isElement(c, 'w:pPr'));
    const hostPPr = pPr ? serializeT(pPr) : '';
    for (const child of out) if (child.kind === 'field') child.hostPPr = hostPPr;
  }
  node.children = out;
}

// ---- blocks ----------------------------------------------------------------------------

interface Marker {
  name: string;
  start: TNode;
  end: TNode;
  mode?: BlockMode;
  filter?: RowFilter;
}

function fieldName(field: FieldNode): string | undefined {
  if (!field.parsed || field.parsed.type !== 'MERGEFIELD') return undefined;
  return field.parsed.args[0];
}

/** Blocks one part may hold, and how deep they may nest: past them a 400, before any recursive walk could overflow. */
export const MAX_BLOCKS = 2000;
export const MAX_BLOCK_DEPTH = 50;

function collectMarkers(root: TElement): Marker[] {
  // Start and end events in document order; each end closes the latest open start of its key.
  const open = new Map<string, { name: string; node: TNode; order: number; mode?: BlockMode; filter?: RowFilter }[]>();
  const markers: (Marker & { order: number; endOrder: number })[] = [];
  let order = 0;
  const startEvent = (key: string, name: string, node: TNode, mode?: BlockMode, filter?: RowFilter) => {
    open.set(key, [...(open.get(key) ?? []), { name, node, order: order++, ...(mode ? { mode } : {}), ...(filter ? { filter } : {}) }]);
  };
  const endEvent = (key: string, node: TNode) => {
    const starts = open.get(key);
    const start = starts?.pop();
    if (start)
      markers.push({
        name: start.name,
        start: start.node,
        end: node,
        order: start.order,
        endOrder: order++,
        ...(start.mode ? { mode: start.mode } : {}),
        ...(start.filter ? { filter: start.filter } : {}),
      });
  };
  const visit = (node: TNode) => {
    if (node.kind === 'field') {
      const name = fieldName(node);
      const m = name ? /^Table(Start|End):(.+)$/i.exec(name) : null;
      if (m) {
        if (m[1]!.toLowerCase() === 'start') startEvent(`region:${m[2]!.toLowerCase()}`, m[2]!, node);
        else endEvent(`region:${m[2]!.toLowerCase()}`, node);
      }
      return;
    }
    if (node.kind === 'block') return node.children.forEach(visit);
    if (node.kind !== 'element') return;
    if (node.name === 'w:bookmarkStart') {
      const name = attr(node as XmlElement, 'w:name') ?? '';
      // txmbif_ and txmbifnot_: sections (merge/syntax/), shown by a true value or by a false one.
      const txmb = /^txmb(if|ifnot)?_(.+)$/i.exec(name);
      const mode = txmb?.[1] ? (txmb[1].toLowerCase() === 'if' ? 'section' : 'inverted') : undefined;
      if (txmb) {
        const { name: blockName, filter } = parseBlockName(txmb[2]!);
        startEvent(`txmb:${attr(node as XmlElement, 'w:id') ?? ''}`, blockName, node, mode, filter);
      }
      const pair = /^block(start|end)_(.+)$/i.exec(name);
      if (pair) {
        if (pair[1]!.toLowerCase() === 'start') startEvent(`pair:${pair[2]!.toLowerCase()}`, pair[2]!, node);
        else endEvent(`pair:${pair[2]!.toLowerCase()}`, node);
      }
    } else if (node.name === 'w:bookmarkEnd') {
      endEvent(`txmb:${attr(node as XmlElement, 'w:id') ?? ''}`, node);
    }
    node.children.forEach(visit);
  };
  visit(root);
  // LibreOffice Writer saves a bookmark over table cells as a start in each cell and one end (with
  // the last start's id): an unended start joins the next ended block of its name.
  for (const [key, starts] of open) {
    if (!key.startsWith('txmb:')) continue;
    for (const start of [...starts]) {
      const later = markers
        .filter((m) => m.name.toLowerCase() === start.name.toLowerCase() && m.order > start.order)
        .sort((a, b) => a.order - b.order)[0];
      if (!later) continue;
      later.start = start.node;
      later.order = start.order;
      starts.splice(starts.indexOf(start), 1);
    }
  }
  for (const [key, starts] of open) {
    const start = starts[0];
    if (!start) continue;
    const [kind, name] = [key.slice(0, key.indexOf(':')), start.name];
    throw new InputError(
      kind === 'txmb'
        ? `The merge block "${name}" (bookmark txmb_${name}) has a start but no end.`
        : kind === 'pair'
          ? `The merge block "${name}" has a blockstart_${name} bookmark but no blockend_${name}.`
          : `The merge region "${name}" has a TableStart:${name} field but no TableEnd:${name}.`,
    );
  }
  checkNesting(markers);
  return markers.sort((a, b) => a.order - b.order);
}

/** Refuses more blocks, or blocks nested deeper, than the limits. */
function checkNesting(markers: { order: number; endOrder: number }[]): void {
  if (markers.length > MAX_BLOCKS) throw new InputError(`The template has more than ${MAX_BLOCKS} merge blocks in one part.`);
  const events = markers.flatMap((m) => [[m.order, 1] as const, [m.endOrder, -1] as const]).sort((a, b) => a[0] - b[0]);
  let depth = 0;
  for (const [, step] of events)
    if ((depth += step) > MAX_BLOCK_DEPTH) throw new InputError(`The merge blocks are nested more than ${MAX_BLOCK_DEPTH} deep.`);
}

function pathTo(root: TNode, target: TNode): TNode[] | null {
  if (root === target) return [root];
  if (root.kind !== 'element' && root.kind !== 'block') return null;
  for (const child of root.children) {
    const path = pathTo(child, target);
    if (path) return [root, ...path];
  }
  return null;
}

function removeNode(root: TNode, target: TNode): void {
  if (root.kind !== 'element' && root.kind !== 'block') return;
  const index = root.children.indexOf(target);
  if (index >= 0) {
    root.children.splice(index, 1);
    return;
  }
  root.children.forEach((c) => removeNode(c, target));
}

const containerOk = (n: TNode) => n.kind === 'block' || (isElement(n) && (BLOCK_CONTAINERS.has(n.name) || n.name === 'w:tbl'));

/** Turns the content between a block's markers into a BlockNode. */
function buildBlock(root: TElement, marker: Marker): void {
  const a = pathTo(root, marker.start);
  const b = pathTo(root, marker.end);
  if (!a || !b) throw new InputError(`The merge block "${marker.name}" could not be located in the document.`);
  let depth = 0;
  while (depth < a.length && depth < b.length && a[depth] === b[depth]) depth++;
  // The deepest common ancestor that holds paragraphs or rows.
  let level = depth - 1;
  while (level > 0 && !containerOk(a[level]!)) level--;
  let container = a[level]! as TElement | BlockNode;
  let first = a[level + 1];
  let last = b[level + 1];
  // A section that starts and ends in one paragraph repeats what lies between, in the paragraph.
  const paragraph = a[depth - 1];
  if (marker.mode && isElement(paragraph, 'w:p') && a.length === depth + 1 && b.length === depth + 1) {
    container = paragraph;
    first = marker.start;
    last = marker.end;
  }
  // A block that starts in a table row and ends after the table covers the rest of its rows.
  if (first && last && first !== last && isElement(first, 'w:tbl') && !isElement(last, 'w:tbl')) {
    const table = first;
    let row = a[level + 2];
    if (row && !isElement(row, 'w:tr')) {
      // The start marker sits between rows: the block begins at the next row.
      row = table.children.slice(table.children.indexOf(row)).find((c) => isElement(c, 'w:tr'));
    }
    if (row && isElement(row, 'w:tr')) {
      container = table;
      first = row;
      const rows = table.children.filter((c) => isElement(c, 'w:tr'));
      last = rows[rows.length - 1];
    }
  }
  if (!first || !last) throw new InputError(`The merge block "${marker.name}" is empty or its markers are misplaced.`);
  const startIndex = container.children.indexOf(first);
  const endIndex = container.children.indexOf(last);
  if (startIndex < 0 || endIndex < startIndex) {
    throw new InputError(`The merge block "${marker.name}" ends before it starts; its start and end markers are crossed.`);
  }
  const block: BlockNode = {
    kind: 'block',
    name: marker.name,
    children: container.children.slice(startIndex, endIndex + 1),
    ...(marker.mode ? { mode: marker.mode } : {}),
    ...(marker.filter ? { filter: marker.filter } : {}),
  };
  container.children.splice(startIndex, endIndex - startIndex + 1, block);
  removeNode(root, marker.start);
  removeNode(root, marker.end);
}

function instructionText(field: FieldNode): string {
  return field.parts
    .map((p) => (typeof p === 'string' ? p : `{${instructionText(p)}}`))
    .join('')
    .trim();
}

/** Refuses field instructions no one can evaluate, naming the field and where it is. */
function checkFields(root: TElement, where: string): void {
  let index = 0;
  const visit = (node: TNode) => {
    if (node.kind === 'field') {
      index++;
      const text = instructionText(node);
      const describe = `field ${index} of ${where}, { ${text.slice(0, 80)} }`;
      const quotes = (text.replace(/\\"/g, '').match(/"/g) ?? []).length;
      if (quotes % 2 === 1) throw new InputError(`The ${describe}, has an unclosed quote.`);
      if (node.parsed?.type === 'MERGEFIELD' && !node.parsed.args[0]) throw new InputError(`The ${describe}, has no field name.`);
      if (node.parsed?.type === 'IF' && node.parsed.args.length < 3)
        throw new InputError(`The ${describe}, needs a comparison like IF x = "y" "then" "else".`);
      node.parts.forEach((part) => typeof part !== 'string' && visit(part));
      return;
    }
    if (node.kind === 'element' || node.kind === 'block') node.children.forEach(visit);
  };
  visit(root);
}

/** Parses fields and blocks of one part's root element into the template tree. */
export function analysePart(root: XmlElement, where = 'the document'): TElement {
  keepPictureRowsTogether(root);
  const tree = root as TElement;
  recogniseFields(tree);
  checkFields(tree, where);
  for (const marker of collectMarkers(tree)) buildBlock(tree, marker);
  return tree;
}
