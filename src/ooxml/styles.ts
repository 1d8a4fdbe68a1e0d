import { parseXml, serializeDocument } from './xml.js';

/**
 * A styles part without Word's latent styles (w:latentStyles: how its style gallery shows the
 * built-in styles a document has not defined), or undefined when it has none or cannot be read.
 * They change nothing on a page, and LibreOffice reads all of them (about 370 in a template Word
 * made: about 1 ms of loading a one-page document) only to write them back to DOCX; its other
 * formats leave them out. For documents the office lays out or writes in another format.
 */
export function withoutLatentStyles(xml: string): string | undefined {
  if (!xml.includes('latentStyles')) return undefined;
  let doc;
  try {
    doc = parseXml(xml, 'the styles part');
  } catch {
    return undefined; // the office is left to read it as it is
  }
  const children = doc.root.children.filter((node) => !(node.kind === 'element' && node.name === 'w:latentStyles'));
  if (children.length === doc.root.children.length) return undefined;
  doc.root.children = children;
  return serializeDocument(doc);
}
