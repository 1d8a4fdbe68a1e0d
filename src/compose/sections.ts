import path from 'node:path';
import { REL, type PartCopier } from './parts.js';

/** Section breaks between appended documents: each starts on a new page with its own headers. */
export class Sections {
  private readonly emptyHeaders = new Map<string, string>();
  /** Whether any section so far shows a header (footer): only then must a new one hide it. */
  private readonly seen = { header: false, footer: false };

  constructor(private readonly copier: PartCopier) {}

  /** An empty header or footer part, so a new section does not show the one before it. */
  emptyHeaderFooter(kind: 'header' | 'footer'): string {
    const known = this.emptyHeaders.get(kind);
    if (known) return known;
    const tag = kind === 'header' ? 'w:hdr' : 'w:ftr';
    const name = this.copier.freshName(`word/${kind}-empty.xml`);
    this.copier.pkg.setText(
      name,
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${tag} xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:p/></${tag}>`,
    );
    this.copier.pkg.addContentTypeOverride(name, `application/vnd.openxmlformats-officedocument.wordprocessingml.${kind}+xml`);
    const id = `rIdJEmpty${kind}`;
    this.copier.pkg.addRelationships(this.copier.mainPart, [{ id, type: `${REL}${kind}`, target: path.posix.basename(name) }]);
    this.emptyHeaders.set(kind, id);
    return id;
  }

  /** Notes which kinds of header and footer the document shows so far. */
  observe(xml: string): void {
    if (!this.seen.header && xml.includes('<w:headerReference')) this.seen.header = true;
    if (!this.seen.footer && xml.includes('<w:footerReference')) this.seen.footer = true;
  }

  /**
   * The first section of an appended document starts on a new page and shows only its own
   * headers: where it has none of a kind that an earlier section shows, an empty one stops
   * it from inheriting that one; where no earlier section has one, nothing is added.
   */
  firstSectionOwnPage(content: string, sectPr: string): { content: string; sectPr: string } {
    const fix = (s: string) => {
      // `<w:sectPr/>` opens up so that references can go inside it.
      let out = s.replace(/^<w:sectPr\b([^>]*?)\s*\/>$/, '<w:sectPr$1></w:sectPr>').replace(/<w:type\b[^>]*\/>/, '');
      for (const kind of ['header', 'footer'] as const) {
        if (!this.seen[kind] || new RegExp(`<w:${kind}Reference\\b[^>]*w:type="default"`).test(out)) continue;
        const id = this.emptyHeaderFooter(kind);
        out = out.replace(/^<w:sectPr\b[^>]*>/, (open) => `${open}<w:${kind}Reference w:type="default" r:id="${id}"/>`);
      }
      // Header and footer references come first in sectPr (with or without white space between
      // them); the section type right after them, else first.
      const refs = /^(<w:sectPr\b[^>]*>)((?:\s*<w:(?:header|footer)Reference\b[^>]*\/>)*)/.exec(out);
      return refs ? out.replace(refs[0], `${refs[1]}${refs[2]}<w:type w:val="nextPage"/>`) : out;
    };
    const inner = content.indexOf('<w:sectPr');
    if (inner >= 0) {
      const open = content.indexOf('>', inner);
      const end = content[open - 1] === '/' ? open + 1 : content.indexOf('</w:sectPr>', inner) + '</w:sectPr>'.length;
      return { content: content.slice(0, inner) + fix(content.slice(inner, end)) + content.slice(end), sectPr };
    }
    return { content, sectPr: sectPr ? fix(sectPr) : sectPr };
  }
}
