import { OoxmlPackage } from '../ooxml/package.js';
import { parseXml, serializeDocument, type XmlElement, type XmlNode } from '../ooxml/xml.js';
import { isLinkingField } from './fields.js';
import { inertPicture, pictureKind } from './pictures.js';

const WORD_NAMESPACES = new Set([
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  'http://purl.oclc.org/ooxml/wordprocessingml/main',
]);
const RELATIONSHIP_NAMESPACES = new Set([
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  'http://purl.oclc.org/ooxml/officeDocument/relationships',
]);

/** Word settings that point at another file: the attached template and a mail-merge data source. */
const LINKING_SETTINGS = new Set(['attachedTemplate', 'mailMerge']);

/** Only these may point outside the package: a link is followed when a reader clicks it, not before. */
const EXTERNAL_TYPES_KEPT = new Set(['hyperlink']);

/**
 * Cheap tests before a part is parsed. Element and attribute names cannot be escaped in XML;
 * field text can (entities, CDATA), so a part with fields is parsed when it has either.
 */
const SUSPECT_NAMES = /attachedTemplate|mailMerge|\b(?:src|href)\s*=/;
const FIELDS = /instrText|fldSimple/;
const LINKING_WORDS = /&#|CDATA|INCLUDE|IMPORT|LINK|DDE|DATABASE|[\s">]RD[\s\\"<]/i;

function suspect(xml: string): boolean {
  return SUSPECT_NAMES.test(xml) || (FIELDS.test(xml) && LINKING_WORDS.test(xml));
}

export interface InertOptions {
  /** Nested documents (altChunk, embedded packages) are made inert down to this depth. */
  depth: number;
  nested(bytes: Buffer, depth: number): Buffer;
}

/**
 * A DOCX (or XLSX) package made inert: no relationship leaves the package except hyperlinks,
 * fields that include or link files lose their instruction (their last result stays), the
 * attached template and mail-merge data source are dropped, `src`/`href` attributes (VML
 * image data, SVG) are removed, and documents nested in the package are made inert too.
 * A package that needs none of this is returned as it came, byte for byte.
 */
export function inertPackage(input: Buffer, options: InertOptions): Buffer {
  return inertPackageRead(input, options).bytes;
}

/** As inertPackage, with the package read for it: what its bytes hold, for a caller that reads on. */
export function inertPackageRead(input: Buffer, options: InertOptions): { bytes: Buffer; pkg: OoxmlPackage } {
  const pkg = OoxmlPackage.read(input, 'The document');
  let changed = false;
  /** Relationship ids dropped, by the part whose relationships they were. */
  const dropped = new Map<string, Set<string>>();
  for (const name of [...pkg.parts.keys()]) {
    const lower = name.toLowerCase();
    let next: string | Buffer | undefined;
    const bytes = pkg.parts.get(name)!;
    if (lower.endsWith('.rels')) {
      const kept = inertRelationships(pkg.text(name)!, name);
      if (kept) {
        next = kept.xml;
        dropped.set(sourceOfRels(name), kept.dropped);
      }
    } else if (isMedia(lower) || ['inert', 'gzip'].includes(pictureKind(bytes)) || hasSvgRoot(bytes)) {
      // Judged by the bytes: the office goes by the content, not the part's name or type.
      const made = inertPicture(bytes);
      if (made !== bytes) next = Buffer.from(made);
    } else if (lower.endsWith('.xml') || lower.endsWith('.vml')) {
      const xml = pkg.text(name)!;
      if (suspect(xml)) next = inertXmlPart(xml, name);
    } else {
      const part = Buffer.from(bytes);
      const made = options.depth > 0 ? options.nested(part, options.depth - 1) : part;
      if (made !== part) next = made;
    }
    if (next !== undefined) {
      pkg.parts.set(name, typeof next === 'string' ? Buffer.from(next, 'utf8') : next);
      changed = true;
    }
  }
  // What referred to a dropped relationship refers to nothing (a picture shows empty), as Word requires.
  for (const [part, ids] of dropped) {
    const xml = pkg.text(part);
    const cleaned = xml === undefined ? undefined : withoutReferences(xml, part, ids);
    if (cleaned !== undefined) pkg.parts.set(part, Buffer.from(cleaned, 'utf8'));
  }
  return { bytes: changed ? pkg.toBuffer() : input, pkg };
}

/** The part a relationships part belongs to: word/_rels/document.xml.rels is word/document.xml's. */
function sourceOfRels(rels: string): string {
  const match = /^(.*?)_rels\/([^/]*)\.rels$/.exec(rels);
  return match ? `${match[1]}${match[2]}` : rels;
}

/** The part without attributes (r:link, r:id, r:embed, ...) naming the given relationship ids; undefined when it had none. */
function withoutReferences(xml: string, where: string, ids: Set<string>): string | undefined {
  if (![...ids].some((id) => xml.includes(id))) return undefined;
  const doc = parseXml(xml, where);
  let changed = false;
  const stack: { node: XmlElement; scope: Map<string, string> }[] = [{ node: doc.root, scope: new Map() }];
  while (stack.length > 0) {
    const { node, scope: parentScope } = stack.pop()!;
    const scope = declarations(node, parentScope);
    const before = node.attrs.length;
    node.attrs = node.attrs.filter(
      ([key, value]) => !(key.includes(':') && RELATIONSHIP_NAMESPACES.has(scope.get(prefixOf(key)) ?? '') && ids.has(value.trim())),
    );
    if (node.attrs.length !== before) changed = true;
    for (const child of node.children) if (child.kind === 'element') stack.push({ node: child, scope });
  }
  return changed ? serializeDocument(doc) : undefined;
}

/** Parts that hold pictures (and media) by their place in the package. */
function isMedia(lowerName: string): boolean {
  return /^(?:word|xl|ppt)\/media\//.test(lowerName) || /\.(?:svgz?|png|jpe?g|gif|bmp|tiff?|emf|wmf|emz|wmz|wdp|webp|ico)$/.test(lowerName);
}

/** An XML part (by its bytes) whose root element is `svg`, whatever the part is called. */
function hasSvgRoot(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 4096))
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  return /^\s*(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<(?:[\w.-]+:)?svg[\s>/]/i.test(head);
}

/** Drops relationships that reach outside the package (other than hyperlinks), with their ids; undefined when none do. */
function inertRelationships(xml: string, where: string): { xml: string; dropped: Set<string> } | undefined {
  const doc = parseXml(xml, where);
  const dropped = new Set<string>();
  doc.root.children = doc.root.children.filter((node) => {
    if (node.kind !== 'element' || localName(node.name) !== 'Relationship') return true;
    const type = (attribute(node, 'Type') ?? '').split('/').pop() ?? '';
    if (EXTERNAL_TYPES_KEPT.has(type)) return true;
    const target = (attribute(node, 'Target') ?? '').trim();
    const external = (attribute(node, 'TargetMode') ?? '').trim().toLowerCase() === 'external';
    const keep = !external && !/^([a-z][a-z0-9+.-]*:|\/\/|\\\\)/i.test(target);
    if (!keep) dropped.add((attribute(node, 'Id') ?? '').trim());
    return keep;
  });
  return dropped.size === 0 ? undefined : { xml: serializeDocument(doc), dropped };
}

interface OpenField {
  instruction: string;
  nodes: XmlElement[];
  inInstruction: boolean;
}

/** One XML part: linking fields, settings and URL attributes removed; undefined when there are none. */
function inertXmlPart(xml: string, where: string): string | undefined {
  const doc = parseXml(xml, where);
  let changed = false;
  const fields: OpenField[] = [];
  const closeInstruction = (field: OpenField) => {
    field.inInstruction = false;
    if (isLinkingField(field.instruction)) {
      for (const node of field.nodes) node.children = [];
      changed = true;
    }
  };
  // Iterative: a hostile part may nest deeper than the call stack.
  const stack: { node: XmlElement; scope: Map<string, string> }[] = [{ node: doc.root, scope: new Map() }];
  while (stack.length > 0) {
    const { node, scope: parentScope } = stack.pop()!;
    const scope = declarations(node, parentScope);
    const ns = scope.get(prefixOf(node.name)) ?? '';
    const local = localName(node.name);
    const word = WORD_NAMESPACES.has(ns);
    if (word && local === 'fldChar') {
      const kind = attributeNs(node, scope, 'fldCharType', WORD_NAMESPACES);
      if (kind === 'begin') fields.push({ instruction: '', nodes: [], inInstruction: true });
      else if (kind === 'separate' && fields.length) closeInstruction(fields[fields.length - 1]!);
      else if (kind === 'end' && fields.length) {
        const field = fields.pop()!;
        if (field.inInstruction) closeInstruction(field);
      }
    } else if (word && local === 'instrText') {
      const field = fields[fields.length - 1];
      if (field?.inInstruction) {
        field.instruction += textContent(node);
        field.nodes.push(node);
      }
    } else if (word && local === 'fldSimple') {
      const instruction = attributeNs(node, scope, 'instr', WORD_NAMESPACES) ?? '';
      if (isLinkingField(instruction)) {
        node.attrs = node.attrs.filter(([name]) => localName(name) !== 'instr');
        node.attrs.push([qualified(node.name, 'instr'), ' ']);
        changed = true;
      }
    }
    const kept = node.attrs.filter(([name]) => {
      const attrLocal = localName(name);
      if (attrLocal !== 'src' && attrLocal !== 'href') return true;
      const attrNs = name.includes(':') ? (scope.get(prefixOf(name)) ?? '') : '';
      return RELATIONSHIP_NAMESPACES.has(attrNs);
    });
    if (kept.length !== node.attrs.length) {
      node.attrs = kept;
      changed = true;
    }
    const children: XmlNode[] = [];
    for (const child of node.children) {
      if (
        child.kind === 'element' &&
        WORD_NAMESPACES.has(scope.get(prefixOf(child.name)) ?? declared(child, prefixOf(child.name)) ?? '') &&
        LINKING_SETTINGS.has(localName(child.name))
      ) {
        changed = true;
        continue;
      }
      children.push(child);
    }
    node.children = children;
    // Document order: children pushed in reverse so the first is visited first.
    for (let k = children.length - 1; k >= 0; k--) {
      const child = children[k]!;
      if (child.kind === 'element') stack.push({ node: child, scope });
    }
  }
  return changed ? serializeDocument(doc) : undefined;
}

function declarations(node: XmlElement, parent: Map<string, string>): Map<string, string> {
  let scope = parent;
  for (const [name, value] of node.attrs) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) {
      if (scope === parent) scope = new Map(parent);
      scope.set(name === 'xmlns' ? '' : name.slice(6), value);
    }
  }
  return scope;
}

function declared(node: XmlElement, prefix: string): string | undefined {
  return attribute(node, prefix ? `xmlns:${prefix}` : 'xmlns');
}

function prefixOf(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? '' : name.slice(0, colon);
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

function qualified(elementName: string, local: string): string {
  const prefix = prefixOf(elementName);
  return prefix ? `${prefix}:${local}` : local;
}

function attribute(node: XmlElement, name: string): string | undefined {
  for (const [key, value] of node.attrs) if (key === name) return value;
  return undefined;
}

/** An attribute in one of the namespaces (or unqualified), whatever its prefix. */
function attributeNs(node: XmlElement, scope: Map<string, string>, local: string, namespaces: Set<string>): string | undefined {
  for (const [key, value] of node.attrs) {
    if (localName(key) !== local) continue;
    if (!key.includes(':') || namespaces.has(scope.get(prefixOf(key)) ?? '')) return value;
  }
  return undefined;
}

function textContent(node: XmlElement): string {
  let text = '';
  const stack: XmlNode[] = [node];
  while (stack.length) {
    const current = stack.pop()!;
    if (current.kind === 'text') text += current.text;
    else if (current.kind === 'raw') text += /^<!\[CDATA\[([\s\S]*)\]\]>$/.exec(current.xml)?.[1] ?? '';
    else for (let k = current.children.length - 1; k >= 0; k--) stack.push(current.children[k]!);
  }
  return text;
}
