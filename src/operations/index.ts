import { LONG_TABLE_ROWS, longTablePdf } from './longTable.js';
import type { LongTableSplit } from '../ooxml/longTable.js';
import { outputNeedsOffice, type DocumentPipeline } from './io.js';
import type { DocumentSettings } from '../documents/settings.js';
import { rtfChartProblem, type RtfChart } from '../formats/rtf-charts.js';
import { Converter, type Converted } from '../convert/converter.js';
import type { Divider } from '../compose/builder.js';
import {
  detectFormat,
  type DocumentFormat,
  isTemplateFormat,
  requireFormat,
  TEMPLATE_FORMATS,
  type TemplateFormat,
} from '../formats/detect.js';
import { showsComments, type OfficeFormat, type ReturnFormat } from '../formats/returnFormat.js';
import type { MergeOptions } from '../merge/engine.js';
import type { TemplateInfo } from '../merge/info.js';
import type { DataCheck } from '../merge/datacheck.js';
import { contextKey, DEFAULT_TAG_CONTEXT, type TagContext, type TemplateSyntax } from '../merge/syntax/index.js';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { MISSING, Scope, type JsonObject } from '../merge/scope.js';
import { Records } from '../merge/records.js';
import type { Thumbnails, ThumbnailRequest } from '../render/thumbnails.js';
import type { TrackedChange } from '../review/trackedChanges.js';
import type { IncorrectWord, Spelling } from '../proofing/spelling.js';
import type { JsonText } from '../util/json.js';
import { BusyError, InputError, OutputTooLargeError } from '../errors.js';
import { DEFAULT_MAX_PAGES } from '../formats/pdf.js';
import type { DocumentWorkers } from '../workers/pool.js';

/** What every operation may be given by its caller: a way to cancel, and when its time is up. */
export interface WorkContext {
  signal?: AbortSignal;
  /** Epoch ms; synchronous work checks it, since no timer can interrupt it. */
  deadline?: number;
  /** Told where long work is (a background job shows it to its owner). */
  progress?: (progress: WorkProgress) => void;
  /** Told how many parts a long document was laid out in (X-Layout-Parts). */
  laidOutInParts?: (parts: number) => void;
}

/**
 * Records merged, documents converted, one document being laid out by the office (`layout`, no
 * count: the office reports none), that document's pages written (`pages`) or parts joined; `done`
 * of `total` where they are known.
 */
export interface WorkProgress {
  stage: 'merging' | 'joining' | 'converting' | 'layout' | 'pages';
  done?: number;
  total?: number;
}

/** What the merge's thread did to a document bound for the office, and what it found in it. */
interface MergedFor {
  /** Made inert already. */
  inert?: boolean;
  /** Shows per-record page totals (SECTIONPAGES), which the office computes as it lays out. */
  sectionPages?: boolean;
  /** Has fields to recompute (undefined: the converter looks). */
  updateFields?: boolean;
  /** The TX document it was made from: TX output keeps its settings, style sheet and protection. */
  txSource?: Buffer;
}

/** The context without progress: for work whose own steps are not what its caller counts. */
function quiet(ctx: WorkContext): WorkContext {
  return { signal: ctx.signal, deadline: ctx.deadline };
}

/** The office's page reports as progress, when someone follows it. */
function pageProgress(ctx: WorkContext): { loaded?: () => void; pages?: (done: number, total: number) => void } {
  const told = ctx.progress;
  return told ? { loaded: () => told({ stage: 'layout' }), pages: (done, total) => told({ stage: 'pages', done, total }) } : {};
}

/** The office's time on one document: what is left before the deadline. */
function officeTimeout(ctx: WorkContext): number | undefined {
  return ctx.deadline === undefined ? undefined : Math.max(1000, ctx.deadline - Date.now());
}

export interface MergeInput {
  /** The template's bytes (DOCX, DOC, RTF or TX). */
  template: Buffer;
  /** Names the template in messages ("The template" when absent). */
  what?: string;
  records: Records;
  options: MergeOptions;
  document: DocumentSettings;
  format: ReturnFormat;
  append: boolean;
  test: boolean;
  /** The syntax its tags are typed in; absent: Word merge fields. */
  syntax?: TemplateSyntax;
  /** A stored template's content hash (its typed tags are translated once per hash, not per merge). */
  sha256?: string;
  /** What the request gives typed tags (culture, translations). */
  tags?: TagContext;
}

export interface AppendInput {
  documents: { bytes: Buffer; divider: Divider }[];
  document: DocumentSettings;
  format: ReturnFormat;
  test: boolean;
}

export interface OperationParts {
  pipeline: DocumentPipeline;
  workers: DocumentWorkers;
  thumbnails: Thumbnails;
  converter: Converter | null;
  /** Bytes of documents one operation may produce (413 past it); default DEFAULT_MAX_OUTPUT_BYTES. */
  maxOutputBytes?: number;
  /** Pages of a PDF read at most (DOCSMITH_MAX_PAGES); default DEFAULT_MAX_PAGES. */
  maxPages?: number;
  /** Office processes: how many parts of one long document are laid out at once; default 2. */
  officeProcesses?: number;
  /** The dictionaries proofing uses; absent: no proofing here. */
  spelling?: Spelling;
  /** docxtemplater's raw XML tags are merged (DOCSMITH_RAW_XML); refused otherwise. */
  rawXml?: boolean;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 200 * 1024 * 1024;

/**
 * Appended records to PDF from this many on are laid out in parts across the office processes
 * and joined (when the template allows it, ooxml/layout.ts): one office job over a long document
 * uses one core and its layout time grows faster than its length.
 */
export const PARTS_FROM_RECORDS = 200;
/**
 * Records per part: each office job costs a start of its own (small parts lose), and a part's
 * layout grows faster than its length (big parts lose): measured best at 100-200 (bench/long-pdf.ts).
 */
export function partSize(records: number, processes: number): number {
  return Math.min(200, Math.max(100, Math.ceil(records / (2 * processes))));
}

/** Inline templates up to this size (about 0.2 ms of hashing) are hashed on the event loop to reuse their translation. */
const INLINE_HASH_LIMIT = 256 * 1024;

/**
 * The document use cases, one method each: typed input and a work context in, typed output out.
 * The HTTP routes and the CLI call these; quotas, merge slots and time limits are the caller's
 * (UsageGuard) and reach the work as the context's signal and deadline.
 */
export class DocumentOperations {
  /**
   * @param beforeOffice called before any step that needs the office engine (the CLI starts its
   *   office lazily here; the server's is always running).
   */
  constructor(
    private readonly parts: OperationParts,
    private readonly beforeOffice: () => Promise<void> = async () => undefined,
  ) {}

  /** Any template or document as DOCX, starting the office only when the bytes need it (detected once). */
  private async docx(
    bytes: Buffer,
    accepted: readonly ('docx' | 'doc' | 'rtf' | 'tx' | 'html')[],
    what: string,
    ctx: WorkContext,
    known?: DocumentFormat,
  ): Promise<Buffer> {
    const format = known ?? requireFormat(bytes, accepted, what);
    if (format !== 'docx') await this.beforeOffice();
    return this.parts.pipeline.asDocx(bytes, accepted, what, ctx.signal, format);
  }

  /**
   * A template (DOCX, DOC, RTF or TX) as DOCX, its format detected once; tags typed in another
   * syntax as merge fields and blocks. A stored template's translation is kept by its hash: a
   * merge of it then costs no more than one of merge fields.
   */
  private async templateDocx(
    bytes: Buffer,
    what: string,
    ctx: WorkContext,
    format = requireFormat(bytes, TEMPLATE_FORMATS, what),
    syntax: TemplateSyntax = 'word',
    sha256?: string,
    written: TagContext = DEFAULT_TAG_CONTEXT,
  ): Promise<Buffer> {
    const tags = this.parts.rawXml ? { ...written, rawXml: true } : written;
    // An inline template is kept by its hash too, when hashing it here holds no other request up.
    const hash =
      sha256 ?? (syntax !== 'word' && bytes.length <= INLINE_HASH_LIMIT ? createHash('sha256').update(bytes).digest('hex') : undefined);
    const key = syntax !== 'word' && hash ? `${syntax}:${hash}:${contextKey(tags)}` : undefined;
    const kept = key && this.translated.get(key);
    if (kept) return kept;
    const docx = await this.docx(bytes, TEMPLATE_FORMATS, what, ctx, format);
    const translated = await this.parts.workers.translateTags(docx, syntax, what, tags, ctx.signal);
    if (key) this.translated.set(key, translated);
    return translated;
  }

  private readonly translated = new LRUCache<string, Buffer>({
    max: 64,
    maxSize: 256 * 1024 * 1024,
    sizeCalculation: (b) => b.length || 1,
  });

  /** Chart objects of an RTF template, which no merge can bind: looked for in a worker thread when the file has an OLE object at all. */
  private async rtfCharts(bytes: Buffer, format: DocumentFormat, ctx: WorkContext): Promise<RtfChart[]> {
    if (format !== 'rtf' || !bytes.includes('\\objclass')) return [];
    return this.parts.workers.rtfCharts(bytes, ctx.signal);
  }

  /** The request's merge options with what the operator set (raw XML values). */
  private mergeOptions(options: MergeOptions): MergeOptions {
    return this.parts.rawXml ? { ...options, rawXml: true } : options;
  }

  private get maxOutputBytes(): number {
    return this.parts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  }

  /** `bytes` more output on top of `before`: 413 past the limit. */
  private counted(before: number, bytes: number): number {
    if (before + bytes > this.maxOutputBytes) throw new OutputTooLargeError(this.maxOutputBytes);
    return before + bytes;
  }

  private async output(
    docx: Buffer,
    format: ReturnFormat,
    document: DocumentSettings,
    test: boolean,
    ctx: WorkContext,
    merged: MergedFor = {},
  ): Promise<Buffer> {
    if (outputNeedsOffice(format, document.password)) await this.beforeOffice();
    const out = await this.parts.pipeline.output(docx, format, {
      ...document,
      test,
      signal: ctx.signal,
      timeoutMs: officeTimeout(ctx),
      alreadyInert: merged.inert ?? false,
      sectionPages: merged.sectionPages ?? false,
      ...(merged.updateFields !== undefined ? { updateFields: merged.updateFields } : {}),
      ...(merged.txSource ? { txSource: merged.txSource } : {}),
      ...pageProgress(ctx),
    });
    this.counted(0, out.length);
    return out;
  }

  /** One document per record (or all appended), in the return format. The merge runs in a worker thread. */
  async merge(input: MergeInput, ctx: WorkContext = {}): Promise<Buffer[]> {
    const what = input.what ?? 'The template';
    const format = requireFormat(input.template, TEMPLATE_FORMATS, what);
    // A chart the data names would print stale numbers: refused. One no data names stays as drawn.
    const charts = await this.rtfCharts(input.template, format, ctx);
    const chart = charts.find(
      (c) =>
        c.name !== undefined && input.records.objects.some((record) => Scope.of(record, input.options.complement).get(c.name!) !== MISSING),
    );
    if (chart) throw new InputError(`${what} cannot be merged: ${rtfChartProblem(chart)}`);
    const docx = await this.templateDocx(input.template, what, ctx, format, input.syntax, input.sha256, input.tags);
    ctx.progress?.({ stage: 'merging', done: 0, total: input.records.length });
    if (await this.inParts(docx, input, ctx)) return [await this.mergeInParts(docx, input, ctx)];
    // Results bound for the office are made inert in the merge's own thread.
    const inert = outputNeedsOffice(input.format, input.document.password);
    const total = input.records.length;
    const {
      documents: merged,
      sectionPages,
      longTables,
      updateFields,
    } = await this.parts.workers.merge(
      {
        docx,
        records: input.records,
        options: this.mergeOptions(input.options),
        append: input.append,
        deadline: ctx.deadline,
        inert,
        dropComments: inert && input.format !== 'tx' && !showsComments(input.format),
        maxOutputBytes: this.maxOutputBytes,
        ...(this.longTablesLaidOutInParts(input) ? { longTableRows: LONG_TABLE_ROWS } : {}),
      },
      ctx.signal,
      ctx.progress && ((done) => ctx.progress!({ stage: 'merging', done, total })),
    );
    if (sectionPages && !inert) merged[0] = await this.withSectionPages(merged[0]!, ctx);
    const out: Buffer[] = [];
    let bytes = 0;
    for (const [i, document] of merged.entries()) {
      if (input.format !== 'docx') ctx.progress?.({ stage: 'converting', done: out.length, total: merged.length });
      const split = longTables?.[i];
      const converted =
        (split && (await this.longTablePdf(split, input, ctx, bytes))) ??
        (await this.output(document, input.format, input.document, input.test, merged.length > 1 ? quiet(ctx) : ctx, {
          inert,
          sectionPages,
          updateFields: updateFields?.[i],
          ...(format === 'tx' ? { txSource: input.template } : {}),
        }));
      bytes = this.counted(bytes, converted.length);
      out.push(converted);
    }
    return out;
  }

  /** Long tables are laid out in parts for plain PDF output by an office. */
  private longTablesLaidOutInParts(input: MergeInput): boolean {
    return input.format === 'pdf' && !input.document.password && !input.document.accessible && this.parts.converter !== null;
  }

  /**
   * A merged document holding one very long table, to plain PDF: laid out part by part and joined
   * (operations/longTable.ts), or undefined to lay it out whole. Progress counts the table's rows.
   */
  private async longTablePdf(split: LongTableSplit, input: MergeInput, ctx: WorkContext, before: number): Promise<Buffer | undefined> {
    const converter = this.parts.converter;
    if (!converter) return undefined;
    await this.beforeOffice();
    let bytes = before;
    const laid = await longTablePdf(
      split,
      {
        workers: this.parts.workers,
        converter,
        lanes: this.parts.officeProcesses ?? 1,
        count: (n) => (bytes = this.counted(bytes, n)),
        progress: ctx.progress && ((done, total) => ctx.progress!({ stage: 'converting', done, total })),
      },
      { properties: input.document.properties, test: input.test, signal: ctx.signal, timeoutMs: officeTimeout(ctx) },
    );
    if (!laid) return undefined;
    if (laid.parts > 1) {
      ctx.laidOutInParts?.(laid.parts);
      ctx.progress?.({ stage: 'joining', done: laid.parts, total: laid.parts });
    }
    return laid.pdf;
  }

  /** Whether to lay out this merge's appended records in parts: many records to plain PDF, a template that allows it. */
  private async inParts(docx: Buffer, input: MergeInput, ctx: WorkContext): Promise<boolean> {
    // Parts joined would not make one structure tree: accessible output is laid out whole.
    if (!input.append || input.format !== 'pdf' || input.document.password || input.document.accessible || !this.parts.converter)
      return false;
    if (input.records.length < PARTS_FROM_RECORDS) return false;
    return this.parts.workers.laysOutInParts(docx, ctx.signal);
  }

  /**
   * Appended records laid out in parts: each part merged in a worker thread and laid out by an
   * office process, as many at once as there are processes (one more request waits for one part at
   * most, not for the whole document), then the PDFs joined in page order in a worker thread. The
   * pages are those of one layout: records start on pages of their own and nothing in the template
   * refers across records.
   */
  private async mergeInParts(docx: Buffer, input: MergeInput, ctx: WorkContext): Promise<Buffer> {
    await this.beforeOffice();
    const total = input.records.length;
    const size = partSize(total, this.parts.officeProcesses ?? 2);
    const starts = Array.from({ length: Math.ceil(total / size) }, (_, i) => i * size);
    const pdfs: Buffer[] = new Array<Buffer>(starts.length);
    let next = 0;
    let merged = 0;
    let bytes = 0;
    const lane = async () => {
      while (next < starts.length) {
        const part = next++;
        const records = Records.of(input.records.objects.slice(starts[part], starts[part]! + size));
        const { documents, updateFields } = await this.parts.workers.merge(
          {
            docx,
            records,
            options: this.mergeOptions(input.options),
            append: true,
            deadline: ctx.deadline,
            inert: true,
            dropComments: true,
            maxOutputBytes: this.maxOutputBytes,
          },
          ctx.signal,
        );
        pdfs[part] = await this.output(documents[0]!, 'pdf', input.document, input.test, quiet(ctx), {
          inert: true,
          updateFields: updateFields?.[0],
        });
        bytes = this.counted(bytes, pdfs[part].length);
        merged += records.length;
        ctx.progress?.({ stage: 'merging', done: merged, total });
      }
    };
    await Promise.all(Array.from({ length: Math.min(starts.length, this.parts.officeProcesses ?? 2) }, lane));
    ctx.laidOutInParts?.(pdfs.length);
    ctx.progress?.({ stage: 'joining', done: pdfs.length, total: pdfs.length });
    return this.parts.workers.joinPdfs(pdfs, ctx.signal);
  }

  /**
   * Records numbered on their own ("page X of Y" per record) in DOCX: Word computes the totals, but
   * LibreOffice shows the results stored in the file, so the office lays the document out once and
   * each record's page count is stored. Without an office the file stays as merged (Word is right).
   */
  private async withSectionPages(docx: Buffer, ctx: WorkContext): Promise<Buffer> {
    const converter = this.parts.converter;
    if (!converter) return docx;
    await this.beforeOffice();
    const pages = await converter.sectionPageCounts(docx, ctx.signal, officeTimeout(ctx));
    return pages ? this.parts.workers.storeSectionPages(docx, pages, ctx.signal) : docx;
  }

  /** The merged result (all records appended) as page images. */
  async preview(input: Omit<MergeInput, 'format' | 'append'> & { view: ThumbnailRequest }, ctx: WorkContext = {}): Promise<Buffer[]> {
    const [merged] = await this.merge(
      { ...input, format: 'pdf', append: true, document: { properties: input.document.properties, password: undefined } },
      ctx,
    );
    return this.parts.thumbnails.render(merged!, 'pdf', input.view, ctx.signal);
  }

  async findAndReplace(
    input: { template: Buffer; what?: string; pairs: [string, string][]; document: DocumentSettings; format: ReturnFormat; test: boolean },
    ctx: WorkContext = {},
  ): Promise<Buffer> {
    const what = input.what ?? 'The template';
    const from = requireFormat(input.template, TEMPLATE_FORMATS, what);
    const docx = await this.docx(input.template, TEMPLATE_FORMATS, what, ctx, from);
    const replaced = await this.parts.workers.findAndReplace({ docx, pairs: input.pairs }, ctx.signal);
    return this.output(replaced, input.format, input.document, input.test, ctx, from === 'tx' ? { txSource: input.template } : {});
  }

  /** Documents joined in order, each after its divider. */
  async append(input: AppendInput, ctx: WorkContext = {}): Promise<Buffer> {
    const docx: Buffer[] = [];
    for (const [i, entry] of input.documents.entries()) {
      ctx.progress?.({ stage: 'joining', done: i, total: input.documents.length });
      docx.push(await this.docx(entry.bytes, [...TEMPLATE_FORMATS, 'html'], `documents[${i}]`, ctx));
    }
    const joined = await this.parts.workers.append(
      {
        documents: docx,
        dividers: input.documents.slice(1).map((d) => d.divider),
        deadline: ctx.deadline,
      },
      ctx.signal,
    );
    if (input.format !== 'docx') ctx.progress?.({ stage: 'converting' });
    // The joined document has the first one's settings: TX output keeps a first TX document's.
    const first = input.documents[0]?.bytes;
    const firstFormat = first && detectFormat(first);
    const txSource = firstFormat && firstFormat.ok && firstFormat.format === 'tx' ? first : undefined;
    return this.output(joined, input.format, input.document, input.test, ctx, txSource ? { txSource } : {});
  }

  async convert(
    input: { document: Buffer; from: DocumentFormat; format: ReturnFormat; test: boolean; accessible?: boolean },
    ctx: WorkContext = {},
  ): Promise<Converted> {
    if (input.from === 'pdf' && input.format === 'txt') {
      // MuPDF reads the text in a worker thread: a long PDF never holds up other requests.
      return {
        data: Buffer.from(await this.parts.workers.pdfText(input.document, this.parts.maxPages ?? DEFAULT_MAX_PAGES, ctx.signal), 'utf8'),
        officeMs: 0,
      };
    }
    if (input.from === 'pdf' && input.accessible)
      throw new InputError('A PDF passes through convert as it is; accessible=true needs a document to lay out (DOCX, DOC, RTF, HTML).');
    const { from } = input;
    if (input.format === 'tx') return this.toTx({ ...input, format: 'tx' }, ctx);
    if (input.format === 'docx' && isTemplateFormat(from) && !input.accessible) return this.templateAsDocx({ ...input, from }, ctx);
    if (input.from === 'tx') input = { ...input, ...(await this.fromTx(input.document, ctx)) };
    if (input.from !== 'pdf') await this.beforeOffice();
    const converter = this.parts.converter;
    if (!converter) throw new BusyError('Converting documents needs the office engine, which is not running on this server.', 30);
    ctx.progress?.({ stage: 'converting' });
    const converted = await converter.convert(input.document, input.from, input.format as OfficeFormat, {
      test: input.test,
      signal: ctx.signal,
      timeoutMs: officeTimeout(ctx),
      ...(input.accessible ? { accessible: { title: 'Document' } } : {}),
      ...pageProgress(ctx),
    });
    this.counted(0, converted.data.length);
    return converted;
  }

  /**
   * A template (DOCX, TX, DOC, RTF) to DOCX as merges read it: the office's own DOCX export would
   * drop MERGEFIELD switches and block bookmarks, so a converted template keeps its fields, blocks
   * and template info. A DOCX stays itself, made inert.
   */
  private async templateAsDocx(input: { document: Buffer; from: TemplateFormat; test: boolean }, ctx: WorkContext): Promise<Converted> {
    ctx.progress?.({ stage: 'converting' });
    const docx =
      input.from === 'docx'
        ? (await this.parts.workers.inert(input.document, 'docx', ctx.signal, { fields: false })).bytes
        : await this.docx(input.document, [input.from], 'The document', ctx, input.from);
    const data = await this.parts.pipeline.output(docx, 'docx', { properties: {}, test: input.test, signal: ctx.signal });
    this.counted(0, data.length);
    return { data, officeMs: 0 };
  }

  /** Any document as TX: a template as merges read it, anything else through the office's DOCX first. */
  private async toTx(input: { document: Buffer; from: DocumentFormat; format: 'tx'; test: boolean }, ctx: WorkContext): Promise<Converted> {
    if (input.from === 'pdf') throw new InputError('A PDF cannot be converted to TX; convert a DOCX, DOC, RTF or HTML document.');
    const { from } = input;
    const docx = isTemplateFormat(from)
      ? (await this.templateAsDocx({ document: input.document, from, test: false }, ctx)).data
      : (await this.convert({ ...input, format: 'docx', test: false }, ctx)).data;
    const data = await this.parts.pipeline.output(docx, 'tx', {
      properties: {},
      test: input.test,
      signal: ctx.signal,
      ...(from === 'tx' ? { txSource: input.document } : {}),
    });
    this.counted(0, data.length);
    return { data, officeMs: 0 };
  }

  /** A TX document as DOCX for the office, which cannot read TX (formats/tx/). */
  private async fromTx(document: Buffer, ctx: WorkContext): Promise<{ document: Buffer; from: 'docx' }> {
    return { document: await this.docx(document, ['tx'], 'The document', ctx, 'tx'), from: 'docx' };
  }

  async thumbnails(input: { document: Buffer; from: DocumentFormat; view: ThumbnailRequest }, ctx: WorkContext = {}): Promise<Buffer[]> {
    if (input.from === 'tx') input = { ...input, ...(await this.fromTx(input.document, ctx)) };
    if (input.from !== 'pdf') await this.beforeOffice();
    return this.parts.thumbnails.render(input.document, input.from, input.view, ctx.signal);
  }

  async pageCount(input: { document: Buffer; from: DocumentFormat }, ctx: WorkContext = {}): Promise<number> {
    if (input.from === 'tx') input = { ...input, ...(await this.fromTx(input.document, ctx)) };
    if (input.from !== 'pdf') await this.beforeOffice();
    return this.parts.thumbnails.pageCount(input.document, input.from, ctx.signal);
  }

  /** The merge fields and blocks of a template (compiled in a worker thread). */
  async info(template: Buffer, name: string, ctx: WorkContext = {}, syntax: TemplateSyntax = 'word'): Promise<TemplateInfo> {
    const what = `The template "${name}"`;
    const format = requireFormat(template, TEMPLATE_FORMATS, what);
    const info = await this.parts.workers.templateInfo(await this.templateDocx(template, what, ctx, format, syntax), what, ctx.signal);
    // RTF charts became pictures on the way to DOCX: listed with the reason a merge refuses them.
    const rtf =
      format === 'rtf'
        ? (await this.rtfCharts(template, format, ctx)).map((chart) => ({
            name: chart.name ?? '',
            mergeBlock: null,
            series: [],
            problem: rtfChartProblem(chart),
          }))
        : [];
    // What a TX template holds that its DOCX cannot say is named, not dropped in silence.
    const carried = format === 'tx' ? await this.parts.workers.txCarriedOver(template, ctx.signal) : [];
    const warnings = [...(info.warnings ?? []), ...carried];
    return {
      templateName: name,
      ...(syntax !== 'word' ? { templateSyntax: syntax } : {}),
      ...info,
      ...(rtf.length ? { charts: [...(info.charts ?? []), ...rtf] } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  }

  /** What the data leaves empty and what the template never reads (merge/datacheck.ts), in a worker thread. */
  async checkData(
    input: { template: Buffer; what: string; records: Records; syntax?: TemplateSyntax; complement?: JsonObject },
    ctx: WorkContext = {},
  ): Promise<DataCheck> {
    const docx = await this.templateDocx(input.template, input.what, ctx, undefined, input.syntax);
    return this.parts.workers.checkData(docx, input.records, input.what, input.complement, ctx.signal);
  }

  /**
   * Refuses at upload a template no operation could use (a damaged or bomb package, malformed or
   * too deeply nested XML, a DOCTYPE), with the same reader the merge uses, in a worker thread.
   * DOC and RTF are read through the office when it runs (the result is cached for the first
   * merge), else at first use.
   */
  async validateTemplate(bytes: Buffer, name: string, ctx: WorkContext = {}, syntax: TemplateSyntax = 'word'): Promise<void> {
    const what = `The template "${name}"`;
    const format = requireFormat(bytes, TEMPLATE_FORMATS, what);
    if (format !== 'docx' && format !== 'tx' && !this.parts.pipeline.readsLegacyFormats) return;
    await this.parts.workers.templateInfo(await this.templateDocx(bytes, what, ctx, format, syntax), what, ctx.signal);
  }

  /** The tracked changes, read in a worker thread (a package may inflate to hundreds of megabytes). */
  async trackedChanges(document: Buffer, ctx: WorkContext = {}): Promise<TrackedChange[]> {
    return this.parts.workers.trackedChanges(await this.docx(document, TEMPLATE_FORMATS, 'The document', ctx), ctx.signal);
  }

  /** The dictionary for a language, or the 400 listing those there are. */
  dictionaryFor(language: string): void {
    this.spelling.resolve(language);
  }

  /** Misspelled and repeated words (IncorrectWord[] as JSON text), checked in a worker thread under the request's limit. */
  async spellCheck(text: string, language: string, ctx: WorkContext = {}): Promise<JsonText<IncorrectWord[]>> {
    return { json: await this.parts.workers.spellCheck({ ...this.dictionaries, language, text }, ctx.signal) };
  }

  /** Suggestions for a word, best first, in a worker thread. */
  spellSuggest(word: string, language: string, max: number, ctx: WorkContext = {}): Promise<string[]> {
    return this.parts.workers.spellSuggest({ ...this.dictionaries, language, word, max }, ctx.signal);
  }

  private get spelling(): Spelling {
    if (!this.parts.spelling) throw new InputError('Proofing is done by a docsmith server; this one has no dictionaries.');
    return this.parts.spelling;
  }

  private get dictionaries(): { dictionaryDir: string; allowed?: readonly string[] } {
    const { dictionaryDir, allowed } = this.spelling;
    return allowed ? { dictionaryDir, allowed } : { dictionaryDir };
  }

  /** Accepts or rejects one tracked change; the document comes back in its own format. */
  async removeTrackedChange(document: Buffer, id: number, accept: boolean, ctx: WorkContext = {}): Promise<Buffer> {
    const docx = await this.docx(document, TEMPLATE_FORMATS, 'The document', ctx);
    const changed = await this.parts.workers.removeTrackedChange(docx, id, accept, ctx.signal);
    const back = detectFormat(document);
    // The document comes back in its own format.
    if (docx === document) return changed;
    if (back.ok && back.format === 'tx')
      return this.parts.pipeline.output(changed, 'tx', { properties: {}, test: false, signal: ctx.signal, txSource: document });
    const converter = this.parts.converter!;
    return (await converter.convert(changed, 'docx', back.ok ? (back.format as OfficeFormat) : 'docx', { signal: ctx.signal })).data;
  }
}
