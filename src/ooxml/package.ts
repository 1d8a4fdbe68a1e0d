import { InputError } from '../errors.js';
import { attr, childElements, escapeAttr, parseXml } from './xml.js';
import { DEFAULT_ZIP_LIMITS, readZip, writeZip, ZipError, type ZipLimits } from './zip.js';

/** `<!DOCTYPE` as UTF-8 and UTF-16 bytes: entity bombs are refused in every part, not only those we parse. */
const DOCTYPE = [
  Buffer.from('<!DOCTYPE', 'utf8'),
  Buffer.from('<!DOCTYPE', 'utf16le'),
  Buffer.from('\0<\0!\0D\0O\0C\0T\0Y\0P\0E', 'latin1'),
];
const ENTITY = [Buffer.from('<!ENTITY', 'utf8'), Buffer.from('<!ENTITY', 'utf16le'), Buffer.from('\0<\0!\0E\0N\0T\0I\0T\0Y', 'latin1')];
/** Web pages a document carries (altChunk): `<!DOCTYPE html>` is how they start; entity declarations are still refused. */
const WEB_PAGE = /\.(?:html?|mht|mhtml)$/i;

/** Names of parts that readers parse as markup, whatever their declared type. */
const MARKUP_NAME = /\.(?:xml|rels|vml|svg|html?|mht|mhtml|xsd|xsl|xslt)$/i;
/** Content types of parts no reader parses as XML. */
const BINARY_TYPE = new RegExp(
  [
    String.raw`^(?:image/(?!svg)|audio/|video/|font/|application/(?:x-font|octet-stream|msword|pdf|x-emf|x-wmf|vnd\.ms-excel`,
    String.raw`|vnd\.openxmlformats-officedocument\.(?:wordprocessingml\.printerSettings|oleObject|obfuscatedFont|spreadsheetml\.sheet$|presentationml\.presentation$|wordprocessingml\.document$)`,
    String.raw`|vnd\.ms-office\.(?:activeX$|vbaProject$)))`,
  ].join(''),
  'i',
);

/** The relationships part of a part: `word/document.xml` -> `word/_rels/document.xml.rels`. */
export function relsPartName(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

export const TEXT_PART_KINDS = ['header', 'footer', 'footnotes', 'endnotes'] as const;

export interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

/** A relationship to add: external targets are URLs, internal ones are relative to the source part. */
export interface NewRelationship {
  id: string;
  type: string;
  target: string;
  external?: boolean;
}

const CONTENT_TYPES = '[Content_Types].xml';

interface ContentTypes {
  defaults: Map<string, string>;
  overrides: Map<string, string>;
}

/** Parts' bytes already read as text. */
const decoded = new WeakMap<Uint8Array, string>();
/** Relationships parts' bytes already parsed: a merge bound for the office asks for the same few several times each. */
const parsedRels = new WeakMap<Uint8Array, readonly Readonly<Relationship>[]>();

/**
 * An OPC package (DOCX): its parts by name, read and written as a ZIP. It is the one owner of
 * the package's bookkeeping: content types and added relationships are kept as data and
 * written into `[Content_Types].xml` and the `.rels` parts when the package is read back or
 * written out.
 */
export class OoxmlPackage {
  private types: ContentTypes | undefined;
  private typesChanged = false;
  private readonly pendingRels = new Map<string, NewRelationship[]>();

  private constructor(readonly parts: Map<string, Uint8Array>) {}

  static read(bytes: Uint8Array, what = 'The document', limits: ZipLimits = DEFAULT_ZIP_LIMITS): OoxmlPackage {
    let parts: Map<string, Uint8Array>;
    try {
      parts = readZip(bytes, limits);
    } catch (error) {
      if (!(error instanceof ZipError)) throw error;
      throw new InputError(
        error.kind === 'limit' ? `${what} is refused: ${error.message}.` : `${what} is a damaged ZIP package: ${error.message}.`,
      );
    }
    const pkg = new OoxmlPackage(parts);
    // The content types first: they say which other parts are markup.
    for (const name of [CONTENT_TYPES, ...[...parts.keys()].filter((n) => n !== CONTENT_TYPES)]) {
      const data = parts.get(name);
      if (!data || pkg.isBinaryPart(name)) continue;
      const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      if ((WEB_PAGE.test(name) ? ENTITY : DOCTYPE).some((marker) => bytes.includes(marker))) {
        throw new InputError(
          `${what} is refused: its part ${name} contains a DOCTYPE (entity declarations), which Office documents never have.`,
        );
      }
    }
    return pkg;
  }

  /**
   * A part no reader parses as markup: a picture, media, printer settings, an embedded object or
   * font, by its content type, under a name that is not a markup one. Their bytes may hold a
   * DOCTYPE harmlessly (Photoshop's JPEG metadata and Mac Word's printer settings carry an Apple
   * plist); markup parts may not.
   */
  private isBinaryPart(name: string): boolean {
    if (name === CONTENT_TYPES || MARKUP_NAME.test(name)) return false;
    const type = this.contentTypeOf(name);
    return type !== undefined && BINARY_TYPE.test(type);
  }

  has(name: string): boolean {
    return this.parts.has(name);
  }

  text(name: string): string | undefined {
    if (name === CONTENT_TYPES || name.endsWith('.rels')) this.flush();
    const data = this.parts.get(name);
    if (!data) return undefined;
    // Read in place (a long table's body is megabytes, read by several checks in turn), and once
    // per bytes: a part given new bytes is read anew.
    let text = decoded.get(data);
    if (text === undefined) decoded.set(data, (text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')));
    return text;
  }

  setText(name: string, value: string): void {
    this.setBytes(name, Buffer.from(value, 'utf8'));
  }

  /** A part's new bytes, kept as given: the same bytes again are deflated once (ooxml/zip.ts). */
  setBytes(name: string, bytes: Buffer): void {
    if (name === CONTENT_TYPES) {
      this.types = undefined;
      this.typesChanged = false;
    }
    this.parts.set(name, bytes);
  }

  /** Relationships of a part (`word/document.xml` -> `word/_rels/document.xml.rels`), those added included. */
  relationships(partName: string): Relationship[] {
    const relsName = relsPartName(partName);
    const data = this.parts.get(relsName);
    let stored = data && parsedRels.get(data);
    if (data && !stored) {
      stored = childElements(parseXml(Buffer.from(data).toString('utf8'), relsName).root, 'Relationship').map((r) => ({
        id: attr(r, 'Id') ?? '',
        type: attr(r, 'Type') ?? '',
        target: attr(r, 'Target') ?? '',
        external: attr(r, 'TargetMode') === 'External',
      }));
      parsedRels.set(data, stored);
    }
    const pending = (this.pendingRels.get(relsName) ?? []).map((r) => ({
      id: r.id,
      type: r.type,
      target: r.target,
      external: r.external === true,
    }));
    return [...(stored ?? []).map((r) => ({ ...r })), ...pending];
  }

  /** Removes the part's relationships that `drop` selects (those added too); returns the removed ones. */
  removeRelationships(partName: string, drop: (relationship: Relationship) => boolean): Relationship[] {
    const relsName = relsPartName(partName);
    this.flush();
    const data = this.parts.get(relsName);
    if (!data) return [];
    const removed: Relationship[] = [];
    const xml = Buffer.from(data)
      .toString('utf8')
      .replace(/<Relationship\b[^>]*\/>/g, (element) => {
        const node = parseXml(element, relsName).root;
        const relationship = {
          id: attr(node, 'Id') ?? '',
          type: attr(node, 'Type') ?? '',
          target: attr(node, 'Target') ?? '',
          external: attr(node, 'TargetMode') === 'External',
        };
        if (!drop(relationship)) return element;
        removed.push(relationship);
        return '';
      });
    if (removed.length > 0) this.parts.set(relsName, Buffer.from(xml, 'utf8'));
    return removed;
  }

  /** Adds relationships to a part's relationships (written out with the package). */
  addRelationships(partName: string, relationships: NewRelationship[]): void {
    if (relationships.length === 0) return;
    const relsName = relsPartName(partName);
    const list = this.pendingRels.get(relsName) ?? [];
    list.push(...relationships);
    this.pendingRels.set(relsName, list);
  }

  /** The content type of a part: its override, else the default of its extension. */
  contentTypeOf(partName: string): string | undefined {
    const types = this.contentTypes();
    const extension = partName.slice(partName.lastIndexOf('.') + 1).toLowerCase();
    return types.overrides.get(`/${partName}`) ?? types.defaults.get(extension);
  }

  /** Declares a default content type for an extension, unless one is declared. */
  addContentTypeDefault(extension: string, contentType: string): void {
    const types = this.contentTypes();
    if (types.defaults.has(extension.toLowerCase())) return;
    types.defaults.set(extension.toLowerCase(), contentType);
    this.typesChanged = true;
  }

  /** Declares a part's content type, unless the package already gives it that type. */
  addContentTypeOverride(partName: string, contentType: string): void {
    if (this.contentTypeOf(partName) === contentType) return;
    this.contentTypes().overrides.set(`/${partName}`, contentType);
    this.typesChanged = true;
  }

  private contentTypes(): ContentTypes {
    if (this.types) return this.types;
    const types: ContentTypes = { defaults: new Map(), overrides: new Map() };
    const data = this.parts.get(CONTENT_TYPES);
    if (data) {
      for (const node of parseXml(Buffer.from(data).toString('utf8'), CONTENT_TYPES).root.children) {
        if (node.kind !== 'element') continue;
        const contentType = attr(node, 'ContentType');
        if (!contentType) continue;
        const local = node.name.slice(node.name.indexOf(':') + 1);
        const extension = attr(node, 'Extension');
        const part = attr(node, 'PartName');
        if (local === 'Default' && extension) types.defaults.set(extension.toLowerCase(), contentType);
        else if (local === 'Override' && part) types.overrides.set(part, contentType);
      }
    }
    this.types = types;
    return types;
  }

  /** Writes what was added (content types, relationships) into the parts that hold it. */
  private flush(): void {
    if (this.typesChanged && this.types) {
      const defaults = [...this.types.defaults].map(
        ([ext, type]) => `<Default Extension="${escapeAttr(ext)}" ContentType="${escapeAttr(type)}"/>`,
      );
      const overrides = [...this.types.overrides].map(
        ([part, type]) => `<Override PartName="${escapeAttr(part)}" ContentType="${escapeAttr(type)}"/>`,
      );
      this.parts.set(
        CONTENT_TYPES,
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
            `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">${defaults.join('')}${overrides.join('')}</Types>`,
          'utf8',
        ),
      );
      this.typesChanged = false;
    }
    for (const [relsName, added] of this.pendingRels) {
      const data = this.parts.get(relsName);
      const xml = data
        ? Buffer.from(data).toString('utf8')
        : '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
      const entries = added
        .map(
          (r) =>
            `<Relationship Id="${escapeAttr(r.id)}" Type="${escapeAttr(r.type)}" Target="${escapeAttr(r.target)}"${r.external ? ' TargetMode="External"' : ''}/>`,
        )
        .join('');
      const closed = xml.replace(/<Relationships([^>]*)\/>\s*$/, '<Relationships$1></Relationships>');
      this.parts.set(relsName, Buffer.from(closed.replace('</Relationships>', `${entries}</Relationships>`), 'utf8'));
    }
    this.pendingRels.clear();
  }

  /** Resolves a relationship target against the folder of its source part. */
  static resolve(sourcePart: string, target: string): string {
    if (target.startsWith('/')) return target.slice(1);
    const parts = sourcePart.split('/').slice(0, -1);
    for (const piece of target.split('/')) {
      if (piece === '..') parts.pop();
      else if (piece !== '.' && piece !== '') parts.push(piece);
    }
    return parts.join('/');
  }

  /**
   * The parts a document's text lives in: the main document first, then the parts it relates
   * to of the given kinds (headers, footers, notes, comments) that exist.
   */
  textParts(kinds: readonly string[] = TEXT_PART_KINDS): string[] {
    const main = this.mainDocument();
    return [
      main,
      ...this.relationships(main)
        .filter((r) => !r.external && kinds.some((kind) => r.type.endsWith(`/${kind}`)))
        .map((r) => OoxmlPackage.resolve(main, r.target))
        .filter((name) => this.parts.has(name)),
    ];
  }

  /** The main document part named by the package relationships. */
  mainDocument(): string {
    const main = this.relationships('').find((r) => r.type.endsWith('/officeDocument'));
    const name = main ? OoxmlPackage.resolve('', main.target) : 'word/document.xml';
    if (!this.parts.has(name)) throw new InputError('The document has no main document part.');
    return name;
  }

  toBuffer(): Buffer {
    this.flush();
    return writeZip(this.parts);
  }

  clone(): OoxmlPackage {
    this.flush();
    return new OoxmlPackage(new Map(this.parts));
  }
}
