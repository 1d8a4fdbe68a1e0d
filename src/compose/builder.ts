import { OoxmlPackage } from '../ooxml/package.js';
import { BookmarkNames, renameBookmarks } from './bookmarks.js';
import { endSection, splitBody } from '../ooxml/body.js';
import { IdRenumberer } from '../ooxml/ids.js';
import { remapValues, withNamespacesOf } from './markup.js';
import { NOTE_PARTS, NoteMerger } from './notes.js';
import { NumberingMerger } from './numbering.js';
import { PartCopier } from './parts.js';
import { Sections } from './sections.js';
import { StyleMerger, withParagraphStyle } from './styles.js';

/** How an appended document joins the one before it. */
export type Divider = 'none' | 'paragraph' | 'section';

const HAIRLINE_PARAGRAPH =
  '<w:p><w:pPr><w:spacing w:before="0" w:after="0" w:line="20" w:lineRule="exact"/><w:rPr><w:sz w:val="2"/><w:szCs w:val="2"/></w:rPr></w:pPr></w:p>';

/** Parts with text of their own (stories) besides the body. */
const STORY_PART = /^word\/(?:[^/]*_)?(?:header|footer|footnotes|endnotes|comments)[^/]*\.xml$/;

const HANDLED_APART = [
  'styles',
  'numbering',
  'fontTable',
  'settings',
  'webSettings',
  'theme',
  'footnotes',
  'endnotes',
  'comments',
  'customXml',
  'glossaryDocument',
  'people',
  'commentsExtended',
  'commentsIds',
];

/**
 * Joins DOCX documents into one: parts and relationships are copied (media stored once by
 * content), styles merged (a clashing definition is renamed so each document keeps its look),
 * each document's lists get their own numbering instances, notes and comments are renumbered,
 * and each section keeps its page setup, headers and footers.
 */
export class DocumentBuilder {
  private readonly pkg: OoxmlPackage;
  private readonly mainPart: string;
  private before: string;
  private readonly after: string;
  /** The body so far, one piece per joined document: only the last is ever changed (joining 8,000 records copied the whole body for each). */
  private readonly pieces: string[];
  private finalSectPr: string;
  private documents = 1;
  private readonly copier: PartCopier;
  private readonly styles: StyleMerger;
  private readonly numbering: NumberingMerger;
  private readonly notes: NoteMerger;
  private readonly sections: Sections;
  private readonly bookmarks = new BookmarkNames();

  constructor(first: Uint8Array, what = 'document 1') {
    this.pkg = OoxmlPackage.read(first, what);
    this.mainPart = this.pkg.mainDocument();
    const xml = this.pkg.text(this.mainPart)!;
    const split = splitBody(xml);
    this.before = split.before;
    this.after = split.after;
    this.pieces = [split.content];
    this.finalSectPr = split.sectPr;
    this.copier = new PartCopier(this.pkg, this.mainPart);
    this.styles = new StyleMerger(this.copier);
    this.numbering = new NumberingMerger(this.copier);
    this.notes = new NoteMerger(this.copier);
    this.sections = new Sections(this.copier);
    this.sections.observe(split.content + this.finalSectPr);
    this.bookmarks.observe(storyTexts(this.pkg, this.mainPart));
  }

  append(docx: Uint8Array, divider: Divider, what = `document ${this.documents + 1}`): void {
    const source = OoxmlPackage.read(docx, what);
    const main = source.mainDocument();
    const n = ++this.documents;
    const { before: sourceBefore, content: rawContent, sectPr: rawSectPr } = splitBody(source.text(main)!);
    this.before = withNamespacesOf(this.before, sourceBefore);
    // Bookmarks named as in an earlier document are renamed, and what refers to them follows.
    const bookmarks = this.bookmarks.renamesFor(storyTexts(source, main));
    let content = renameBookmarks(rawContent, bookmarks);
    let sectPr = rawSectPr;

    // Relationships used by the body: copy their targets, give them ids of their own here.
    const { map: relMap, entries, copied } = this.copier.copyRelationships(source, main, this.mainPart, n, HANDLED_APART, content);
    this.pkg.addRelationships(this.mainPart, entries);
    const remapRels = (xml: string) =>
      xml.replace(/\b(r:[A-Za-z]+)="([^"]+)"/g, (whole, name: string, value: string) =>
        relMap.has(value) ? `${name}="${relMap.get(value)}"` : whole,
      );
    content = remapRels(content);
    sectPr = remapRels(sectPr);

    const { map: styleMap, ownDefault } = this.styles.merge(source, main, n);
    const ownStyle = (xml: string) => (ownDefault ? withParagraphStyle(xml, ownDefault) : xml);
    content = ownStyle(content);
    const numMap = this.numbering.merge(source, main);
    const restyle = (xml: string) => {
      let out = remapValues(xml, 'w:pStyle|w:rStyle|w:tblStyle', 'w:val', styleMap);
      out = remapValues(out, 'w:numId', 'w:val', numMap);
      return out;
    };
    content = restyle(content);
    sectPr = restyle(sectPr);
    // The document's headers and footers name its styles and lists too.
    for (const { type, part } of copied) {
      if (!/\/(header|footer)$/.test(type)) continue;
      const xml = this.pkg.text(part)!;
      this.pkg.setText(part, restyle(ownStyle(renameBookmarks(xml, bookmarks))));
    }
    for (const note of NOTE_PARTS)
      content = this.notes.merge(source, main, note, content, { styles: styleMap, lists: numMap, bookmarks }, n);

    this.join(content, sectPr, divider);
  }

  private join(content: string, sectPr: string, divider: Divider): void {
    if (divider === 'section') {
      const fixed = this.sections.firstSectionOwnPage(content, sectPr || this.finalSectPr);
      // LibreOffice loses the page break of a section that starts with a table (a label sheet):
      // a paragraph one point high before the table keeps it.
      if (/^\s*<w:tbl\b/.test(fixed.content)) fixed.content = HAIRLINE_PARAGRAPH + fixed.content;
      this.tail = endSection(this.tail, this.finalSectPr);
      this.pieces.push(fixed.content);
      this.finalSectPr = fixed.sectPr;
    } else if (divider === 'none' && this.tail.trimEnd().endsWith('</w:p>') && /^\s*<w:p[\s>]/.test(content)) {
      // The first paragraph's runs continue the last paragraph.
      const head = this.tail.trimEnd().slice(0, -'</w:p>'.length);
      const first = /^\s*<w:p\b[^>]*>(<w:pPr>[\s\S]*?<\/w:pPr>)?/.exec(content)!;
      this.tail = head;
      this.pieces.push(content.slice(first[0].length));
    } else {
      this.pieces.push(content);
    }
    this.sections.observe(content + sectPr);
  }

  /** The last non-empty piece of the body: where a joined document's section break and paragraph go. */
  private get tail(): string {
    while (this.pieces.length > 1 && this.pieces[this.pieces.length - 1]!.trim() === '') this.pieces.pop();
    return this.pieces[this.pieces.length - 1]!;
  }

  private set tail(value: string) {
    this.pieces[this.pieces.length - 1] = value;
  }

  toBuffer(): Buffer {
    const ids = new IdRenumberer();
    this.pkg.setText(this.mainPart, ids.part(this.before + this.pieces.join('') + this.finalSectPr + this.after));
    // Drawing and paragraph ids must be unique in the whole document: headers, footers and
    // notes of every joined document continue the body's numbering.
    for (const name of [...this.pkg.parts.keys()].sort()) {
      if (name !== this.mainPart && STORY_PART.test(name)) this.pkg.setText(name, ids.part(this.pkg.text(name)!));
    }
    return this.pkg.toBuffer();
  }
}

/** The text of a document's body and its other stories (headers, footers, notes, comments). */
function storyTexts(pkg: OoxmlPackage, main: string): string[] {
  return [main, ...[...pkg.parts.keys()].filter((name) => name !== main && STORY_PART.test(name))].map((name) => pkg.text(name) ?? '');
}
