import { OoxmlPackage } from '../ooxml/package.js';
import { escapeAttr, parseXml } from '../ooxml/xml.js';
import { InputError } from '../errors.js';
import { compileNodes, type Segment } from './compile.js';
import { culture as cultureOf } from './format/culture.js';
import { IdRenumberer } from './ids.js';
import { renderSegments, type RenderOptions } from './render.js';
import type { JsonObject } from './scope.js';
import { analysePart, type TElement } from './template.js';
import { templateInfo, type TemplateInfo } from './info.js';
import { MediaSink } from './images.js';
import path from 'node:path';

export interface MergeOptions extends RenderOptions {
  removeTrailingWhitespace: boolean;
  culture: string;
}

export const DEFAULT_MERGE_OPTIONS: MergeOptions = {
  removeEmptyFields: true,
  removeEmptyBlocks: true,
  removeEmptyLines: false,
  removeEmptyImages: false,
  mergeHtml: false,
  removeTrailingWhitespace: true,
  culture: 'en-US',
};

const MERGED_PART_TYPES = ['/header', '/footer', '/footnotes', '/endnotes'];

interface CompiledPart {
  name: string;
  segments: Segment[];
}

/**
 * A DOCX template parsed once: its main document, headers, footers, footnotes and endnotes as
 * segment lists. Rendering a record touches only those parts; every other part is copied.
 */
export class CompiledTemplate {
  private constructor(
    private readonly pkg: OoxmlPackage,
    private readonly mainPart: string,
    private readonly parts: CompiledPart[],
    readonly info: Omit<TemplateInfo, 'templateName'>,
  ) {}

  static compile(docx: Uint8Array, what = 'The template'): CompiledTemplate {
    const pkg = OoxmlPackage.read(docx, what);
    const main = pkg.mainDocument();
    const names = [main, ...pkg.relationships(main)
      .filter((r) => !r.external && MERGED_PART_TYPES.some((t) => r.type.endsWith(t)))
      .map((r) => OoxmlPackage.resolve(main, r.target))
      .filter((name) => pkg.has(name))];
    let mainTree: TElement | undefined;
    const parts = names.map((name) => {
      const doc = parseXml(pkg.text(name)!, `${what} (${name})`);
      const tree = analysePart(doc.root, name);
      if (name === main) mainTree = tree;
      return { name, segments: [doc.prolog, ...compileNodes([tree])] };
    });
    return new CompiledTemplate(pkg, main, parts, templateInfo(mainTree!, pkg));
  }

  /**
   * One document per record (NEXT fields let one document take several), or all of them joined
   * into one, each starting its own section.
   */
  merge(records: JsonObject[], options: MergeOptions, append: boolean): Buffer[] {
    const context = { culture: cultureOf(options.culture), now: new Date() };
    const documents: { parts: Map<string, string>; sink: MediaSink }[] = [];
    const shared = append && records.length > 1 ? new MediaSink() : undefined;
    for (let next = 0; next < records.length;) {
      const rest = records.slice(next);
      const sink = shared ?? new MediaSink();
      const parts = new Map<string, string>();
      let used = 1;
      for (const part of this.parts) {
        const result = renderSegments(part.segments, context, part.name === this.mainPart ? rest : rest.slice(0, 1), options, { sink, part: part.name });
        parts.set(part.name, result.xml);
        if (part.name === this.mainPart) used = result.used;
      }
      documents.push({ parts, sink });
      next += used;
    }
    if (shared) return [this.write(this.join(documents.map((d) => d.parts)), options, shared)];
    return documents.map((d) => this.write(d.parts, options, d.sink));
  }

  private write(parts: Map<string, string>, options: MergeOptions, sink: MediaSink): Buffer {
    const pkg = this.pkg.clone();
    const ids = new IdRenumberer();
    for (const [name, xml] of parts) {
      let out = ids.part(xml);
      if (name === this.mainPart && options.removeTrailingWhitespace) out = trimTrailingParagraphs(out);
      pkg.setText(name, out);
    }
    addMedia(pkg, sink);
    return pkg.toBuffer();
  }

  /** Joins records' main documents; headers and footers come from the first record. */
  private join(rendered: Map<string, string>[]): Map<string, string> {
    const first = rendered[0]!;
    const bodies = rendered.map((parts) => splitBody(parts.get(this.mainPart)!));
    const { before, after, sectPr } = bodies[0]!;
    const sections = bodies.map((b, i) => (i < bodies.length - 1 ? endSection(b.content, sectPr) : b.content));
    return new Map([...first, [this.mainPart, before + sections.join('') + sectPr + after]]);
  }
}

const IMAGE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image';
const HYPERLINK_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';

/** Stores merged images and relates them from the parts that show them. */
function addMedia(pkg: OoxmlPackage, sink: MediaSink): void {
  const relsOf = (source: string) => {
    const slash = source.lastIndexOf('/');
    return `${source.slice(0, slash + 1)}_rels/${source.slice(slash + 1)}.rels`;
  };
  const EMPTY_RELS = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
  for (const [source, links] of sink.linkEntries()) {
    const name = relsOf(source);
    const added = links.map(([url, id]) => `<Relationship Id="${id}" Type="${HYPERLINK_REL}" Target="${escapeAttr(url)}" TargetMode="External"/>`).join('');
    pkg.setText(name, (pkg.text(name) ?? EMPTY_RELS).replace('</Relationships>', `${added}</Relationships>`));
  }
  const entries = sink.entries();
  if (entries.length === 0) return;
  let types = pkg.text('[Content_Types].xml') ?? '';
  for (const [source, media] of entries) {
    const slash = source.lastIndexOf('/');
    const relsName = `${source.slice(0, slash + 1)}_rels/${source.slice(slash + 1)}.rels`;
    const rels = pkg.text(relsName) ?? '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
    const added = media.map((m) => {
      pkg.parts.set(m.part, m.bytes);
      if (!new RegExp(`Extension="${m.format.extension}"`, 'i').test(types)) {
        types = types.replace('</Types>', `<Default Extension="${m.format.extension}" ContentType="${m.format.contentType}"/></Types>`);
      }
      return `<Relationship Id="${m.relId}" Type="${IMAGE_REL}" Target="${path.posix.relative(source.slice(0, slash), m.part)}"/>`;
    }).join('');
    pkg.setText(relsName, rels.replace('</Relationships>', `${added}</Relationships>`));
  }
  pkg.setText('[Content_Types].xml', types);
}

/**
 * Ends a section after this content: the section properties go into its last paragraph, as
 * Word writes them; after a table (or nothing) a paragraph carries them.
 */
function endSection(content: string, sectPr: string): string {
  const trimmed = content.trimEnd();
  if (trimmed.endsWith('</w:p>')) {
    const start = trimmed.lastIndexOf('<w:p>') > trimmed.lastIndexOf('<w:p ') ? trimmed.lastIndexOf('<w:p>') : trimmed.lastIndexOf('<w:p ');
    const paragraph = trimmed.slice(start);
    // Only a plain paragraph (no nested paragraphs, no section break of its own) takes it.
    if (start >= 0 && !paragraph.slice(4).includes('<w:p') && !paragraph.includes('<w:sectPr')) {
      const withProps = paragraph.includes('<w:pPr>')
        ? paragraph.replace('</w:pPr>', `${sectPr}</w:pPr>`)
        : paragraph.replace(/^<w:p( [^>]*)?>/, (open) => `${open}<w:pPr>${sectPr}</w:pPr>`);
      return trimmed.slice(0, start) + withProps;
    }
  }
  return `${content}<w:p><w:pPr>${sectPr}</w:pPr></w:p>`;
}

/** Body content, its final section properties, and what surrounds them. */
function splitBody(xml: string): { before: string; content: string; sectPr: string; after: string } {
  const open = /<w:body\b[^>]*>/.exec(xml);
  const close = xml.lastIndexOf('</w:body>');
  if (!open || close < 0) throw new InputError('The template has no document body.');
  const bodyStart = open.index + open[0].length;
  const inner = xml.slice(bodyStart, close);
  const sect = inner.lastIndexOf('<w:sectPr');
  const hasFinalSect = sect >= 0 && inner.slice(sect).trimEnd().endsWith('</w:sectPr>') && !inner.slice(sect).includes('</w:p>');
  return {
    before: xml.slice(0, bodyStart),
    content: hasFinalSect ? inner.slice(0, sect) : inner,
    sectPr: hasFinalSect ? inner.slice(sect).trimEnd() : '',
    after: xml.slice(close),
  };
}

/** Drops empty paragraphs at the end of the body (no text, drawing, field or section break). */
function trimTrailingParagraphs(xml: string): string {
  const { before, content, sectPr, after } = splitBody(xml);
  let body = content.trimEnd();
  for (;;) {
    if (!body.endsWith('</w:p>') && !body.endsWith('/>')) break;
    const start = Math.max(body.lastIndexOf('<w:p>'), body.lastIndexOf('<w:p '), body.lastIndexOf('<w:p/>'));
    if (start < 0) break;
    const paragraph = body.slice(start);
    const selfClosing = paragraph.startsWith('<w:p/>') || /^<w:p [^>]*\/>$/.test(paragraph);
    if (!selfClosing && !paragraph.endsWith('</w:p>')) break;
    if (/<w:(t|drawing|pict|object|sectPr|fldChar|fldSimple|instrText|br|tab|sym)\b/.test(paragraph)) break;
    // A start found inside a text box or other container belongs to a paragraph we keep.
    if (/<\/(w:txbxContent|w:drawing|w:pict|mc:AlternateContent|w:sdtContent|w:hyperlink|w:tc|w:r)>/.test(paragraph)) break;
    if (body.slice(0, start).trimEnd().endsWith('</w:tbl>')) break; // a table must not end the body
    body = body.slice(0, start).trimEnd();
  }
  return before + body + sectPr + after;
}
