import { InputError } from '../errors.js';
import { attr, childElements, parseXml } from './xml.js';
import { DEFAULT_ZIP_LIMITS, readZip, writeZip, ZipError, type ZipLimits } from './zip.js';

/** `<!DOCTYPE` as UTF-8 and UTF-16 bytes: entity bombs are refused in every part, not only those we parse. */
const DOCTYPE = [Buffer.from('<!DOCTYPE', 'utf8'), Buffer.from('<!DOCTYPE', 'utf16le'), Buffer.from('\0<\0!\0D\0O\0C\0T\0Y\0P\0E', 'latin1')];

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

/** An OPC package (DOCX): its parts by name, read and written as a ZIP. */
export class OoxmlPackage {
  private constructor(readonly parts: Map<string, Uint8Array>) {}

  static read(bytes: Uint8Array, what = 'The document', limits: ZipLimits = DEFAULT_ZIP_LIMITS): OoxmlPackage {
    let parts: Map<string, Uint8Array>;
    try {
      parts = readZip(bytes, limits);
    } catch (error) {
      if (!(error instanceof ZipError)) throw error;
      throw new InputError(error.kind === 'limit' ? `${what} is refused: ${error.message}.` : `${what} is a damaged ZIP package: ${error.message}.`);
    }
    for (const [name, data] of parts) {
      if (DOCTYPE.some((marker) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).includes(marker))) {
        throw new InputError(`${what} is refused: its part ${name} contains a DOCTYPE (entity declarations), which Office documents never have.`);
      }
    }
    return new OoxmlPackage(parts);
  }

  has(name: string): boolean {
    return this.parts.has(name);
  }

  text(name: string): string | undefined {
    const data = this.parts.get(name);
    return data ? Buffer.from(data).toString('utf8') : undefined;
  }

  setText(name: string, value: string): void {
    this.parts.set(name, Buffer.from(value, 'utf8'));
  }

  /** Relationships of a part (`word/document.xml` -> `word/_rels/document.xml.rels`). */
  relationships(partName: string): Relationship[] {
    const relsName = relsPartName(partName);
    const xml = this.text(relsName);
    if (!xml) return [];
    const doc = parseXml(xml, relsName);
    return childElements(doc.root, 'Relationship').map((r) => ({
      id: attr(r, 'Id') ?? '',
      type: attr(r, 'Type') ?? '',
      target: attr(r, 'Target') ?? '',
      external: attr(r, 'TargetMode') === 'External',
    }));
  }

  /** Adds relationship entries (XML) to a part's relationships; makes the rels part when missing. */
  addRelationships(partName: string, entries: string): void {
    if (!entries) return;
    const relsName = relsPartName(partName);
    const xml = this.text(relsName) ?? '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
    this.setText(relsName, xml.replace('</Relationships>', `${entries}</Relationships>`));
  }

  /** Declares a part's content type in [Content_Types].xml, unless it is declared there already. */
  addContentTypeOverride(partName: string, contentType: string): void {
    const types = this.text('[Content_Types].xml');
    if (types && !types.includes(`PartName="/${partName}"`)) {
      this.setText('[Content_Types].xml', types.replace('</Types>', `<Override PartName="/${partName}" ContentType="${contentType}"/></Types>`));
    }
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
    return [main, ...this.relationships(main)
      .filter((r) => !r.external && kinds.some((kind) => r.type.endsWith(`/${kind}`)))
      .map((r) => OoxmlPackage.resolve(main, r.target))
      .filter((name) => this.parts.has(name))];
  }

  /** The main document part named by the package relationships. */
  mainDocument(): string {
    const main = this.relationships('').find((r) => r.type.endsWith('/officeDocument'));
    const name = main ? OoxmlPackage.resolve('', main.target) : 'word/document.xml';
    if (!this.parts.has(name)) throw new InputError('The document has no main document part.');
    return name;
  }

  toBuffer(): Buffer {
    return writeZip(this.parts);
  }

  clone(): OoxmlPackage {
    return new OoxmlPackage(new Map(this.parts));
  }
}
