/** A document's properties as a request sets them (ReportingCloud's documentSettings), for any output format. */
export interface DocumentProperties {
  author?: string;
  title?: string;
  subject?: string;
  creatorApplication?: string;
  creationDate?: Date;
  lastModificationDate?: Date;
}

import { OoxmlPackage } from './package.js';
import { childElements, element, parseXml, serializeDocument, text, type XmlElement } from './xml.js';

const CORE_TYPE = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties';
const CORE_CONTENT_TYPE = 'application/vnd.openxmlformats-package.core-properties+xml';
const EMPTY_CORE =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ' +
  'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"></cp:coreProperties>';

const w3cdtf = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function setChild(root: XmlElement, name: string, value: string, attrs: [string, string][] = []): void {
  const existing = childElements(root, name)[0];
  if (existing) {
    existing.children = [text(value)];
  } else {
    root.children.push(element(name, attrs, [text(value)]));
  }
}

/** Writes document properties into the package's core (and app) properties, creating them if needed. */
export function writeDocumentProperties(pkg: OoxmlPackage, p: DocumentProperties): void {
  const rels = pkg.relationships('');
  let corePart = rels.find((r) => r.type === CORE_TYPE)?.target;
  if (corePart) corePart = OoxmlPackage.resolve('', corePart);
  if (!corePart || !pkg.has(corePart)) {
    corePart = 'docProps/core.xml';
    pkg.setText(corePart, EMPTY_CORE);
    pkg.addRelationships('', [{ id: `rIdCore${rels.length + 1}`, type: CORE_TYPE, target: 'docProps/core.xml' }]);
    pkg.addContentTypeOverride(corePart, CORE_CONTENT_TYPE);
  }
  const core = parseXml(pkg.text(corePart)!, corePart);
  const root = core.root;
  const need: [string, string][] = [
    ['xmlns:dc', 'http://purl.org/dc/elements/1.1/'],
    ['xmlns:dcterms', 'http://purl.org/dc/terms/'],
    ['xmlns:xsi', 'http://www.w3.org/2001/XMLSchema-instance'],
  ];
  for (const [name, uri] of need) if (!root.attrs.some(([n]) => n === name)) root.attrs.push([name, uri]);
  if (p.author !== undefined) setChild(root, 'dc:creator', p.author);
  if (p.title !== undefined) setChild(root, 'dc:title', p.title);
  if (p.subject !== undefined) setChild(root, 'dc:subject', p.subject);
  if (p.creationDate) setChild(root, 'dcterms:created', w3cdtf(p.creationDate), [['xsi:type', 'dcterms:W3CDTF']]);
  if (p.lastModificationDate) setChild(root, 'dcterms:modified', w3cdtf(p.lastModificationDate), [['xsi:type', 'dcterms:W3CDTF']]);
  pkg.setText(corePart, serializeDocument(core));

  const app = pkg.text('docProps/app.xml');
  if (p.creatorApplication !== undefined && app) {
    const doc = parseXml(app, 'docProps/app.xml');
    setChild(doc.root, 'Application', p.creatorApplication);
    pkg.setText('docProps/app.xml', serializeDocument(doc));
  }
}
