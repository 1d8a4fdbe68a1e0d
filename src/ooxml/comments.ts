import { OoxmlPackage } from './package.js';

/** Parts with text of their own, where comment anchors stand. */
const STORY_PART = /^word\/(?:[^/]*_)?(?:document|header|footer|footnotes|endnotes)[^/]*\.xml$/;
const COMMENT_PARTS = /\/(?:comments|commentsExtended|commentsIds|commentsExtensible)$/;
const ANCHORS = /<w:comment(?:RangeStart|RangeEnd|Reference)\b[^>]*\/>/g;

/**
 * The document without its comments, for output that never shows them (PDF, text, page images):
 * LibreOffice 7.4 lays out footnotes of a document that also has comments wrongly (empty, or
 * another note's text). Their anchors go from every story; the comment parts lose their
 * relationships and are left unread. A package without a comments part comes back as it was.
 */
export function withoutComments(docx: Buffer): Buffer {
  // Part names stand uncompressed in a ZIP: a package without one is passed over unread.
  if (!docx.includes('comments')) return docx;
  const pkg = OoxmlPackage.read(docx, 'The document');
  const main = pkg.mainDocument();
  const removed = pkg.removeRelationships(main, (rel) => !rel.external && COMMENT_PARTS.test(rel.type));
  let changed = removed.length > 0;
  for (const name of [...pkg.parts.keys()]) {
    if (!STORY_PART.test(name)) continue;
    const xml = pkg.text(name)!;
    if (!xml.includes('<w:comment')) continue;
    pkg.setText(name, xml.replace(ANCHORS, ''));
    changed = true;
  }
  return changed ? pkg.toBuffer() : docx;
}
