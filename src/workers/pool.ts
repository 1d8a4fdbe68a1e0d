import { usableCpus } from '../util/process.js';
import { Piscina } from 'piscina';
import { BusyError, DocsmithError, PayloadTooLargeError, ProcessingTimeoutError } from '../errors.js';
import { sharedCacheCounters } from '../util/cacheStats.js';
import type { Inspection, InspectPages, PageRendering, RenderPages } from '../render/pages.js';
import type { LongTableSplit } from '../ooxml/longTable.js';
import type { OdtRows, Prototype } from '../odf/longTable.js';
import type { RtfChart } from '../formats/rtf-charts.js';
import { MessageChannel, type Transferable } from 'node:worker_threads';
import type { ReaderLog } from '../formats/pdf.js';
import type { AppendTask, FindAndReplaceTask, InertTask, MergeReply, MergeTask, SpellingTask, TaskReply } from './tasks.js';
import type { ParsedBody } from '../util/base64.js';
import type { InlineMerges } from './inline.js';
import { createHash } from 'node:crypto';
import type { TrackedChange } from '../review/trackedChanges.js';
import type { DocumentFormat } from '../formats/detect.js';
import type { InertDocument, InertOptions } from '../inert/index.js';
import type { TemplateInfo } from '../merge/info.js';
import type { DataCheck } from '../merge/datacheck.js';
import type { JsonObject } from '../merge/scope.js';
import type { Records } from '../merge/records.js';
import type { Invoice } from '../formats/einvoice/facturx.js';
import type { TagContext, TemplateSyntax } from '../merge/syntax/index.js';

// Threads run compiled code: beside this file when compiled, from dist/ when run from src/ (tsx).
/**
 * The thread tasks by name: workers/tasks.ts's exports are the one table, so a task's name, what
 * it takes and what it answers are checked where it is asked for.
 */
type TaskTable = typeof import('./tasks.js');
type TaskName = keyof TaskTable;
type TaskInput<K extends TaskName> = Parameters<TaskTable[K]>[0];
type TaskValue<K extends TaskName> = Awaited<ReturnType<TaskTable[K]>> extends TaskReply<infer T> ? T : never;

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

const TASKS_URL = new URL(import.meta.url.endsWith('.ts') ? '../../dist/workers/tasks.js' : './tasks.js', import.meta.url);

/** A template's key for a merge on the event loop (inline.ts), or undefined when it is too large to be one. */
function inlineKey(docx: Uint8Array): string | undefined {
  return docx.length > 256 * 1024 ? undefined : createHash('sha256').update(docx).digest('hex');
}

// Piscina loads the task module with require() first. Node 20's require() of an ES module aborts
// the whole process (a V8 fatal error, SIGABRT) when the process exits while a thread is still
// loading it, as a second stop signal does; import() stops cleanly. So the threads refuse require.
// Given explicitly, the parent's flags are checked as a thread's; a process started by Node 24's
// test runner holds process-wide ones a thread refuses. There the threads inherit the flags as they are.
const NO_REQUIRE_ESM = '--no-experimental-require-module';
const THREAD_ARGV = process.allowedNodeEnvironmentFlags.has(NO_REQUIRE_ESM) ? [...process.execArgv, NO_REQUIRE_ESM] : undefined;
const refusedArgv = (error: unknown) => (error as { code?: unknown }).code === 'ERR_WORKER_INVALID_EXEC_ARGV';

/**
 * Document work that runs in JavaScript (merging, joining documents, find and replace) happens in a pool of worker
 * threads, so that one large request never delays another and a time limit can stop it: an
 * aborted task's thread is terminated.
 */
export class DocumentWorkers implements PageRendering {
  private started: Piscina | undefined;
  /** Tasks handed to the threads and not yet answered. */
  private running = 0;
  /** Merges done on the event loop (inline.ts). */
  readonly stats = { inlineMerges: 0 };
  /** Small merges on the event loop (inline.ts): loaded once a thread has found a template small, not before. */
  private inline: InlineMerges | undefined;
  private inlineLoading: Promise<void> | undefined;
  /** Told once per task what the PDF reader said while it worked (deduplicated and capped in the thread). */
  onReaderLog?: (task: string, log: ReaderLog) => void;

  constructor(
    private readonly size = usableCpus(),
    private readonly limits: {
      workMemoryMb?: number;
      queueLimit?: number;
      terminateAfterMs?: number;
      /** The time a merge on the event loop may take (inline.ts; tests give one no machine overruns). */
      inlineMs?: number;
    } = {},
  ) {}

  private get terminateAfterMs(): number {
    return this.limits.terminateAfterMs ?? 5000;
  }

  /**
   * Started at the first task with every thread at once, and kept: a thread started while a
   * request waits costs that request the start-up (tens of ms). Processes that never merge
   * (account commands) start none.
   */
  // Threads wait for tasks on their event loop, not in Atomics.wait: measured 10% less CPU per
  // merge request under load (8 clients, 100-row DOCX).
  private get pool(): Piscina {
    if (this.started) return this.started;
    try {
      this.started = this.startPool(THREAD_ARGV);
    } catch (error) {
      if (!THREAD_ARGV || !refusedArgv(error)) throw error;
      this.started = this.startPool(undefined);
    }
    return this.started;
  }

  private startPool(execArgv: string[] | undefined): Piscina {
    return new Piscina({
      filename: TASKS_URL.href,
      ...(execArgv ? { execArgv } : {}),
      minThreads: this.size,
      maxThreads: this.size,
      idleTimeout: Infinity,
      maxQueue: this.limits.queueLimit ?? 256,
      atomics: 'disabled',
      // The threads count their cache lookups where /metrics reads them.
      workerData: { cacheCounters: sharedCacheCounters() },
      // A task that needs more heap than this ends its thread (a new one takes its place), not the process.
      ...(this.limits.workMemoryMb ? { resourceLimits: { maxOldGenerationSizeMb: this.limits.workMemoryMb } } : {}),
    });
  }

  get threads(): number {
    return this.started?.threads.length ?? 0;
  }

  /**
   * Merges in a worker thread; `signal` (the request's time limit) terminates the work. The
   * records cross as JSON text: copying a string to a thread costs a fifth of cloning the objects.
   */
  async merge(
    task: Omit<MergeTask, 'records' | 'progress'> & { records: Records },
    signal?: AbortSignal,
    progress?: (done: number) => void,
  ): Promise<Omit<MergeReply, 'documents'> & { documents: Buffer[] }> {
    const { records, ...rest } = task;
    const text = this.recordsText(records);
    // Nothing else is being done in the threads: a small merge may be done here (inline.ts).
    const key = this.running === 0 && !progress && !signal?.aborted ? inlineKey(task.docx) : undefined;
    const inline = key !== undefined ? this.inline?.merge(key, task) : undefined;
    if (inline) {
      this.stats.inlineMerges++;
      return { ...inline, sectionPages: false };
    }
    // Progress crosses on a port of its own; its last message is in before the merge is answered.
    const channel = progress ? new MessageChannel() : undefined;
    const closed = channel && new Promise<void>((resolve) => channel.port1.once('close', resolve));
    channel?.port1.on('message', (done: number) => progress!(done));
    try {
      const reply = await this.run(
        'merge',
        { ...rest, records: text, ...(channel ? { progress: channel.port2 } : {}) } satisfies MergeTask,
        signal,
        channel ? [channel.port2] : [],
      );
      await closed;
      if (key !== undefined && reply.inlineable) this.admitInline(key, task.inert === true);
      return { ...reply, documents: reply.documents.map(asBuffer) };
    } finally {
      channel?.port1.close();
    }
  }

  /** A thread found the template small; bound for the office, its merged package too (admitted apart). */
  private admitInline(key: string, officeBound: boolean): void {
    if (this.inline) return this.inline.admit(key, officeBound);
    this.inlineLoading ??= import('./inline.js').then(
      ({ InlineMerges }) => {
        this.inline = new InlineMerges(this.limits.inlineMs);
      },
      () => undefined,
    );
    void this.inlineLoading.then(() => this.inline?.admit(key, officeBound));
  }

  /** A merged DOCX with each section's measured page count as its SECTIONPAGES results (src/ooxml/section-pages.ts). */
  async storeSectionPages(bytes: Buffer, pages: number[], signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('storeSectionPages', { bytes, pages }, signal);
    return asBuffer(u);
  }

  /** Joins documents (DOCX) in a worker thread. */
  async append(task: AppendTask, signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('append', task, signal);
    return asBuffer(u);
  }

  /** A template's typed tags (docxtemplater's) as merge fields and blocks; the template as it was for Word's. */
  async translateTags(docx: Buffer, syntax: TemplateSyntax, what: string, tags: TagContext, signal?: AbortSignal): Promise<Buffer> {
    if (syntax === 'word') return docx;
    return asBuffer(await this.run('translateTags', { docx, syntax, what, tags }, signal));
  }

  async findAndReplace(task: FindAndReplaceTask, signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('findAndReplace', task, signal);
    return asBuffer(u);
  }

  /** The document made inert (src/inert/) in a worker thread, a DOCX looked through for fields: a large package is read off the event loop. */
  async inert(bytes: Buffer, format: DocumentFormat, signal?: AbortSignal, options: InertOptions = {}): Promise<InertDocument> {
    const { bytes: u, ...facts } = await this.run('inert', { bytes, format, ...options } satisfies InertTask, signal);
    return { bytes: u === null ? bytes : asBuffer(u), ...facts };
  }

  /** A DOCX the office wrote, tidied for Word (src/ooxml/tidy.ts) in a worker thread. */
  async tidy(bytes: Buffer, signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('tidy', { bytes }, signal);
    return u === null ? bytes : asBuffer(u);
  }

  /**
   * Compiles a template (DOCX) in a worker thread: its fields and blocks, or the 400 that says why
   * no merge could use it. A large template never holds up other requests while it is read.
   */
  templateInfo(docx: Buffer, what: string, signal?: AbortSignal): Promise<Omit<TemplateInfo, 'templateName'>> {
    return this.run('info', { docx, what }, signal);
  }

  /** Merge data checked against a template's fields and blocks (merge/datacheck.ts), the records crossing as JSON text. */
  checkData(docx: Buffer, records: Records, what: string, complement?: JsonObject, signal?: AbortSignal): Promise<DataCheck> {
    return this.run('checkData', { docx, what, records: this.recordsText(records), ...(complement ? { complement } : {}) }, signal);
  }

  /**
   * The records as the JSON text a thread parses, refused when the thread could not hold them. A
   * thread's heap limit ends the thread only at best: an allocation too big to fit at once (this
   * text arriving, one long string built) can abort the whole process instead (nodejs/node#47224),
   * so work whose data alone would fill the heap never reaches a thread. The text, the strings
   * parsed from it and the documents made of them: about three times its length.
   */
  private recordsText(records: Records): string {
    const text = records.json;
    const limit = this.limits.workMemoryMb;
    if (limit && text.length * 3 > limit * 1024 * 1024) throw this.outOfMemory();
    return text;
  }

  private outOfMemory(): PayloadTooLargeError {
    return new PayloadTooLargeError(
      `This document work needs more than ${this.limits.workMemoryMb} MB of memory, the server's limit (DOCSMITH_WORK_MEMORY_MB); send less at once (fewer records, smaller documents).`,
    );
  }

  /** Pages of a PDF as images (render/pages.ts); a request's time limit stops the work. */
  renderPages(job: RenderPages, signal?: AbortSignal): Promise<Uint8Array[]> {
    return this.run('renderPages', job, signal);
  }

  /** A TX Text Control document as DOCX (formats/tx/), read in a worker thread. */
  async txToDocx(bytes: Buffer, signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('txToDocx', { bytes }, signal);
    return asBuffer(u);
  }

  /** A DOCX as a TX file (formats/tx/), written in a worker thread; `source`: the TX document it was made from. */
  async docxToTx(bytes: Buffer, test: boolean, signal?: AbortSignal, source?: Buffer): Promise<Buffer> {
    const u = await this.run('docxToTxFile', { bytes, test, ...(source ? { source } : {}) }, signal);
    return asBuffer(u);
  }

  /** Chart objects of an RTF document (formats/rtf-charts.ts), found in a worker thread. */
  /** What a TX document holds that its DOCX cannot say (formats/tx/carried.ts), read in a worker thread. */
  txCarriedOver(bytes: Buffer, signal?: AbortSignal): Promise<string[]> {
    return this.run('txCarriedOver', { bytes }, signal);
  }

  rtfCharts(bytes: Buffer, signal?: AbortSignal): Promise<RtfChart[]> {
    return this.run('rtfCharts', { bytes }, signal);
  }

  /** A PDF's page count and the sizes of the asked pages (render/pages.ts). */
  inspectPages(job: InspectPages, signal?: AbortSignal): Promise<Inspection> {
    return this.run('inspectPages', job, signal);
  }

  /** Whether appended records of this template may be laid out in parts and joined (ooxml/layout.ts). */
  laysOutInParts(docx: Buffer, signal?: AbortSignal): Promise<boolean> {
    return this.run('laysOutInParts', { docx }, signal);
  }

  /** One part of a long table (its main document's markup) packed as a DOCX in a worker thread. */
  async longTablePart(split: LongTableSplit, xml: string, signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('longTablePart', { parts: split.parts, main: split.main, xml }, signal);
    return asBuffer(u);
  }

  /** The office's ODT of a long table's prototype, read in a worker thread (odf/longTable.ts); null: parts stay DOCX. */
  longTableOdt(odt: Buffer, prototype: Prototype, signal?: AbortSignal): Promise<OdtRows | null> {
    return this.run('longTableOdt', { odt, prototype }, signal);
  }

  /** Rows [from, to) of a long table as an ODT part on pages numbered from `page`, made in a worker thread. */
  async longTablePartOdt(
    split: LongTableSplit,
    odt: OdtRows,
    from: number,
    to: number,
    page: number,
    signal?: AbortSignal,
  ): Promise<Buffer> {
    const task = { odt, rows: split.rows.slice(from, to), shapeOf: split.shapes!.of.slice(from, to), page, last: to === split.rows.length };
    const u = await this.run('longTablePartOdt', task, signal);
    return asBuffer(u);
  }

  /** PDFs laid out separately (appended records in parts), joined in a worker thread. */
  async joinPdfs(parts: Buffer[], signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('joinPdfs', { parts }, signal);
    return asBuffer(u);
  }

  /** The PDF signed with the operator's certificate (formats/signature.ts). */
  async signPdf(
    pdf: Buffer,
    key: { p12: Uint8Array; passphrase: string },
    options: { visible: boolean; reason: string },
    signal?: AbortSignal,
  ): Promise<Buffer> {
    const u = await this.run('signPdf', { pdf, ...key, ...options }, signal);
    return asBuffer(u);
  }

  /** Factur-X invoices: the XML sent, checked, or built from each record (formats/einvoice/). */
  einvoices(source: { xml: string } | { records: Records }, signal?: AbortSignal): Promise<Invoice[]> {
    const task = 'xml' in source ? { xml: source.xml } : { records: this.recordsText(source.records) };
    return this.run('einvoices', task, signal);
  }

  /** A PDF/A-3 with its Factur-X invoice attached. */
  async attachFacturX(pdf: Buffer, invoice: Invoice, signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('attachFacturX', { pdf, ...invoice }, signal);
    return asBuffer(u);
  }

  /** The text of a PDF, read with MuPDF in a worker thread (at most `maxPages` pages). */
  pdfText(pdf: Uint8Array, maxPages: number, signal?: AbortSignal): Promise<string> {
    return this.run('pdfText', { pdf, maxPages }, signal);
  }

  /** A document's tracked changes, read in a worker thread. */
  trackedChanges(docx: Buffer, signal?: AbortSignal): Promise<TrackedChange[]> {
    return this.run('trackedChanges', { docx }, signal);
  }

  /** One tracked change accepted or rejected, in a worker thread. */
  async removeTrackedChange(docx: Buffer, id: number, accept: boolean, signal?: AbortSignal): Promise<Buffer> {
    const u = await this.run('removeTrackedChange', { docx, id, accept }, signal);
    return asBuffer(u);
  }

  /** Misspelled and repeated words (IncorrectWord[] as JSON text), checked in a worker thread (each loads a dictionary on first use). */
  spellCheck(task: SpellingTask & { text: string }, signal?: AbortSignal): Promise<string> {
    return this.run('spellCheck', task, signal);
  }

  spellSuggest(task: SpellingTask & { word: string; max: number }, signal?: AbortSignal): Promise<string[]> {
    return this.run('spellSuggest', task, signal);
  }

  /** A job's stored answer as its files, or as one ZIP of them (`document-N.<zipExtension>`), made in a worker thread. */
  async jobResultFiles(json: Buffer, zipExtension: string | null, signal?: AbortSignal): Promise<Buffer[]> {
    return (await this.run('jobResultFiles', { json, zipExtension }, signal)).map(asBuffer);
  }

  /** Documents as one ZIP (`document-N.<extension>`), made in a worker thread. */
  async zipDocuments(documents: Buffer[], extension: string, signal?: AbortSignal): Promise<Buffer> {
    return asBuffer(await this.run('zipDocuments', { documents, extension }, signal));
  }

  /** A request body parsed as JSON in a worker thread (a large one: its text is not scanned on the event loop). */
  parseJson(body: Buffer): Promise<ParsedBody> {
    // A body that owns its memory is handed over, not copied (a copy of 100 MB held the loop 0.3 s).
    const owns = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    return this.run('parseJson', { body }, undefined, owns && body.buffer instanceof ArrayBuffer ? [body.buffer] : []);
  }

  /**
   * Runs a task. When `signal` aborts (the time limit; the usage guard answers the request at
   * once), the task stops itself at its deadline, and only one still running `terminateAfterMs`
   * later has its thread terminated. Terminating a thread inside a native call (zlib) can abort the whole
   * process on Node 20, so it is the last resort, not the first.
   */
  private async run<K extends TaskName>(
    name: K,
    task: TaskInput<K>,
    signal?: AbortSignal,
    transferList: Transferable[] = [],
  ): Promise<TaskValue<K>> {
    let reply: TaskReply<TaskValue<K>>;
    const terminate = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => terminate.abort(signal?.reason), this.terminateAfterMs);
      timer.unref();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    this.running++;
    try {
      reply = await (this.pool.run(task, { name, signal: terminate.signal, transferList }) as Promise<TaskReply<TaskValue<K>>>);
    } catch (error) {
      if (signal?.aborted) {
        // AbortSignal.timeout() (a caller's own limit) aborts with a DOMException: answer the usual 504.
        if ((signal.reason as Error | undefined)?.name === 'TimeoutError')
          throw new ProcessingTimeoutError('Reading the document took longer than the processing limit and was cancelled.');
        throw signal.reason as Error;
      }
      if (/queue is at limit/i.test((error as Error).message)) throw new BusyError('Too much document work is waiting; retry shortly.', 5);
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw this.outOfMemory();
      throw error;
    } finally {
      this.running--;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (reply.log) this.onReaderLog?.(name, reply.log);
    if (reply.ok) return reply.value;
    if (reply.status === 500) throw new Error(`document work failed in its thread: ${reply.message}`);
    throw new DocsmithError(reply.status, reply.message, reply.headers);
  }

  /**
   * Starts the threads and warms each (tasks.ts `warm`): loads the PDF reader, then merges a small
   * letter for about `ms` in all, in slices of 10 ms, so that the first requests do not pay for
   * code compiled as it first runs and a request that comes meanwhile waits for one slice at most.
   * For a server at start-up, off the request path.
   */
  async warm(ms = 150): Promise<void> {
    const pool = this.pool;
    const slice = 10;
    for (let done = 0; done === 0 || done < ms; done += slice) {
      const task = { first: done === 0, ms: done === 0 ? 0 : slice };
      await Promise.all(Array.from({ length: this.size }, () => pool.run(task, { name: 'warm' }).catch(() => undefined)));
    }
  }

  /**
   * Ends the threads. A thread still loading its module when it is terminated can abort the whole
   * process on Node 20 (a fatal error in module instantiation, seen at shutdown under load), so
   * each thread is first given a no-op task, which it takes only once loaded; at most 10 s.
   */
  async close(): Promise<void> {
    const pool = this.started;
    if (!pool) return;
    const loaded = Promise.all(Array.from({ length: pool.threads.length }, () => pool.run({}, { name: 'loaded' }).catch(() => undefined)));
    await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await pool.destroy();
  }
}
