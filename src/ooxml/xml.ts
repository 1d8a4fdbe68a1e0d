import { SaxesParser } from 'saxes';
import { InputError } from '../errors.js';

/**
 * A small XML tree that keeps everything it does not understand, so a part read and written
 * again is the same document: element names keep their prefixes, attributes their order,
 * comments, CDATA and processing instructions pass through verbatim.
 */
export interface XmlElement {
  kind: 'element';
  name: string;
  attrs: [string, string][];
  children: XmlNode[];
}

export interface XmlText {
  kind: 'text';
  text: string;
}

/** Markup kept as written (comments, CDATA, processing instructions). */
export interface XmlRaw {
  kind: 'raw';
  xml: string;
}

export type XmlNode = XmlElement | XmlText | XmlRaw;

export interface XmlDocument {
  /** The XML declaration and anything before the root, verbatim (what follows the root is left out). */
  prolog: string;
  root: XmlElement;
}

export function element(name: string, attrs: [string, string][] = [], children: XmlNode[] = []): XmlElement {
  return { kind: 'element', name, attrs, children };
}

export function text(value: string): XmlText {
  return { kind: 'text', text: value };
}

/**
 * Deepest element nesting a part may have. Word's own documents stay far below it (tables in
 * tables, content controls); a hostile part thousands deep is refused before any recursive walk.
 */
export const MAX_XML_DEPTH = 1000;

/** Parses a part; DOCTYPEs (and so entity bombs) and absurd nesting are refused. `where` names the part in errors. */
export function parseXml(xml: string, where: string): XmlDocument {
  const parser = new SaxesParser({ position: false });
  let root: XmlElement | undefined;
  const stack: XmlElement[] = [];
  let prolog = '';
  const append = (node: XmlNode) => {
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(node);
    else if (node.kind === 'raw' && !root) prolog += node.xml; // after the root: left out
  };
  parser.on('xmldecl', (decl) => {
    prolog += `<?xml version="${decl.version ?? '1.0'}"${decl.encoding ? ` encoding="${decl.encoding}"` : ''}${decl.standalone ? ` standalone="${decl.standalone}"` : ''}?>`;
  });
  parser.on('doctype', () => {
    throw new InputError(`${where} contains a DOCTYPE, which documents may not have.`);
  });
  parser.on('opentag', (tag) => {
    const node = element(tag.name, Object.entries(tag.attributes as Record<string, string>));
    append(node);
    stack.push(node);
    if (stack.length > MAX_XML_DEPTH)
      throw new InputError(`${where} nests elements more than ${MAX_XML_DEPTH} levels deep, which no real document does.`);
    if (!root) root = node;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', (value) => {
    if (stack.length) append(text(value));
    else if (!root && value.trim() === '') prolog += value;
  });
  parser.on('cdata', (value) => append({ kind: 'raw', xml: `<![CDATA[${value}]]>` }));
  parser.on('comment', (value) => append({ kind: 'raw', xml: `<!--${value}-->` }));
  parser.on('processinginstruction', (pi) => append({ kind: 'raw', xml: `<?${pi.target}${pi.body ? ` ${pi.body}` : ''}?>` }));
  try {
    parser.write(xml).close();
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${where} is not well-formed XML (${(error as Error).message.split('\n')[0]}).`);
  }
  if (!root) throw new InputError(`${where} has no root element.`);
  return { prolog, root };
}

const NEEDS_ESCAPE = /[&<>]/;

export function escapeText(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Character data as written in markup (the five entities and character references) to its text. */
export function unescapeText(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g, (_m, hex?: string, dec?: string, name?: string) =>
    name ? ENTITIES[name]! : String.fromCodePoint(Math.min(hex ? parseInt(hex, 16) : Number(dec), 0x10ffff)),
  );
}

export function escapeAttr(value: string): string {
  return value.replace(
    /[&<>"\r\n\t]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;', '\n': '&#10;', '\t': '&#9;' })[c]!,
  );
}

export function openTag(node: XmlElement, selfClosing = false): string {
  let out = `<${node.name}`;
  for (const [name, value] of node.attrs) out += ` ${name}="${escapeAttr(value)}"`;
  return out + (selfClosing ? '/>' : '>');
}

export function serialize(node: XmlNode): string {
  if (node.kind === 'text') return escapeText(node.text);
  if (node.kind === 'raw') return node.xml;
  if (node.children.length === 0) return openTag(node, true);
  let out = openTag(node);
  for (const child of node.children) out += serialize(child);
  return `${out}</${node.name}>`;
}

export function serializeDocument(doc: XmlDocument): string {
  return doc.prolog + serialize(doc.root);
}

export function attr(node: XmlElement, name: string): string | undefined {
  for (const [key, value] of node.attrs) if (key === name) return value;
  return undefined;
}

export function setAttr(node: XmlElement, name: string, value: string): void {
  const existing = node.attrs.find(([key]) => key === name);
  if (existing) existing[1] = value;
  else node.attrs.push([name, value]);
}

export function childElements(node: XmlElement, name?: string): XmlElement[] {
  return node.children.filter((c): c is XmlElement => c.kind === 'element' && (name === undefined || c.name === name));
}

/** Depth-first walk over elements; return false from `visit` to skip a subtree. */
export function walk(
  node: XmlElement,
  visit: (el: XmlElement, parent: XmlElement | undefined) => boolean | void,
  parent?: XmlElement,
): void {
  if (visit(node, parent) === false) return;
  for (const child of node.children) if (child.kind === 'element') walk(child, visit, node);
}

/** The concatenated text of `w:t` (and `w:instrText` when asked) below a node. */
export function textOf(node: XmlNode, names: readonly string[] = ['w:t']): string {
  if (node.kind !== 'element') return '';
  if (names.includes(node.name)) return node.children.map((c) => (c.kind === 'text' ? c.text : '')).join('');
  return node.children.map((c) => textOf(c, names)).join('');
}
