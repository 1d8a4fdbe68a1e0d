import { OoxmlPackage } from '../ooxml/package.js';
import { parseXml } from '../ooxml/xml.js';
import { withoutLatentStyles } from '../ooxml/styles.js';
import { relatedPart } from '../compose/parts.js';
import { lastParagraphStart, splitBody } from '../ooxml/body.js';
import { DocumentBuilder } from '../compose/builder.js';
import { compileNodes, segmentsHold, type CompileContext, type Segment } from './compile.js';
import { readTxBarcode, type TxBarcode } from './barcodes.js';
import { culture as cultureOf } from './format/culture.js';
import { ANY_IDS, holdsChangeIds, holdsCommonIds, IdRenumberer, type IdKinds } from '../ooxml/ids.js';
import { checkDeadline, renderSegments, type RenderBudget, type RenderOptions } from './render.js';
import { Scope, type JsonObject } from './scope.js';
import { chartSeries, copyChart, describeCharts, fillChart, findCharts, type ChartBinding } from './charts.js';
import { analysePart, type TElement } from './template.js';
import { templateInfo, type MergeBlockInfo, type TemplateInfo } from './info.js';
import { MediaSink } from './images.js';
import { addListNumbering } from './lists.js';
import path from 'node:path';
import { MERGE_DEFAULTS } from './defaults.js';
import { OutputTooLargeError } from '../errors.js';
import type { SvgRasteriser } from '../render/svg.js';

export interface MergeOptions extends RenderOptions {
  removeTrailingWhitespace: boolean;
  culture: string;
  /** An IANA time zone dates written with an offset are shown in; absent: as written. */
  timeZone?: string;
}

export const DEFAULT_MERGE_OPTIONS: MergeOptions = MERGE_DEFAULTS;

/** What bounds one merge, and where its documents go. */
export interface MergeLimits {
  /** When the request's time is up (epoch ms). */
  deadline?: number;
  /** Bytes of output past which the merge stops with a 413. */
  maxBytes?: number;
  /** The documents go to the office (vector barcodes and SVG as main pictures), not to Word. */
  officeBound?: boolean;
  /** Draws SVG pictures as PNG for Word (src/render/svg.ts). */
  rasterise?: SvgRasteriser;
  /** Told as records are merged: how many of how many. */
  progress?: (done: number, total: number) => void;
  /** A merge on the event loop (workers/inline.ts): OverBudgetError once it outgrows this. */
  budget?: RenderBudget;
}

interface CompiledPart {
  name: string;
  segments: Segment[];
  /** The ids the part holds that a merge numbers afresh (ooxml/ids.ts): bookmarks, drawings, paragraphs; tracked changes, content controls. */
  ids: IdKinds;
}

/** Merged parts up to this long are kept for the next merge (CompiledTemplate.bytesOf). */
const KEPT_PART_CHARS = 64 * 1024;

/**
 * A DOCX template parsed once: its main document, headers, footers, footnotes and endnotes as
 * segment lists. Rendering a record touches only those parts; every other part is copied.
 */
export class CompiledTemplate {
  private chars: number | undefined;
  private barcodes: boolean | undefined;

  private constructor(
    private readonly pkg: OoxmlPackage,
    private readonly mainPart: string,
    private readonly parts: CompiledPart[],
    readonly info: Omit<TemplateInfo, 'templateName'>,
    private readonly charts: ChartBinding[],
  ) {}

  static compile(docx: Uint8Array, what = 'The template'): CompiledTemplate {
    const pkg = OoxmlPackage.read(docx, what);
    const main = pkg.mainDocument();
    const names = pkg.textParts();
    let mainTree: TElement | undefined;
    const others: TElement[] = [];
    const parts = names.map((name) => {
      const text = pkg.text(name)!;
      const doc = parseXml(text, `${what} (${name})`);
      const tree = analysePart(doc.root, partDescription(name));
      if (name === main) mainTree = tree;
      else others.push(tree);
      const segments = [doc.prolog, ...compileNodes([tree], barcodeContext(pkg, name))];
      // Bookmarks that only mark a block are gone once it is compiled: nothing of them to number.
      return { name, segments, ids: { common: segmentsHold(segments, holdsCommonIds), changes: holdsChangeIds(text) } };
    });
    const info = templateInfo(mainTree!, pkg, others);
    const charts = findCharts(pkg, main);
    if (charts.length) info.charts = describeCharts(charts, flattenBlocks(info.mergeBlocks));
    return new CompiledTemplate(pkg, main, parts, info, charts);
  }

  /**
   * One document per record (NEXT fields let one document take several), or all of them joined
   * into one, each starting its own section.
   */
  merge(records: JsonObject[], options: MergeOptions, append: boolean, limits: MergeLimits = {}): Buffer[] {
    const context = { culture: cultureOf(options.culture), now: new Date(), ...(options.timeZone ? { timeZone: options.timeZone } : {}) };
    const documents: Buffer[] = [];
    let bytes = 0;
    // A document takes the records its NEXT fields move to: it sees a window of the rest, not a
    // copy of all of it (a copy per document made 100,000 records quadratic).
    let window = 64;
    for (let next = 0; next < records.length;) {
      checkDeadline(limits.deadline);
      let rest = records.slice(next, next + window);
      let rendered = this.render(rest, context, options, limits);
      while (rendered.used >= rest.length && next + rest.length < records.length) {
        window *= 2;
        rest = records.slice(next, next + window);
        rendered = this.render(rest, context, options, limits);
      }
      const document = this.write(
        rendered.parts,
        rendered.ids,
        options,
        rendered.sink,
        append && records.length > 1 && this.restartsPageNumbers(),
        rest[0]!,
        limits.officeBound ?? false,
      );
      bytes += document.length;
      // Checked as the documents grow: a bomb stops at the limit, not after it used the memory.
      if (limits.maxBytes !== undefined && bytes > limits.maxBytes) throw new OutputTooLargeError(limits.maxBytes);
      documents.push(document);
      next += rendered.used;
      limits.progress?.(next, records.length);
    }
    if (!append || documents.length < 2) return documents;
    // Joined like any appended documents: each record in a section of its own, with its own
    // headers and footers and its lists numbered from 1.
    const builder = new DocumentBuilder(documents[0]!);
    for (const document of documents.slice(1)) {
      checkDeadline(limits.deadline);
      builder.append(document, 'section');
    }
    return [builder.toBuffer()];
  }

  private render(
    records: JsonObject[],
    context: { culture: ReturnType<typeof cultureOf>; now: Date; timeZone?: string },
    options: MergeOptions,
    limits: MergeLimits,
  ) {
    const sink = new MediaSink();
    const parts = new Map<string, string>();
    /** The ids each part may hold: the template part's, and any kind when the data brought markup (HTML, raw XML, barcodes). */
    const ids = new Map<string, IdKinds>();
    let used = 1;
    for (const part of this.parts) {
      const media = { sink, part: part.name, officeBound: limits.officeBound, rasterise: limits.rasterise };
      const result = renderSegments(
        part.segments,
        { ...context, deadline: limits.deadline, budget: limits.budget },
        part.name === this.mainPart ? records : records.slice(0, 1),
        options,
        media,
      );
      parts.set(part.name, result.xml);
      ids.set(part.name, result.markupFromData ? ANY_IDS : part.ids);
      if (part.name === this.mainPart) used = result.used;
    }
    return { parts, sink, used, ids };
  }

  /** Whether a merge draws barcodes (Word's MERGEBARCODE, TX barcode pictures): milliseconds each. */
  drawsBarcodes(): boolean {
    return (this.barcodes ??= this.parts.some((part) => /MERGEBARCODE|NetControl/i.test(this.pkg.text(part.name) ?? '')));
  }

  /** Characters of XML in the parts a merge renders: how much work a merge of one record starts from. */
  renderedChars(): number {
    return (this.chars ??= this.parts.reduce((n, part) => n + (this.pkg.text(part.name)?.length ?? 0), 0));
  }

  /**
   * Whether the template restarts page numbering in its one section (`<w:pgNumType w:start>`):
   * then each record is numbered on its own when records are joined, and "page X of Y" counts
   * the record's pages (NUMPAGES becomes SECTIONPAGES).
   */
  restartsPageNumbers(): boolean {
    this.perRecordNumbering ??= (() => {
      const xml = this.pkg.text(this.mainPart) ?? '';
      return /<w:pgNumType\b[^>]*\bw:start=/.test(xml) && (xml.match(/<w:sectPr\b/g) ?? []).length === 1;
    })();
    return this.perRecordNumbering;
  }

  private perRecordNumbering: boolean | undefined;

  /** The styles part as the office gets it (ooxml/styles.ts), made once; null: the template's own. */
  private officeStyles(): { part: string; xml: string } | null {
    this.stylesForOffice ??= (() => {
      const part = relatedPart(this.pkg, this.mainPart, 'styles');
      const xml = part && withoutLatentStyles(this.pkg.text(part) ?? '');
      return part && xml ? { part, xml } : null;
    })();
    return this.stylesForOffice;
  }

  private stylesForOffice: { part: string; xml: string } | null | undefined;

  /** Each part's last merged text and its bytes. */
  private readonly lastParts = new Map<string, { xml: string; bytes: Buffer }>();

  /**
   * A part's bytes, the last merge's when its text came out the same (headers, footers, the
   * office's styles): the writer deflates bytes it has seen once, not once per document.
   */
  private bytesOf(name: string, xml: string): Buffer {
    // A long body is not kept with the compiled template.
    if (xml.length > KEPT_PART_CHARS) return Buffer.from(xml, 'utf8');
    const last = this.lastParts.get(name);
    if (last && last.xml === xml) return last.bytes;
    const bytes = Buffer.from(xml, 'utf8');
    this.lastParts.set(name, { xml, bytes });
    return bytes;
  }

  private write(
    parts: Map<string, string>,
    partIds: Map<string, IdKinds>,
    options: MergeOptions,
    sink: MediaSink,
    sectionPages: boolean,
    record: JsonObject,
    officeBound: boolean,
  ): Buffer {
    const pkg = this.pkg.clone();
    const styles = officeBound ? this.officeStyles() : null;
    if (styles) pkg.setBytes(styles.part, this.bytesOf(styles.part, styles.xml));
    for (const chart of this.charts) {
      // A chart of a block the record has no rows for is empty, like the block; one that names
      // no block keeps its design (and /templates/info says why).
      const bound = this.info.charts?.some((c) => c.name === chart.name && c.mergeBlock !== null);
      const rows = Scope.of(record, options.complement).rows(chart.name) ?? (bound ? [] : null);
      if (rows) fillChart(pkg, chart, rows);
    }
    const ids = new IdRenumberer();
    const withListIds = addListNumbering(pkg, this.mainPart, sink.listRequests());
    for (const [name, xml] of parts) {
      let out = withListIds(ids.part(xml, partIds.get(name)));
      if (sectionPages && (out.includes('<w:instrText') || out.includes('w:instr='))) out = renameField(out, 'NUMPAGES', 'SECTIONPAGES');
      if (name === this.mainPart && options.removeTrailingWhitespace) out = trimTrailingParagraphs(out);
      pkg.setBytes(name, this.bytesOf(name, out));
    }
    addMedia(pkg, sink);
    addCharts(pkg, sink);
    // Only a merged picture or barcode replaces a template's picture: without one there is nothing to look for.
    if (sink.entries().length > 0) dropReplacedMedia(pkg, [...parts.keys()]);
    return pkg.toBuffer();
  }
}

function flattenBlocks(blocks: MergeBlockInfo[]): { name: string; fields: string[] }[] {
  return blocks.flatMap((b) => [{ name: b.name, fields: b.mergeFields.map((f) => f.name) }, ...flattenBlocks(b.mergeBlocks)]);
}

/** TX barcode pictures point (tx:NetControl r:id) at a custom XML part describing the symbol. */
function barcodeContext(pkg: OoxmlPackage, part: string): CompileContext {
  let byId: Map<string, TxBarcode> | undefined;
  return {
    barcode(relId) {
      byId ??= new Map(
        pkg.relationships(part).flatMap((rel) => {
          if (rel.external) return [];
          const target = OoxmlPackage.resolve(part, rel.target);
          const xml = pkg.text(target);
          const barcode = xml?.includes('BarcodeData') ? readTxBarcode(xml, target) : undefined;
          return barcode ? [[rel.id, barcode] as const] : [];
        }),
      );
      return byId.get(relId);
    },
  };
}

/** Gives fields of one kind another keyword, in simple fields and in complex ones whose instruction is split over runs. */
function renameField(xml: string, from: string, to: string): string {
  const keyword = new RegExp(`^(\\s*)${from}\\b`, 'i');
  return xml
    .replace(/(\bw:instr=")([^"]*)"/g, (all, open: string, instr: string) =>
      keyword.test(instr) ? `${open}${instr.replace(keyword, `$1${to}`)}"` : all,
    )
    .replace(
      /(<w:fldChar\b[^>]*w:fldCharType="begin"[^>]*\/>)((?:(?!<w:fldChar\b)[\s\S])*?)(?=<w:fldChar\b)/g,
      (all, begin: string, middle: string) => {
        const texts = [...middle.matchAll(/<w:instrText\b[^>]*>([^<]*)<\/w:instrText>/g)].map((m) => m[1]).join('');
        if (!keyword.test(texts)) return all;
        let first = true;
        return (
          begin +
          middle.replace(/(<w:instrText\b[^>]*>)([^<]*)(<\/w:instrText>)/g, (_m, a: string, _t: string, b: string) => {
            if (!first) return a + b;
            first = false;
            return a + texts.replace(keyword, `$1${to}`) + b;
          })
        );
      },
    );
}

const IMAGE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image';
const CHART_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart';
const HYPERLINK_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';
const CUSTOM_XML_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXml';

/**
 * Removes the pictures merged values replaced (a placeholder's or a barcode's dummy image) that no
 * markup of the merged parts refers to any more, and the media no relationship is left to.
 */
function dropReplacedMedia(pkg: OoxmlPackage, merged: string[]): void {
  const dropped: string[] = [];
  for (const part of merged) {
    const xml = pkg.text(part) ?? '';
    for (const gone of pkg.removeRelationships(part, (r) => !r.external && r.type === IMAGE_REL && !xml.includes(`"${r.id}"`))) {
      dropped.push(OoxmlPackage.resolve(part, gone.target));
    }
  }
  if (dropped.length === 0) return;
  const stillUsed = new Set<string>();
  for (const name of pkg.parts.keys()) {
    if (!name.endsWith('.rels')) continue;
    const source = name.replace(/_rels\/([^/]+)\.rels$/, '$1');
    for (const r of pkg.relationships(source)) if (!r.external) stillUsed.add(OoxmlPackage.resolve(source, r.target));
  }
  for (const part of dropped) if (!stillUsed.has(part)) pkg.parts.delete(part);
}

/** Stores merged images and relates them from the parts that show them. */
function addMedia(pkg: OoxmlPackage, sink: MediaSink): void {
  for (const [source, links] of sink.linkEntries()) {
    pkg.addRelationships(
      source,
      links.map(([url, id]) => ({ id, type: HYPERLINK_REL, target: url, external: true })),
    );
  }
  for (const [source, items] of sink.customXmlEntries()) {
    pkg.addRelationships(
      source,
      items.map((item) => {
        pkg.parts.set(item.part, Buffer.from(item.xml, 'utf8'));
        return { id: item.relId, type: CUSTOM_XML_REL, target: path.posix.relative(source.slice(0, source.lastIndexOf('/')), item.part) };
      }),
    );
  }
  for (const [source, media] of sink.entries()) {
    const folder = source.slice(0, source.lastIndexOf('/'));
    pkg.addRelationships(
      source,
      media.map((m) => {
        pkg.parts.set(m.part, m.bytes);
        pkg.addContentTypeDefault(m.format.extension, m.format.contentType);
        return { id: m.relId, type: IMAGE_REL, target: path.posix.relative(folder, m.part) };
      }),
    );
  }
}

/** Each block repetition's chart: a copy of the template's chart part showing that repetition's rows. */
function addCharts(pkg: OoxmlPackage, sink: MediaSink): void {
  let n = 0;
  for (const [source, charts] of sink.chartEntries()) {
    const templateRels = new Map(pkg.relationships(source).map((rel) => [rel.id, rel]));
    const folder = source.slice(0, source.lastIndexOf('/'));
    pkg.addRelationships(
      source,
      charts.flatMap((chart) => {
        const rel = templateRels.get(chart.templateRelId);
        if (!rel || rel.external) return [];
        const templatePart = OoxmlPackage.resolve(source, rel.target);
        const part = copyChart(pkg, templatePart, ++n);
        fillChart(pkg, { name: chart.name, part, series: chartSeries(pkg, part) }, chart.rows);
        return [{ id: chart.relId, type: CHART_REL, target: path.posix.relative(folder, part) }];
      }),
    );
  }
}

/**
 * Drops what is empty at the end of the body: paragraphs without text, drawing, field or section
 * break (page and line breaks alone count as empty), and breaks that end the last paragraph.
 */
function trimTrailingParagraphs(xml: string): string {
  const { before, content, sectPr, after } = splitBody(xml);
  // Works on an end index into the body, so a long document is not copied for each check.
  let end = trimmedEnd(content, content.length);
  for (;;) {
    if (!content.endsWith('</w:p>', end) && !content.endsWith('/>', end)) break;
    const start = lastParagraphStart(content, end);
    if (start < 0) break;
    const paragraph = content.slice(start, end);
    const selfClosing = paragraph.startsWith('<w:p/>') || /^<w:p [^>]*\/>$/.test(paragraph);
    if (!selfClosing && !paragraph.endsWith('</w:p>')) break;
    // Tab-stop definitions in the paragraph's properties are not content (TX writes them into every paragraph).
    const inline = paragraph.replace(/<w:pPr\b[\s\S]*?<\/w:pPr>/, '');
    if (
      /<w:sectPr\b/.test(paragraph) ||
      /<w:(t|drawing|pict|object|fldChar|fldSimple|instrText|tab|ptab|sym|footnoteReference|endnoteReference|commentReference|ruby)\b/.test(
        inline,
      )
    )
      break;
    // A start found inside a text box or other container belongs to a paragraph we keep.
    if (/<\/(w:txbxContent|w:drawing|w:pict|mc:AlternateContent|w:sdtContent|w:hyperlink|w:tc)>/.test(paragraph)) break;
    const previous = trimmedEnd(content, start);
    if (content.endsWith('</w:tbl>', previous)) break; // a table must not end the body
    end = previous;
  }
  let body = end === content.length ? content : content.slice(0, end);
  // The last paragraph kept may still end with a page break: a blank page after the text.
  if (body.endsWith('</w:p>')) {
    // Only the last paragraph is looked at: the pattern tried at every run of a long body cost
    // 5% of a 20,000-row merge.
    const last = lastParagraphStart(body, body.length);
    const paragraph = body.slice(last);
    const trimmed = paragraph.replace(/(?:<w:r>(?:<w:rPr>(?:(?!<\/w:rPr>)[\s\S])*<\/w:rPr>)?<w:br\b[^>]*\/><\/w:r>\s*)+<\/w:p>$/, '</w:p>');
    if (trimmed !== paragraph) body = body.slice(0, last) + trimmed;
  }
  return before + body + sectPr + after;
}

/** The end of `text` before `end` without trailing white space. */
function trimmedEnd(text: string, end: number): number {
  let i = end;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  return i;
}

/**
 * A part named as a template's author knows it (its body, a header), not by its name in the
 * package, which a TX or DOC template never had.
 */
export function partDescription(name: string): string {
  const file = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  if (/^document\d*\.xml$/.test(file)) return 'the body';
  const numbered = /^(header|footer)(\d*)\.xml$/.exec(file);
  if (numbered) return `${numbered[1]} ${numbered[2] || 1}`;
  const notes = /^(footnotes|endnotes|comments)\.xml$/.exec(file);
  if (notes) return `the ${notes[1]}`;
  return name;
}
