import { createHash } from 'node:crypto';
import path from 'node:path';
import { OoxmlPackage, relsPartName as relsName, type NewRelationship, type Relationship } from '../ooxml/package.js';
import { endSection, splitBody } from '../ooxml/body.js';
import { attr, childElements, element, escapeAttr, parseXml, serialize, serializeDocument, setAttr, walk, type XmlDocument, type XmlElement } from '../ooxml/xml.js';
import { PPR_ORDER, RPR_ORDER, addMissingProperties } from '../ooxml/properties-order.js';
import { IdRenumberer } from '../ooxml/ids.js';

/** How an appended document joins the one before it. */
export type Divider = 'none' | 'paragraph' | 'section';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';
const HANDLED_APART = ['styles', 'numbering', 'fontTable', 'settings', 'webSettings', 'theme', 'footnotes', 'endnotes', 'comments', 'customXml', 'glossaryDocument', 'people', 'commentsExtended', 'commentsIds'];
const NOTE_PARTS = [
  { type: 'footnotes', element: 'w:footnote', reference: 'w:footnoteReference', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml' },
  { type: 'endnotes', element: 'w:endnote', reference: 'w:endnoteReference', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml' },
  { type: 'comments', element: 'w:comment', reference: 'w:comment(?:RangeStart|RangeEnd|Reference)', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml' },
] as const;


/** Renames the ids in reference attributes of one element kind: `<w:pStyle w:val="X"/>`. */
const STYLE_REFERENCES = ['w:pStyle', 'w:rStyle', 'w:tblStyle'];

function remapValues(xml: string, elements: string, attribute: string, map: Map<string, string>): string {
  if (map.size === 0) return xml;
  const pattern = new RegExp(`(<(?:${elements})\\b[^>]*?\\b${attribute}=")([^"]*)(")`, 'g');
  return xml.replace(pattern, (whole, a: string, value: string, b: string) => (map.has(value) ? `${a}${map.get(value)}${b}` : whole));
}

/**
 * Joins DOCX documents into one: parts and relationships are copied (media stored once by
 * content), styles merged (a clashing definition is renamed so each document keeps its look),
 * each document's lists get their own numbering instances, notes and comments are renumbered,
 * and each section keeps its page setup, headers and footers.
 */
export class DocumentBuilder {
  private readonly pkg: OoxmlPackage;
  private readonly mainPart: string;
  private before: string;
  private readonly after: string;
  private content: string;
  private finalSectPr: string;
  private readonly mediaByHash = new Map<string, string>();
  private styles: XmlDocument | undefined;
  private numbering: XmlDocument | undefined;
  private readonly notes = new Map<string, XmlDocument>();
  private documents = 1;
  private emptyHeaders = new Map<string, string>();

  constructor(first: Uint8Array, what = 'document 1') {
    this.pkg = OoxmlPackage.read(first, what);
    this.mainPart = this.pkg.mainDocument();
    const xml = this.pkg.text(this.mainPart)!;
    const split = splitBody(xml);
    this.before = split.before;
    this.after = split.after;
    this.content = split.content;
    this.finalSectPr = split.sectPr;
    for (const [name, data] of this.pkg.parts) {
      if (name.startsWith('word/media/')) this.mediaByHash.set(createHash('sha256').update(data).digest('hex'), name);
    }
  }

  append(docx: Uint8Array, divider: Divider, what = `document ${this.documents + 1}`): void {
    const source = OoxmlPackage.read(docx, what);
    const main = source.mainDocument();
    const n = ++this.documents;
    const { before: sourceBefore, content: rawContent, sectPr: rawSectPr } = splitBody(source.text(main)!);
    this.before = withNamespacesOf(this.before, sourceBefore);
    let content = rawContent;
    let sectPr = rawSectPr;

    // Relationships used by the body: copy their targets, give them ids of their own here.
    const { map: relMap, entries, copied } = this.copyRelationships(source, main, this.mainPart, n, HANDLED_APART);
    this.pkg.addRelationships(this.mainPart, entries);
    const remapRels = (xml: string) => xml.replace(/\b(r:[A-Za-z]+)="([^"]+)"/g, (whole, name: string, value: string) => (relMap.has(value) ? `${name}="${relMap.get(value)}"` : whole));
    content = remapRels(content);
    sectPr = remapRels(sectPr);

    const { map: styleMap, ownDefault } = this.mergeStyles(source, main, n);
    const ownStyle = (xml: string) => (ownDefault ? withParagraphStyle(xml, ownDefault) : xml);
    content = ownStyle(content);
    const numMap = this.mergeNumbering(source, main);
    const restyle = (xml: string) => {
      let out = remapValues(xml, 'w:pStyle|w:rStyle|w:tblStyle', 'w:val', styleMap);
      out = remapValues(out, 'w:numId', 'w:val', numMap);
      return out;
    };
    content = restyle(content);
    sectPr = restyle(sectPr);
    // The document's headers and footers name its styles and lists too.
    for (const { type, part } of copied) {
      if (!/\/(header|footer)$/.test(type)) continue;
      const xml = this.pkg.text(part)!;
      this.pkg.setText(part, restyle(ownStyle(xml)));
    }
    for (const note of NOTE_PARTS) content = this.mergeNotes(source, main, note, content, { styles: styleMap, lists: numMap });

    this.join(content, sectPr, divider);
  }

  /**
   * Copies the targets of `fromPart`'s relationships and makes entries for them, with ids of
   * their own, relative to `toPart`; the map says which old id became which.
   */
  private copyRelationships(source: OoxmlPackage, fromPart: string, toPart: string, n: number, skip: readonly string[] = []): { map: Map<string, string>; entries: NewRelationship[]; copied: { type: string; part: string }[] } {
    const map = new Map<string, string>();
    const entries: NewRelationship[] = [];
    const copied: { type: string; part: string }[] = [];
    for (const rel of source.relationships(fromPart)) {
      if (skip.includes(rel.type.slice(rel.type.lastIndexOf('/') + 1))) continue;
      const id = `rIdJ${n}_${rel.id}`;
      if (rel.external) {
        entries.push({ id, type: rel.type, target: rel.target, external: true });
        map.set(rel.id, id);
        continue;
      }
      const target = this.copyPart(source, OoxmlPackage.resolve(fromPart, rel.target), n);
      if (!target) continue;
      map.set(rel.id, id);
      copied.push({ type: rel.type, part: target });
      entries.push({ id, type: rel.type, target: path.posix.relative(path.posix.dirname(toPart), target) });
    }
    return { map, entries, copied };
  }

  /** Copies a part (and what it relates to) under a fresh name; media are stored once. */
  private copyPart(source: OoxmlPackage, part: string, n: number): string | undefined {
    const data = source.parts.get(part);
    if (!data) return undefined;
    const contentType = source.contentTypeOf(part);
    if (part.startsWith('word/media/') || contentType?.startsWith('image/')) {
      const hash = createHash('sha256').update(data).digest('hex');
      const existing = this.mediaByHash.get(hash);
      if (existing) return existing;
      const name = this.freshName(`word/media/j${n}_${path.posix.basename(part)}`);
      this.pkg.parts.set(name, data);
      this.mediaByHash.set(hash, name);
      this.addContentType(name, contentType);
      return name;
    }
    const name = this.freshName(`${path.posix.dirname(part)}/j${n}_${path.posix.basename(part)}`);
    this.pkg.parts.set(name, data);
    this.addContentType(name, contentType);
    const rels = source.text(relsName(part));
    if (rels) {
      let copied = rels;
      for (const rel of source.relationships(part)) {
        if (rel.external) continue;
        const target = this.copyPart(source, OoxmlPackage.resolve(part, rel.target), n);
        if (target) copied = copied.replace(`Target="${rel.target}"`, `Target="${escapeAttr(path.posix.relative(path.posix.dirname(name), target))}"`);
      }
      this.pkg.setText(relsName(name), copied);
    }
    return name;
  }

  private freshName(wanted: string): string {
    let name = wanted;
    for (let i = 2; this.pkg.parts.has(name); i++) name = wanted.replace(/(\.[^.]+)?$/, `_${i}$1`);
    return name;
  }

  private addContentType(part: string, contentType: string | undefined): void {
    if (contentType) this.pkg.addContentTypeOverride(part, contentType);
  }

  private relatedPart(pkg: OoxmlPackage, main: string, kind: string): string | undefined {
    const rel = pkg.relationships(main).find((r: Relationship) => r.type === `${REL}${kind}`);
    return rel ? OoxmlPackage.resolve(main, rel.target) : undefined;
  }

  /** Ensures the base document has a part of this kind, returning its name (created empty if needed). */
  private basePart(kind: string, emptyXml: string, contentType: string): string {
    const existing = this.relatedPart(this.pkg, this.mainPart, kind);
    if (existing) return existing;
    const name = `word/${kind}.xml`;
    this.pkg.setText(name, emptyXml);
    this.pkg.addRelationships(this.mainPart, [{ id: `rIdJ${kind}`, type: `${REL}${kind}`, target: `${kind}.xml` }]);
    this.pkg.addContentTypeOverride(name, contentType);
    return name;
  }

  /**
   * Same id and definition: shared; same id, other definition: the newcomer is renamed.
   * `ownDefault`: when the newcomer's docDefaults differ, the style its unstyled paragraphs must name.
   */
  private mergeStyles(source: OoxmlPackage, main: string, n: number): { map: Map<string, string>; ownDefault: string | undefined } {
    const map = new Map<string, string>();
    const sourcePart = this.relatedPart(source, main, 'styles');
    if (!sourcePart || !source.has(sourcePart)) return { map, ownDefault: undefined };
    const basePart = this.basePart('styles', source.text(sourcePart)!, 'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml');
    if (source.text(sourcePart) === this.pkg.text(basePart) && !this.styles) return { map, ownDefault: undefined };
    this.styles ??= parseXml(this.pkg.text(basePart)!, basePart);
    const known = new Map(childElements(this.styles.root, 'w:style').map((s) => [attr(s, 'w:styleId') ?? '', s]));
    const sourceRoot = parseXml(source.text(sourcePart)!, sourcePart).root;
    const incoming = childElements(sourceRoot, 'w:style');
    const ownDefault = carryDocDefaults(this.styles.root, sourceRoot);
    const added: XmlElement[] = [];
    for (const style of incoming) {
      const id = attr(style, 'w:styleId') ?? '';
      const mine = known.get(id);
      if (mine && serialize(mine) === serialize(style)) continue;
      if (mine) {
        let fresh = `${id}J${n}`;
        for (let i = 2; known.has(fresh); i++) fresh = `${id}J${n}_${i}`;
        map.set(id, fresh);
        setAttr(style, 'w:styleId', fresh);
        style.attrs = style.attrs.filter(([key]) => key !== 'w:default'); // one default per type: the first document's
        const name = childElements(style, 'w:name')[0];
        if (name) setAttr(name, 'w:val', `${attr(name, 'w:val') ?? id} (${n})`);
        known.set(fresh, style);
      } else {
        known.set(id, style);
      }
      added.push(style);
    }
    for (const style of added) {
      for (const child of childElements(style)) {
        if (['w:basedOn', 'w:next', 'w:link'].includes(child.name)) {
          const value = attr(child, 'w:val');
          if (value && map.has(value)) setAttr(child, 'w:val', map.get(value)!);
        }
      }
      this.styles.root.children.push(style);
    }
    this.pkg.setText(basePart, serializeDocument(this.styles));
    return { map, ownDefault };
  }

  /** Each document's lists become numbering instances of their own, so they start at 1 again. */
  private mergeNumbering(source: OoxmlPackage, main: string): Map<string, string> {
    const map = new Map<string, string>();
    const sourcePart = this.relatedPart(source, main, 'numbering');
    if (!sourcePart || !source.has(sourcePart)) return map;
    const basePart = this.basePart('numbering', '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"></w:numbering>',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml');
    this.numbering ??= parseXml(this.pkg.text(basePart)!, basePart);
    const base = this.numbering.root;
    const maxOf = (name: string, key: string) => Math.max(0, ...childElements(base, name).map((e) => Number(attr(e, key) ?? 0)));
    let nextAbstract = maxOf('w:abstractNum', 'w:abstractNumId') + 1;
    let nextNum = maxOf('w:num', 'w:numId') + 1;
    const incoming = parseXml(source.text(sourcePart)!, sourcePart).root;
    adoptNamespaces(base, incoming);
    const abstractMap = new Map<string, string>();
    const abstracts = childElements(incoming, 'w:abstractNum').map((a) => {
      const fresh = String(nextAbstract++);
      abstractMap.set(attr(a, 'w:abstractNumId') ?? '', fresh);
      setAttr(a, 'w:abstractNumId', fresh);
      // A w:nsid shared with another list would join them; each document keeps its own.
      for (const nsid of childElements(a, 'w:nsid')) setAttr(nsid, 'w:val', createHash('md5').update(`${fresh}:${attr(nsid, 'w:val')}`).digest('hex').slice(0, 8).toUpperCase());
      return a;
    });
    const nums = childElements(incoming, 'w:num').map((num) => {
      const fresh = String(nextNum++);
      map.set(attr(num, 'w:numId') ?? '', fresh);
      setAttr(num, 'w:numId', fresh);
      for (const ref of childElements(num, 'w:abstractNumId')) setAttr(ref, 'w:val', abstractMap.get(attr(ref, 'w:val') ?? '') ?? attr(ref, 'w:val') ?? '0');
      return num;
    });
    const firstNum = base.children.findIndex((c) => c.kind === 'element' && c.name === 'w:num');
    base.children.splice(firstNum < 0 ? base.children.length : firstNum, 0, ...abstracts);
    base.children.push(...nums);
    this.pkg.setText(basePart, serializeDocument(this.numbering));
    return map;
  }

  /** Footnotes, endnotes and comments get the next free ids here; references follow. */
  private mergeNotes(source: OoxmlPackage, main: string, note: (typeof NOTE_PARTS)[number], content: string, renamed: { styles: Map<string, string>; lists: Map<string, string> }): string {
    const sourcePart = this.relatedPart(source, main, note.type);
    if (!sourcePart || !source.has(sourcePart)) return content;
    const root = note.type === 'comments' ? 'w:comments' : `w:${note.type}`;
    const basePart = this.basePart(note.type, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${root} xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"></${root}>`, note.contentType);
    const base = this.notes.get(basePart) ?? parseXml(this.pkg.text(basePart)!, basePart);
    this.notes.set(basePart, base);
    let next = Math.max(0, ...childElements(base.root, note.element).map((e) => Number(attr(e, 'w:id') ?? 0))) + 1;
    // Images and links inside notes relate from the notes part: they move with the notes.
    const { map: relMap, entries } = this.copyRelationships(source, sourcePart, basePart, this.documents);
    this.pkg.addRelationships(basePart, entries);
    const map = new Map<string, string>();
    const incoming = parseXml(source.text(sourcePart)!, sourcePart).root;
    adoptNamespaces(base.root, incoming);
    for (const entry of childElements(incoming, note.element)) {
      const type = attr(entry, 'w:type');
      const id = attr(entry, 'w:id') ?? '';
      if (type === 'separator' || type === 'continuationSeparator' || type === 'continuationNotice') {
        if (!childElements(base.root, note.element).some((e) => attr(e, 'w:type') === type)) base.root.children.unshift(entry);
        continue;
      }
      const fresh = String(next++);
      map.set(id, fresh);
      setAttr(entry, 'w:id', fresh);
      walk(entry, (el) => {
        for (const pair of el.attrs) if (pair[0].startsWith('r:') && relMap.has(pair[1])) pair[1] = relMap.get(pair[1])!;
        const names = STYLE_REFERENCES.includes(el.name) ? renamed.styles : el.name === 'w:numId' ? renamed.lists : undefined;
        const value = names && attr(el, 'w:val');
        if (value && names.has(value)) setAttr(el, 'w:val', names.get(value)!);
      });
      base.root.children.push(entry);
    }
    this.pkg.setText(basePart, serializeDocument(base));
    return remapValues(content, note.reference, 'w:id', map);
  }

  /** An empty header or footer part, so a new section does not show the one before it. */
  private emptyHeaderFooter(kind: 'header' | 'footer'): string {
    const known = this.emptyHeaders.get(kind);
    if (known) return known;
    const tag = kind === 'header' ? 'w:hdr' : 'w:ftr';
    const name = this.freshName(`word/${kind}-empty.xml`);
    this.pkg.setText(name, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${tag} xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:p/></${tag}>`);
    this.pkg.addContentTypeOverride(name, `application/vnd.openxmlformats-officedocument.wordprocessingml.${kind}+xml`);
    const id = `rIdJEmpty${kind}`;
    this.pkg.addRelationships(this.mainPart, [{ id, type: `${REL}${kind}`, target: path.posix.basename(name) }]);
    this.emptyHeaders.set(kind, id);
    return id;
  }

  /** The first section of an appended document starts on a new page and shows only its own headers. */
  private firstSectionOwnPage(content: string, sectPr: string): { content: string; sectPr: string } {
    const fix = (s: string) => {
      let out = s.replace(/<w:type\b[^>]*\/>/, '');
      for (const kind of ['header', 'footer'] as const) {
        if (new RegExp(`<w:${kind}Reference\\b[^>]*w:type="default"`).test(out)) continue;
        const id = this.emptyHeaderFooter(kind);
        out = out.replace(/^<w:sectPr\b[^>]*>/, (open) => `${open}<w:${kind}Reference w:type="default" r:id="${id}"/>`);
      }
      // Header and footer references come first in sectPr; the section type right after them.
      return out.replace(/((?:<w:(?:header|footer)Reference\b[^>]*\/>)+)/, '$1<w:type w:val="nextPage"/>');
    };
    const inner = content.indexOf('<w:sectPr');
    if (inner >= 0) {
      const end = content.indexOf('</w:sectPr>', inner) + '</w:sectPr>'.length;
      return { content: content.slice(0, inner) + fix(content.slice(inner, end)) + content.slice(end), sectPr };
    }
    return { content, sectPr: sectPr ? fix(sectPr) : sectPr };
  }

  private join(content: string, sectPr: string, divider: Divider): void {
    if (divider === 'section') {
      const fixed = this.firstSectionOwnPage(content, sectPr || this.finalSectPr);
      this.content = endSection(this.content, this.finalSectPr) + fixed.content;
      this.finalSectPr = fixed.sectPr;
    } else if (divider === 'none' && this.content.trimEnd().endsWith('</w:p>') && /^\s*<w:p[\s>]/.test(content)) {
      // The first paragraph's runs continue the last paragraph.
      const head = this.content.trimEnd().slice(0, -'</w:p>'.length);
      const first = /^\s*<w:p\b[^>]*>(<w:pPr>[\s\S]*?<\/w:pPr>)?/.exec(content)!;
      this.content = head + content.slice(first[0].length);
    } else {
      this.content += content;
    }
  }

  toBuffer(): Buffer {
    const ids = new IdRenumberer();
    this.pkg.setText(this.mainPart, ids.part(this.before + this.content + this.finalSectPr + this.after));
    return this.pkg.toBuffer();
  }
}

const ROOT_TAG = /<w:document\b[^>]*>/;
const XMLNS = /\s(xmlns(?::[\w.-]+)?)="([^"]*)"/g;

/** The main document's root tag, with the namespaces (and ignorable prefixes) an appended root adds. */
function withNamespacesOf(before: string, sourceBefore: string): string {
  const target = ROOT_TAG.exec(before)?.[0];
  const from = ROOT_TAG.exec(sourceBefore)?.[0];
  if (!target || !from) return before;
  const declared = new Set([...target.matchAll(XMLNS)].map((m) => m[1]));
  const added = [...from.matchAll(XMLNS)].filter((m) => !declared.has(m[1])).map((m) => ` ${m[1]}="${m[2]}"`).join('');
  let tag = added ? target.replace(/\s*(\/?)>$/, `${added}$1>`) : target;
  const ignorable = (t: string) => /\smc:Ignorable="([^"]*)"/.exec(t)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  const wanted = ignorable(from).filter((prefix) => !ignorable(tag).includes(prefix));
  if (wanted.length > 0 && /\sxmlns:mc=/.test(tag)) {
    tag = /\smc:Ignorable="/.test(tag)
      ? tag.replace(/(\smc:Ignorable=")([^"]*)"/, (_all, start: string, list: string) => `${start}${[list, ...wanted].filter(Boolean).join(' ')}"`)
      : tag.replace(/\s*>$/, ` mc:Ignorable="${wanted.join(' ')}">`);
  }
  return before.replace(target, tag);
}

const SPEC_RUN_DEFAULTS = ['<w:sz w:val="20"/>', '<w:szCs w:val="20"/>'];

function defaultsOf(root: XmlElement, kind: 'rPr' | 'pPr'): XmlElement[] {
  const holder = childElements(root, 'w:docDefaults')[0];
  const wrapper = holder && childElements(holder, kind === 'rPr' ? 'w:rPrDefault' : 'w:pPrDefault')[0];
  const props = wrapper && childElements(wrapper, `w:${kind}`)[0];
  return props ? childElements(props) : [];
}

/**
 * Appended paragraphs would take the first document's docDefaults. When the appended document's
 * differ, they move into its root paragraph styles (so those are renamed apart), with the
 * schema's defaults for what only the first document sets; returns the appended document's
 * default paragraph style, which its unstyled paragraphs must then name.
 */
function carryDocDefaults(base: XmlElement, source: XmlElement): string | undefined {
  const sourceDefaults = childElements(source, 'w:docDefaults')[0];
  const baseDefaults = childElements(base, 'w:docDefaults')[0];
  if ((sourceDefaults ? serialize(sourceDefaults) : '') === (baseDefaults ? serialize(baseDefaults) : '')) return undefined;
  const paragraphStyles = childElements(source, 'w:style').filter((s) => attr(s, 'w:type') === 'paragraph');
  const fallback = parseXml(`<w:rPr xmlns:w="${W_NS}">${SPEC_RUN_DEFAULTS.join('')}</w:rPr>`, 'defaults').root;
  const runDefaults = [...defaultsOf(source, 'rPr'), ...childElements(fallback)];
  const paragraphDefaults = defaultsOf(source, 'pPr');
  for (const style of paragraphStyles.filter((s) => childElements(s, 'w:basedOn').length === 0)) {
    const ensure = (name: 'w:pPr' | 'w:rPr') => {
      let props = childElements(style, name)[0];
      if (!props) {
        props = element(name);
        style.children.push(props);
      }
      return props;
    };
    if (paragraphDefaults.length > 0) addMissingProperties(ensure('w:pPr'), paragraphDefaults.map(cloneElement), PPR_ORDER);
    addMissingProperties(ensure('w:rPr'), runDefaults.map(cloneElement), RPR_ORDER);
    // CT_Style: pPr, rPr and tblPr come after the names and flags.
    style.children = [...style.children.filter((c) => !(c.kind === 'element' && STYLE_TAIL.includes(c.name))),
      ...STYLE_TAIL.flatMap((name) => childElements(style, name))];
  }
  const byDefault = paragraphStyles.find((s) => attr(s, 'w:default') === '1' || attr(s, 'w:default') === 'true');
  return byDefault ? attr(byDefault, 'w:styleId') : undefined;
}

const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const STYLE_TAIL = ['w:pPr', 'w:rPr', 'w:tblPr', 'w:trPr', 'w:tcPr', 'w:tblStylePr'];

function cloneElement(node: XmlElement): XmlElement {
  return { kind: 'element', name: node.name, attrs: node.attrs.map(([k, v]) => [k, v] as [string, string]), children: node.children.map((c) => (c.kind === 'element' ? cloneElement(c) : { ...c })) };
}

/** Paragraphs without a style of their own name `styleId`. */
function withParagraphStyle(content: string, styleId: string): string {
  const pStyle = `<w:pStyle w:val="${escapeAttr(styleId)}"/>`;
  return content
    .replace(/<w:pPr\/>/g, '<w:pPr></w:pPr>')
    .replace(/<w:p(\s[^>]*)?\/>/g, (_all, attrs: string | undefined) => `<w:p${attrs ?? ''}><w:pPr>${pStyle}</w:pPr></w:p>`)
    .replace(/(<w:p(?:\s[^>]*)?>)(<w:pPr>)?/g, (whole, open: string, pPr: string | undefined, offset: number, all: string) => {
      if (pPr) return all.startsWith('<w:pStyle', offset + whole.length) ? whole : `${open}<w:pPr>${pStyle}`;
      return `${open}<w:pPr>${pStyle}</w:pPr>`;
    });
}

/** Moved elements keep their prefixes: the receiving root declares what the giving root declared. */
function adoptNamespaces(target: XmlElement, from: XmlElement): void {
  for (const [name, value] of from.attrs) {
    if ((name.startsWith('xmlns:') || name === 'xmlns') && attr(target, name) === undefined) setAttr(target, name, value);
  }
}

