import { InputError } from '../errors.js';

/** Text-level helpers for a document body: its content, final section, and section ends. */

/**
 * Ends a section after this content: the section properties go into its last paragraph, as
 * Word writes them; after a table (or nothing) a paragraph carries them.
 */
export function endSection(content: string, sectPr: string): string {
  const trimmed = content.trimEnd();
  if (trimmed.endsWith('</w:p>')) {
    const start = lastParagraphStart(trimmed);
    const paragraph = trimmed.slice(start);
    // Only a plain paragraph (no nested paragraphs, no section break of its own) takes it; its own
    // properties (<w:pPr>) are no nested paragraph. A paragraph of its own would be a line more,
    // a blank page after a full one (a label sheet).
    const plain =
      !paragraph.startsWith('<w:p/>') &&
      !/<w:p[\s>/]/.test(paragraph.slice(4)) &&
      paragraph.indexOf('</w:p>') === paragraph.length - '</w:p>'.length &&
      !paragraph.includes('<w:sectPr');
    if (start >= 0 && plain) {
      const withProps = paragraph.includes('<w:pPr>')
        ? paragraph.replace('</w:pPr>', `${sectPr}</w:pPr>`)
        : paragraph.replace(/^<w:p( [^>]*)?>/, (open) => `${open}<w:pPr>${sectPr}</w:pPr>`);
      return trimmed.slice(0, start) + withProps;
    }
  }
  return `${content}<w:p><w:pPr>${sectPr}</w:pPr></w:p>`;
}

/**
 * Where the last paragraph starts (`<w:p>`, `<w:p ...>` or `<w:p/>`), found by walking back over
 * `<w:p` prefixes: a search for a form the document lacks would scan all of it.
 */
export function lastParagraphStart(text: string, end = text.length): number {
  for (let at = text.lastIndexOf('<w:p', end - 1); at >= 0; at = text.lastIndexOf('<w:p', at - 1)) {
    const next = text[at + 4];
    if (next === '>' || next === ' ' || next === '/') return at;
  }
  return -1;
}

/** Body content, its final section properties, and what surrounds them. */
export function splitBody(xml: string): { before: string; content: string; sectPr: string; after: string } {
  const open = /<w:body\b[^>]*>/.exec(xml);
  const close = xml.lastIndexOf('</w:body>');
  if (!open || close < 0) throw new InputError('The template has no document body.');
  const bodyStart = open.index + open[0].length;
  const inner = xml.slice(bodyStart, close);
  const sect = inner.lastIndexOf('<w:sectPr');
  const tail = sect >= 0 ? inner.slice(sect).trimEnd() : '';
  // The body's own section properties: `<w:sectPr>...</w:sectPr>` or `<w:sectPr/>`, last in the body.
  const hasFinalSect = sect >= 0 && !tail.includes('</w:p>') && (tail.endsWith('</w:sectPr>') || /^<w:sectPr\b[^>]*\/>$/.test(tail));
  return {
    before: xml.slice(0, bodyStart),
    content: hasFinalSect ? inner.slice(0, sect) : inner,
    sectPr: hasFinalSect ? inner.slice(sect).trimEnd() : '',
    after: xml.slice(close),
  };
}
