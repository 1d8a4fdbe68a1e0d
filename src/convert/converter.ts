import { DocsmithError, InputError } from '../errors.js';
import { FORMAT_NAMES, readCompound, wordVersion, type DocumentFormat, type WordVersion } from '../formats/detect.js';
import { RETURN_EXTENSIONS, showsComments, type OfficeFormat } from '../formats/returnFormat.js';
import { DOCX_IMPORT_FILTER, exportSpec, ODT_FILTER, type DocumentFamily } from '../office/filters.js';
import { OfficeCrashError, OfficeJobError, type OfficeJob, type PartStart, type TableBreak } from '../office/process.js';
import { LONG_TABLE_BOOKMARK } from '../ooxml/longTable.js';
import { convertOnce, type OneShotOptions } from '../office/oneshot.js';
import type { OfficePool } from '../office/pool.js';
import { checkPdf } from '../formats/pdf.js';
import { unwrapHtmlText } from './html.js';
import { inertForOffice, type InertDocument, type InertOptions } from '../inert/index.js';
import { TEST_WATERMARK } from '../ooxml/watermark.js';
import type { DocumentProperties } from '../ooxml/properties.js';
import { tidyOfficeDocx } from '../ooxml/tidy.js';
import { docxNeedsFieldUpdate } from '../ooxml/fields.js';

/** Document properties written into every output that can carry them. */
export interface ConvertOptions {
  properties?: DocumentProperties;
  password?: string;
  /** Test run: a TEST MODE watermark on every page. */
  test?: boolean;
  signal?: AbortSignal;
  /** The office's time on this document (default: the pool's limit); background jobs have their own. */
  timeoutMs?: number;
  /** The caller made the input inert already (a merge result, in its worker thread). */
  alreadyInert?: boolean;
  /** Whether the office recomputes the DOCX's fields; default: read from the document (ooxml/fields.ts). */
  updateFields?: boolean;
  /** The document shows per-section page totals (SECTIONPAGES): the office computes them as it lays out. */
  sectionPages?: boolean;
  /** Tagged PDF/UA output; `title` names a document that has no title of its own. */
  accessible?: { title: string };
  /** PDF/A-3b output (an e-invoice's carrier). */
  pdfa3?: boolean;
  /** Told once the office has read the document and lays it out (a long step it reports nothing of). */
  loaded?: () => void;
  /** Told the pages written of the document's pages while the office exports them. */
  pages?: (done: number, total: number) => void;
}

/** Makes a document inert (src/inert/) and says whether a DOCX has fields to recompute; the server does it in a worker thread. */
export type InertStep = (bytes: Buffer, format: DocumentFormat, signal?: AbortSignal, options?: InertOptions) => Promise<InertDocument>;
/** A DOCX the office wrote, made as Word reads it (src/ooxml/tidy.ts); the server runs it in a worker thread. */
export type TidyStep = (bytes: Buffer, signal?: AbortSignal) => Promise<Buffer>;

export interface Converted {
  data: Buffer;
  /** Time the office spent on the job (0 when it was not needed). */
  officeMs: number;
}

export const TEST_MODE_TITLE = 'ReportingCloud Test Mode';

// TX never reaches the office: it is read into DOCX first (formats/tx/).
const EXTENSIONS: Record<DocumentFormat, string> = {
  docx: 'docx',
  doc: 'doc',
  rtf: 'rtf',
  html: 'html',
  pdf: 'pdf',
  xlsx: 'xlsx',
  tx: 'docx',
};

function officeProperties(p: DocumentProperties | undefined): Record<string, string> | undefined {
  if (!p) return undefined;
  const out: Record<string, string> = {};
  if (p.author !== undefined) out.Author = p.author;
  if (p.title !== undefined) out.Title = p.title;
  if (p.subject !== undefined) out.Subject = p.subject;
  if (p.creatorApplication !== undefined) out.Generator = p.creatorApplication;
  if (p.creationDate) out.CreationDate = p.creationDate.toISOString();
  if (p.lastModificationDate) out.ModificationDate = p.lastModificationDate.toISOString();
  return Object.keys(out).length ? out : undefined;
}

/** A long table's part as the office laid it out: its pages, where it breaks, and the pages of a part laid out ahead left out before its true start. */
export interface LaidPart {
  data: Buffer;
  tableBreak: TableBreak;
  /** A part laid out ahead that kept its layout (its true start began one of its pages): the pages before that one, left out. */
  leftOut?: number;
}

/** Turns documents of any readable format into any return format through the office pool. */
export class Converter {
  /** Documents go to the office as bytes: each office process stages them in the only folder it can see. */
  constructor(
    private readonly pool: OfficePool,
    private readonly oneShot?: OneShotOptions,
    private readonly inert: InertStep = async (bytes, format, _signal, options) => inertForOffice(bytes, format, options),
    private readonly tidy: TidyStep = async (bytes) => tidyOfficeDocx(bytes),
  ) {}

  /**
   * The office crashed on this document twice (LibreOffice 7.4 crashes loading some documents
   * over UNO that it converts on the command line). A one-off process converts it: straight to
   * the result when the job needs nothing else, or else to ODT, which the pool then loads to
   * apply the properties, watermark and password, so no setting is lost on this path.
   */
  private async fallback(job: OfficeJob, crash: Error, signal?: AbortSignal): Promise<{ data: Buffer | null; officeMs: number }> {
    if (!this.oneShot || job.inputPassword) {
      if (crash instanceof OfficeJobError) throw mapJobError(crash);
      throw new InputError('The office engine failed on this document twice; it cannot be processed with these settings.');
    }
    const started = Date.now();
    const direct = !job.watermark && !job.properties && !(job.password && job.ooxml);
    const calc = job.filter.startsWith('calc_');
    const native = { filter: calc ? 'calc8' : ODT_FILTER, extension: calc ? 'ods' : 'odt' };
    let normalised: Buffer | undefined;
    try {
      normalised = await convertOnce(
        direct ? job : { input: job.input, output: { extension: native.extension }, filter: native.filter },
        this.oneShot,
      );
    } catch {
      throw new InputError(`The office engine could not process this document (${crash.message}).`);
    }
    if (direct) return { data: normalised ?? null, officeMs: Date.now() - started };
    try {
      const result = await this.pool.run(
        { ...job, input: { bytes: normalised!, extension: native.extension }, inputFilter: native.filter },
        signal,
      );
      return { data: result.data ?? null, officeMs: Date.now() - started };
    } catch (error) {
      throw error instanceof OfficeJobError
        ? mapJobError(error)
        : new InputError(`The office engine could not process this document (${(error as Error).message}).`);
    }
  }

  async convert(input: Buffer, from: DocumentFormat, to: OfficeFormat, options: ConvertOptions = {}): Promise<Converted> {
    if (from === 'pdf') return this.fromPdf(input, to, options);
    if (from === 'doc' && !readCompound(input)) return this.fromUnreadableDoc(input, to, options);
    const family: DocumentFamily = from === 'xlsx' ? 'calc' : 'writer';
    const spec = {
      ...exportSpec(family, to, options.password, { accessible: options.accessible !== undefined, pdfa3: options.pdfa3 }),
      ...(options.accessible ? { titleFallback: options.accessible.title } : {}),
    };
    // Nothing in a document may make the office read a file or fetch a URL (the sandbox is the second line).
    const inert: InertDocument = options.alreadyInert
      ? { bytes: input }
      : await this.inert(input, from, options.signal, showsComments(to) ? {} : { comments: false });
    const source = inert.bytes;
    const result = await this.runOffice(
      source,
      from,
      to,
      {
        ...spec,
        // Recomputing fields costs the office time in proportion to the document; page numbers need none.
        ...(from === 'docx' && !(options.updateFields ?? inert.updateFields ?? docxNeedsFieldUpdate(source))
          ? { refreshFields: false }
          : {}),
        properties: officeProperties(options.properties),
        watermark: options.test ? TEST_WATERMARK : undefined,
        sectionPages: options.sectionPages,
        ...(options.pages ? { onPages: options.pages } : {}),
        ...(options.loaded ? { onLoaded: options.loaded } : {}),
      },
      options.signal,
      options.timeoutMs,
    );
    // An encrypted DOCX is a compound file, not a package: nothing to tidy.
    const data = to === 'docx' && !options.password ? await this.tidy(result.data, options.signal) : result.data;
    return { data: this.finish(data, to, options), officeMs: result.officeMs };
  }

  private finish(data: Buffer, to: OfficeFormat, options: ConvertOptions): Buffer {
    if (to === 'txt' && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return data.subarray(3);
    if (to === 'html') {
      const html = unwrapHtmlText(data.toString('utf8'));
      if (!options.test) return Buffer.from(html);
      const titled = /<title>[\s\S]*?<\/title>/i.test(html)
        ? html.replace(/<title>[\s\S]*?<\/title>/i, `<title>${TEST_MODE_TITLE}</title>`)
        : html.replace(/<head([^>]*)>/i, `<head$1><title>${TEST_MODE_TITLE}</title>`);
      return Buffer.from(titled);
    }
    return data;
  }

  /**
   * A DOC our reader cannot take apart cannot be made inert, yet the office may read it (fuzzed
   * and damaged files often are). Only a fully sandboxed office gets it, to turn it into DOCX with
   * nothing recomputed; that DOCX is made inert like any other before anything else is done.
   */
  private async fromUnreadableDoc(input: Buffer, to: OfficeFormat, options: ConvertOptions): Promise<Converted> {
    const damaged = 'The DOC document is damaged (its OLE compound structure cannot be read)';
    if (!this.oneShot?.sandbox.confinesFiles)
      throw new InputError(`${damaged}; this server reads such files only in a fully sandboxed office, which it does not have.`);
    let docx: { data: Buffer; officeMs: number };
    try {
      docx = await this.runOffice(
        input,
        'doc',
        'docx',
        { ...exportSpec('writer', 'docx'), refreshFields: false },
        options.signal,
        options.timeoutMs,
      );
    } catch (error) {
      if (error instanceof InputError) throw new InputError(`${damaged}, and the office could not read it either.`);
      throw error;
    }
    if (to === 'docx' && !options.test && !options.password && !options.properties)
      return {
        data: await this.tidy((await this.inert(docx.data, 'docx', options.signal, { fields: false })).bytes, options.signal),
        officeMs: docx.officeMs,
      };
    const result = await this.convert(docx.data, 'docx', to, options);
    return { data: result.data, officeMs: docx.officeMs + result.officeMs };
  }

  /** A PDF passes through as PDF; its text is read in a worker thread by operations/ (MuPDF), not here. */
  private async fromPdf(input: Buffer, to: OfficeFormat, options: ConvertOptions): Promise<Converted> {
    if (to === 'pdf' && !options.test && !options.password) {
      await checkPdf(input);
      return { data: input, officeMs: 0 };
    }
    throw new InputError(
      `PDF documents can be converted to TXT${options.test || options.password ? '' : ' or PDF'} only; ${to.toUpperCase()} output needs a DOCX, DOC, RTF or HTML source.`,
    );
  }

  /**
   * Each section's page count as the office lays the DOCX out, or undefined when it cannot say
   * (the office failed on it, or the answer makes no sense): used for stored field results.
   */
  async sectionPageCounts(docx: Buffer, signal?: AbortSignal, timeoutMs?: number): Promise<number[] | undefined> {
    const { bytes: source } = await this.inert(docx, 'docx', signal, { fields: false });
    try {
      // Straight to the pool: a crash gets no command-line fallback, which would export instead of measuring.
      const result = await this.pool.run(
        {
          input: { bytes: source, extension: 'docx' },
          output: { extension: 'none' },
          filter: 'Text',
          inputFilter: inputFilterFor('docx', source),
          measure: 'sectionPages',
        },
        signal,
        timeoutMs,
      );
      return result.sectionPages;
    } catch (error) {
      if (signal?.aborted) throw error;
      return undefined;
    }
  }

  /**
   * One part of a long table to PDF (ooxml/longTable.ts): the pages a following part does not lay
   * out again, and where that part starts; undefined when the office finds no such page or fails
   * on the part (the caller lays the document out whole). The input is inert already; its fields are
   * recomputed unless `updateFields` is false (page numbers only, ooxml/fields.ts). A part laid
   * out ahead (`held`: made from rows before its true start, asked where it starts once laid out)
   * runs only on a spare process, and is null when there is none, when it is dropped or when the
   * office fails on it; `started(true)` is called once the part has a process or waits for one
   * (what is queued after it comes after it), else `started(false)`; `broke` is told where the part
   * breaks before its pages are exported.
   */
  async longTablePart(
    document: { bytes: Buffer; format: 'docx' | 'odt'; updateFields?: boolean },
    part: { headerRows: number; last: boolean },
    options: ConvertOptions,
    flow: { held?: () => Promise<PartStart | null>; broke?: (tableBreak: TableBreak) => void; started?: (run: boolean) => void } = {},
  ): Promise<LaidPart | undefined | null> {
    try {
      if (flow.held && !this.pool.spare) return null;
      const run = this.pool.run(
        {
          ...exportSpec('writer', 'pdf'),
          input: { bytes: document.bytes, extension: document.format },
          output: { extension: 'pdf' },
          inputFilter: document.format === 'odt' ? ODT_FILTER : inputFilterFor('docx', document.bytes),
          ...(document.updateFields === false ? { refreshFields: false } : {}),
          properties: officeProperties(options.properties),
          watermark: options.test ? TEST_WATERMARK : undefined,
          tableBreak: { bookmark: LONG_TABLE_BOOKMARK, ...part },
          ...(flow.held ? { onHeld: flow.held } : {}),
          ...(flow.broke ? { onBroke: flow.broke } : {}),
        },
        options.signal,
        options.timeoutMs,
      );
      flow.started?.(true);
      const result = await run;
      if (result.dropped) return null;
      const data = result.tableBreak ? result.data : null;
      return data && data.length > 0
        ? { data, tableBreak: result.tableBreak!, ...(result.leftOut !== undefined ? { leftOut: result.leftOut } : {}) }
        : undefined;
    } catch (error) {
      // The office failing on the part: the whole document gets its chance (a part ahead: it is laid
      // out in turn); time limits, aborts and a full queue stand.
      if (options.signal?.aborted || !(error instanceof OfficeJobError || error instanceof OfficeCrashError)) throw error;
      return flow.held ? null : undefined;
    } finally {
      flow.started?.(false);
    }
  }

  /**
   * A long table's prototype (ooxml/longTable.ts `rowShapes`, inert already) as the office's ODT,
   * which parts are then made from (odf/longTable.ts); null when the office fails on it.
   */
  async longTablePrototype(docx: Buffer, options: Pick<ConvertOptions, 'signal' | 'timeoutMs'>): Promise<Buffer | null> {
    try {
      const result = await this.pool.run(
        {
          input: { bytes: docx, extension: 'docx' },
          output: { extension: 'odt' },
          filter: ODT_FILTER,
          inputFilter: inputFilterFor('docx', docx),
          refreshFields: false,
          viewless: true,
        },
        options.signal,
        options.timeoutMs,
      );
      return result.data ?? null;
    } catch (error) {
      if (options.signal?.aborted || !(error instanceof OfficeJobError || error instanceof OfficeCrashError)) throw error;
      return null;
    }
  }

  private async runOffice(
    source: Buffer,
    from: DocumentFormat,
    to: OfficeFormat,
    job: Omit<OfficeJob, 'input' | 'output'>,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<{ data: Buffer; officeMs: number }> {
    const full: OfficeJob = {
      ...job,
      input: { bytes: source, extension: EXTENSIONS[from] },
      output: { extension: RETURN_EXTENSIONS[to] },
      inputFilter: inputFilterFor(from, source),
    };
    let result: { data?: Buffer | null; officeMs: number };
    try {
      result = await this.pool.run(full, signal, timeoutMs);
    } catch (error) {
      // A crash (twice) or a failed export of a document that loaded may be the UNO path's
      // trouble rather than the document's: the command line gets one try.
      const officeTrouble = error instanceof OfficeCrashError || (error instanceof OfficeJobError && error.code === 'export_failed');
      if (!officeTrouble) throw mapJobError(error);
      result = await this.fallback(full, error as Error, signal);
    }
    // The office "succeeds" without writing anything when it cannot really read a file.
    if (!result.data || result.data.length === 0)
      throw new InputError(`The ${FORMAT_NAMES[from]} document could not be read; it may be damaged.`);
    return { data: result.data, officeMs: result.officeMs };
  }
}

const DOC_FILTERS: Record<WordVersion, string> = { word97: 'MS Word 97', word95: 'MS Word 95', word6: 'MS WinWord 6.0' };

/** Forcing the import filter stops the office from guessing (and reading junk as text). */
function inputFilterFor(format: DocumentFormat, bytes: Uint8Array): string {
  switch (format) {
    case 'docx':
      return DOCX_IMPORT_FILTER;
    case 'doc':
      return DOC_FILTERS[wordVersion(bytes)];
    case 'rtf':
      return 'Rich Text Format';
    case 'html':
      return 'HTML (StarWriter)';
    case 'xlsx':
      return 'Calc MS Excel 2007 XML';
    case 'pdf':
      return '';
    case 'tx':
      throw new Error('TX documents are read into DOCX before they reach the office');
  }
}

function mapJobError(error: unknown): Error {
  if (!(error instanceof OfficeJobError)) return error as Error;
  switch (error.code) {
    case 'password':
      return new InputError('The document is password-protected; remove the password and send it again.');
    case 'load_failed':
      return new InputError(`The document could not be read; it may be damaged (${error.message}).`);
    case 'export_failed':
      return new InputError(`The document could not be written in the requested format (${error.message}).`);
    default:
      return new DocsmithError(500, `The office engine refused the job: ${error.message}`);
  }
}
