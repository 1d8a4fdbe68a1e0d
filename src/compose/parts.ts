import { createHash } from 'node:crypto';
import path from 'node:path';
import { OoxmlPackage, relsPartName as relsName, type NewRelationship, type Relationship } from '../ooxml/package.js';
import { escapeAttr } from '../ooxml/xml.js';

export const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';

/** The part of `kind` that `main` relates to, if any. */
export function relatedPart(pkg: OoxmlPackage, main: string, kind: string): string | undefined {
  const rel = pkg.relationships(main).find((r: Relationship) => r.type === `${REL}${kind}`);
  return rel ? OoxmlPackage.resolve(main, rel.target) : undefined;
}

/**
 * Copies parts from other packages into one (in the spirit of pdf-lib's PDFObjectCopier): each
 * copy gets a fresh name and its own relationships, and media are stored once by content.
 */
export class PartCopier {
  private readonly mediaByHash = new Map<string, string>();

  constructor(
    readonly pkg: OoxmlPackage,
    readonly mainPart: string,
  ) {
    for (const [name, data] of pkg.parts) {
      if (name.startsWith('word/media/')) this.mediaByHash.set(createHash('sha256').update(data).digest('hex'), name);
    }
  }

  /**
   * Copies the targets of `fromPart`'s relationships and makes entries for them, with ids of
   * their own, relative to `toPart`; the map says which old id became which. Relationships of a
   * `skip` type are left out unless `body` refers to them (a TX barcode's custom XML).
   */
  copyRelationships(
    source: OoxmlPackage,
    fromPart: string,
    toPart: string,
    n: number,
    skip: readonly string[] = [],
    body = '',
  ): { map: Map<string, string>; entries: NewRelationship[]; copied: { type: string; part: string }[] } {
    const map = new Map<string, string>();
    const entries: NewRelationship[] = [];
    const copied: { type: string; part: string }[] = [];
    for (const rel of source.relationships(fromPart)) {
      if (skip.includes(rel.type.slice(rel.type.lastIndexOf('/') + 1)) && !body.includes(`"${rel.id}"`)) continue;
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
  copyPart(source: OoxmlPackage, part: string, n: number): string | undefined {
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
        if (target)
          copied = copied.replace(
            `Target="${rel.target}"`,
            `Target="${escapeAttr(path.posix.relative(path.posix.dirname(name), target))}"`,
          );
      }
      this.pkg.setText(relsName(name), copied);
    }
    return name;
  }

  freshName(wanted: string): string {
    let name = wanted;
    for (let i = 2; this.pkg.parts.has(name); i++) name = wanted.replace(/(\.[^.]+)?$/, `_${i}$1`);
    return name;
  }

  private addContentType(part: string, contentType: string | undefined): void {
    if (contentType) this.pkg.addContentTypeOverride(part, contentType);
  }

  /** Ensures the base document has a part of this kind, returning its name (created empty if needed). */
  basePart(kind: string, emptyXml: string, contentType: string): string {
    const existing = relatedPart(this.pkg, this.mainPart, kind);
    if (existing) return existing;
    const name = `word/${kind}.xml`;
    this.pkg.setText(name, emptyXml);
    this.pkg.addRelationships(this.mainPart, [{ id: `rIdJ${kind}`, type: `${REL}${kind}`, target: `${kind}.xml` }]);
    this.pkg.addContentTypeOverride(name, contentType);
    return name;
  }
}
