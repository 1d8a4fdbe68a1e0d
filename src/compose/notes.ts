import { attr, childElements, parseXml, serializeDocument, setAttr, walk, type XmlDocument } from '../ooxml/xml.js';
import type { OoxmlPackage } from '../ooxml/package.js';
import { renameBookmarks } from './bookmarks.js';
import { adoptNamespaces, remapValues, STYLE_REFERENCES } from './markup.js';
import { relatedPart, type PartCopier } from './parts.js';

export const NOTE_PARTS = [
  {
    type: 'footnotes',
    element: 'w:footnote',
    reference: 'w:footnoteReference',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml',
  },
  {
    type: 'endnotes',
    element: 'w:endnote',
    reference: 'w:endnoteReference',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml',
  },
  {
    type: 'comments',
    element: 'w:comment',
    reference: 'w:comment(?:RangeStart|RangeEnd|Reference)',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml',
  },
] as const;

/** Moves each appended document's footnotes, endnotes and comments, renumbered. */
export class NoteMerger {
  private readonly notes = new Map<string, XmlDocument>();

  constructor(private readonly copier: PartCopier) {}

  /** Footnotes, endnotes and comments get the next free ids here; references follow. */
  merge(
    source: OoxmlPackage,
    main: string,
    note: (typeof NOTE_PARTS)[number],
    content: string,
    renamed: { styles: Map<string, string>; lists: Map<string, string>; bookmarks: ReadonlyMap<string, string> },
    n: number,
  ): string {
    const sourcePart = relatedPart(source, main, note.type);
    if (!sourcePart || !source.has(sourcePart)) return content;
    const root = note.type === 'comments' ? 'w:comments' : `w:${note.type}`;
    const basePart = this.copier.basePart(
      note.type,
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${root} xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"></${root}>`,
      note.contentType,
    );
    const base = this.notes.get(basePart) ?? parseXml(this.copier.pkg.text(basePart)!, basePart);
    this.notes.set(basePart, base);
    let next = Math.max(0, ...childElements(base.root, note.element).map((e) => Number(attr(e, 'w:id') ?? 0))) + 1;
    // Images and links inside notes relate from the notes part: they move with the notes.
    const { map: relMap, entries } = this.copier.copyRelationships(source, sourcePart, basePart, n);
    this.copier.pkg.addRelationships(basePart, entries);
    const map = new Map<string, string>();
    const incoming = parseXml(renameBookmarks(source.text(sourcePart)!, renamed.bookmarks), sourcePart).root;
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
    this.copier.pkg.setText(basePart, serializeDocument(base));
    return remapValues(content, note.reference, 'w:id', map);
  }
}
