import { createHash } from 'node:crypto';
import { attr, childElements, parseXml, serializeDocument, setAttr, type XmlDocument } from '../ooxml/xml.js';
import type { OoxmlPackage } from '../ooxml/package.js';
import { adoptNamespaces } from './markup.js';
import { relatedPart, type PartCopier } from './parts.js';

/** Gives each appended document's lists numbering instances of their own. */
export class NumberingMerger {
  private numbering: XmlDocument | undefined;

  constructor(private readonly copier: PartCopier) {}

  /** Each document's lists become numbering instances of their own, so they start at 1 again. */
  merge(source: OoxmlPackage, main: string): Map<string, string> {
    const map = new Map<string, string>();
    const sourcePart = relatedPart(source, main, 'numbering');
    if (!sourcePart || !source.has(sourcePart)) return map;
    const basePart = this.copier.basePart(
      'numbering',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"></w:numbering>',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml',
    );
    this.numbering ??= parseXml(this.copier.pkg.text(basePart)!, basePart);
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
      for (const nsid of childElements(a, 'w:nsid'))
        setAttr(
          nsid,
          'w:val',
          createHash('md5')
            .update(`${fresh}:${attr(nsid, 'w:val')}`)
            .digest('hex')
            .slice(0, 8)
            .toUpperCase(),
        );
      return a;
    });
    const nums = childElements(incoming, 'w:num').map((num) => {
      const fresh = String(nextNum++);
      map.set(attr(num, 'w:numId') ?? '', fresh);
      setAttr(num, 'w:numId', fresh);
      for (const ref of childElements(num, 'w:abstractNumId'))
        setAttr(ref, 'w:val', abstractMap.get(attr(ref, 'w:val') ?? '') ?? attr(ref, 'w:val') ?? '0');
      return num;
    });
    const firstNum = base.children.findIndex((c) => c.kind === 'element' && c.name === 'w:num');
    base.children.splice(firstNum < 0 ? base.children.length : firstNum, 0, ...abstracts);
    base.children.push(...nums);
    this.copier.pkg.setText(basePart, serializeDocument(this.numbering));
    return map;
  }
}
