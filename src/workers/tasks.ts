/**
 * The worker-thread side of document work: each export is a task the pool runs by name. Runs
 * compiled (dist/workers/tasks.js). Errors cross back as plain data with their HTTP status.
 */
import { zipSync, type Zippable } from 'fflate';
import { DocsmithError, ProcessingTimeoutError } from '../errors.js';
import { DocumentBuilder, type Divider } from '../compose/builder.js';
import { findAndReplace as replaceAll } from '../merge/replace.js';
import { signPdf as signPdfBytes } from '../formats/signature.js';
import { ciiBasicXml } from '../formats/einvoice/cii.js';
import { attachFacturX as attachInvoice, conformanceLevel } from '../formats/einvoice/facturx.js';
import type { Invoice } from '../formats/einvoice/facturx.js';
import { joinPdfs as joinPdfParts, mupdf as loadPdfReader, pdfText as readPdfText, withReaderLog, type ReaderLog } from '../formats/pdf.js';
import { TemplateCache } from '../merge/cache.js';
import { TranslationCache, type TagContext, type TemplateSyntax } from '../merge/syntax/index.js';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS, type MergeOptions } from '../merge/engine.js';
import type { JsonObject } from '../merge/scope.js';
import type { TemplateInfo } from '../merge/info.js';
import { checkData as checkDataOf, type DataCheck } from '../merge/datacheck.js';
import type { DocumentFormat } from '../formats/detect.js';
import { workerData, type MessagePort } from 'node:worker_threads';
import { inertForOffice, type InertDocument, type InertOptions } from '../inert/index.js';
import { rtfCharts as findRtfCharts, type RtfChart } from '../formats/rtf-charts.js';
import { readTx, type TxFileKept } from '../formats/tx/read.js';
import { txCarriedOver as carriedOver } from '../formats/tx/carried.js';
import { hasSvgPictures, txToDocx as writeTxDocx } from '../formats/tx/docx.js';
import { docxToTx } from '../formats/tx/fromDocx.js';
import { writeTx } from '../formats/tx/write.js';
import {
  inspectPages as readPages,
  renderPages as drawPages,
  type Inspection,
  type InspectPages,
  type RenderPages,
} from '../render/pages.js';
import { useSharedCacheCounters } from '../util/cacheStats.js';
import { tidyOfficeDocx } from '../ooxml/tidy.js';
import { laysOutInParts as laysOutInPartsOf } from '../ooxml/layout.js';
import { longTablePartDocx, type LongTableSplit } from '../ooxml/longTable.js';
import { newDocx } from '../ooxml/newPackage.js';
import { longTablePartOdt as longTablePartOdtOf, odtRows, type OdtRows, type Prototype } from '../odf/longTable.js';
import { showsSectionPages, storeSectionPages as storeSectionPagesIn } from '../ooxml/section-pages.js';
import { OoxmlPackage } from '../ooxml/package.js';
import { INLINE_PACKAGE_BYTES, INLINE_TEMPLATE_CHARS } from './inline.js';
import { forOffice } from './forOffice.js';
import { addWatermark, TEST_WATERMARK } from '../ooxml/watermark.js';
import { holdsSvg, loadSvgRasteriser, type SvgRasteriser } from '../render/svg.js';
import { listTrackedChanges, removeTrackedChange as removeChange, type TrackedChange } from '../review/trackedChanges.js';
import { Spelling } from '../proofing/spelling.js';
import { parseJsonBody } from '../util/json.js';
import { parseRecordsText } from '../merge/records.js';
import { withDecodedBase64, type ParsedBody } from '../util/base64.js';

export interface MergeTask {
  docx: Uint8Array;
  /** The records as JSON text. */
  records: string;
  options: MergeOptions;
  append: boolean;
  deadline?: number;
  /** Make each document inert too: it goes to the office next. */
  inert?: boolean;
  /** Bound for output that never shows comments (`inert` only): they are left out (ooxml/comments.ts). */
  dropComments?: boolean;
  /** The merged documents together may not be larger (413 past it). */
  maxOutputBytes?: number;
  /** Where to say how many records are merged (about twenty times in all); closed when the merge ends. */
  progress?: MessagePort;
  /** Bound for PDF: cut each document's table of at least this many rows for a layout in parts (ooxml/longTable.ts). */
  longTableRows?: number;
}

export interface InertTask extends InertOptions {
  bytes: Uint8Array;
  format: DocumentFormat;
}

/** The inert document's bytes, or null when nothing needed removing (they need not travel back); for a DOCX, whether it has fields to recompute. */
export type InertReply = Omit<InertDocument, 'bytes'> & { bytes: Uint8Array | null };

/** A task's answer: the result, or the error as the API would answer it. */
/** A task's answer; `log`: what the PDF reader said meanwhile, for the pool to log once (formats/pdf.ts). */
export type TaskReply<T> = ({ ok: true; value: T } | { ok: false; status: number; message: string; headers: Record<string, string> }) & {
  log?: ReaderLog;
};

export interface AppendTask {
  documents: Uint8Array[];
  /** The divider before each document after the first. */
  dividers: Divider[];
  deadline?: number;
}

export interface InfoTask {
  docx: Uint8Array;
  /** Names the template in messages. */
  what: string;
}

export interface FindAndReplaceTask {
  docx: Uint8Array;
  pairs: [string, string][];
}

// Counted where the main thread's /metrics reads (util/cacheStats.ts).
const shared = (workerData as { cacheCounters?: SharedArrayBuffer } | null)?.cacheCounters;
if (shared) useSharedCacheCounters(shared);

// Each thread keeps its own compiled templates, by content hash.
const templates = new TemplateCache(32);
const translations = new TranslationCache(32);

function failure(error: unknown): TaskReply<never> {
  const log = (error as { readerLog?: ReaderLog } | null)?.readerLog;
  const reply = (r: TaskReply<never>): TaskReply<never> => (log ? { ...r, log } : r);
  if (error instanceof DocsmithError) return reply({ ok: false, status: error.status, message: error.message, headers: error.headers });
  return reply({ ok: false, status: 500, message: (error as Error)?.stack ?? String(error), headers: {} });
}

/** PDF reading work, with what MuPDF said while it read. */
async function reading<T>(work: () => Promise<T>): Promise<TaskReply<T>> {
  try {
    const { value, log } = await withReaderLog(work);
    return log ? { ok: true, value, log } : { ok: true, value };
  } catch (error) {
    return failure(error);
  }
}

let rasteriser: Promise<SvgRasteriser> | undefined;

/** The merged documents; `sectionPages`: they show per-record page totals (SECTIONPAGES), which only a layout can give. */
export interface MergeReply {
  documents: Uint8Array[];
  sectionPages: boolean;
  /** Bound for the office (`inert`): per document, whether it has fields to recompute (ooxml/fields.ts). */
  updateFields?: boolean[];
  /** Per document, its long table cut at its rows, or null (with `longTableRows`). */
  longTables?: (LongTableSplit | null)[];
  /** The template is small enough for its small merges to be done on the event loop (workers/inline.ts); bound for the office, its merged package too. */
  inlineable?: boolean;
}

export async function merge(task: MergeTask): Promise<TaskReply<MergeReply>> {
  try {
    const template = templates.get(Buffer.from(task.docx.buffer, task.docx.byteOffset, task.docx.byteLength));
    const records = parseRecordsText(task.records);
    // A result bound for the office gets what it shows (vector barcodes and SVG); DOCX gets what Word shows (PNG over SVG).
    const rasterise = !task.inert && holdsSvg(records) ? await (rasteriser ??= loadSvgRasteriser()) : undefined;
    // About twenty steps whatever the count: a progress bar moves, the port is not flooded.
    const step = Math.max(1, Math.ceil(records.length / 20));
    let said = 0;
    const progress = task.progress
      ? (done: number) => {
          if (done - said < step && done < records.length) return;
          said = done;
          task.progress!.postMessage(done);
        }
      : undefined;
    const merged = template.merge(records, task.options, task.append, {
      deadline: task.deadline,
      maxBytes: task.maxOutputBytes,
      officeBound: task.inert,
      rasterise,
      progress,
    });
    const office = task.inert ? forOffice(merged, { comments: !task.dropComments, longTableRows: task.longTableRows }) : undefined;
    const documents = office?.documents ?? merged;
    // Bound for the office, the office computes them as it lays out (office/bridge.py fill_section_pages); DOCX gets them stored.
    const sectionPages = task.append && records.length > 1 && template.restartsPageNumbers() && showsSectionPages(merged[0]!);
    const small = template.renderedChars() <= INLINE_TEMPLATE_CHARS && !template.drawsBarcodes();
    return {
      ok: true,
      value: {
        documents: documents.map((d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength)),
        sectionPages,
        longTables: office?.longTables,
        updateFields: office?.updateFields,
        // Bound for the office, its whole package must be small too: the event loop makes it inert.
        inlineable:
          small && (!office || (office.packageBytes.length === 1 && (office.packageBytes[0] ?? Infinity) <= INLINE_PACKAGE_BYTES)),
      },
    };
  } catch (error) {
    return failure(error);
  } finally {
    task.progress?.close();
  }
}

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** Compiles a template and answers its fields and blocks; the thread keeps it compiled for merges. */
export function info(task: InfoTask): TaskReply<Omit<TemplateInfo, 'templateName'>> {
  try {
    return { ok: true, value: templates.get(asBuffer(task.docx), task.what).info };
  } catch (error) {
    return failure(error);
  }
}

/** Merge data checked against a template's fields and blocks (merge/datacheck.ts): a walk over every record. */
export function checkData(task: InfoTask & { records: string; complement?: JsonObject }): TaskReply<DataCheck> {
  try {
    return {
      ok: true,
      value: checkDataOf(templates.get(asBuffer(task.docx), task.what).info, parseRecordsText(task.records), task.complement),
    };
  } catch (error) {
    return failure(error);
  }
}

const asBytes = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/** The document made inert (src/inert/), as InertReply says. */
export function inert(task: InertTask): TaskReply<InertReply> {
  try {
    const bytes = asBuffer(task.bytes);
    const { bytes: result, ...facts } = inertForOffice(bytes, task.format, task);
    return { ok: true, value: { bytes: result === bytes ? null : asBytes(result), ...facts } };
  } catch (error) {
    return failure(error);
  }
}

/** A DOCX the office wrote, tidied for Word (src/ooxml/tidy.ts), or null when it needed nothing. */
export function tidy(task: { bytes: Uint8Array }): TaskReply<Uint8Array | null> {
  try {
    const bytes = asBuffer(task.bytes);
    const result = tidyOfficeDocx(bytes);
    return { ok: true, value: result === bytes ? null : asBytes(result) };
  } catch (error) {
    return failure(error);
  }
}

/** A merged DOCX with each section's SECTIONPAGES results stored (ooxml/section-pages.ts). */
export function storeSectionPages(task: { bytes: Uint8Array; pages: number[] }): TaskReply<Uint8Array> {
  try {
    return { ok: true, value: asBytes(storeSectionPagesIn(asBuffer(task.bytes), task.pages)) };
  } catch (error) {
    return failure(error);
  }
}

/**
 * A TX Text Control document read and written as DOCX (formats/tx/), or the 400 that names what it
 * cannot read. SVG pictures get the PNG Word shows (the rasteriser loads only for them).
 */
export async function txToDocx(task: { bytes: Uint8Array }): Promise<TaskReply<Uint8Array>> {
  try {
    const doc = readTx(asBuffer(task.bytes));
    const rasterise = hasSvgPictures(doc) ? await (rasteriser ??= loadSvgRasteriser()) : undefined;
    return { ok: true, value: asBytes(writeTxDocx(doc, rasterise)) };
  } catch (error) {
    return failure(error);
  }
}

/** What a TX document holds that its DOCX cannot say (formats/tx/carried.ts), for the template's info. */
export function txCarriedOver(task: { bytes: Uint8Array }): TaskReply<string[]> {
  try {
    return { ok: true, value: carriedOver(readTx(asBuffer(task.bytes))) };
  } catch (error) {
    return failure(error);
  }
}

/** The last TX source's kept records: every document of a merge is written from the same template, read once. */
let lastSource: { bytes: Buffer; kept: TxFileKept | undefined } | undefined;
function keptRecordsOf(source: Buffer): TxFileKept | undefined {
  if (!lastSource?.bytes.equals(source)) lastSource = { bytes: Buffer.from(source), kept: readTx(source).keptFile };
  return lastSource.kept;
}

/**
 * A DOCX written as TX (formats/tx/), a test run's mark as a header line; or the 400 that names what
 * TX cannot hold. `source`: the TX document it was made from, whose settings and style sheet it keeps.
 */
export function docxToTxFile(task: { bytes: Uint8Array; test: boolean; source?: Uint8Array }): TaskReply<Uint8Array> {
  try {
    let docx = asBuffer(task.bytes);
    if (task.test) {
      const pkg = OoxmlPackage.read(docx);
      addWatermark(pkg, TEST_WATERMARK, pkg.mainDocument(), 'line');
      docx = pkg.toBuffer();
    }
    const kept = task.source ? keptRecordsOf(asBuffer(task.source)) : undefined;
    return { ok: true, value: asBytes(writeTx(docxToTx(docx, kept))) };
  } catch (error) {
    return failure(error);
  }
}

/** Chart objects of an RTF template (formats/rtf-charts.ts): a walk over a file that may be large. */
export function rtfCharts(task: { bytes: Uint8Array }): TaskReply<RtfChart[]> {
  try {
    return { ok: true, value: findRtfCharts(asBuffer(task.bytes)) };
  } catch (error) {
    return failure(error);
  }
}

/** Pages of a PDF drawn as images (render/pages.ts); MuPDF loads in the thread on first use. */
export function renderPages(task: RenderPages): Promise<TaskReply<Uint8Array[]>> {
  return reading(() => drawPages(task));
}

/** A PDF's page count and the asked pages' sizes (render/pages.ts). */
export function inspectPages(task: InspectPages): Promise<TaskReply<Inspection>> {
  return reading(() => readPages(task));
}

export function append(task: AppendTask): TaskReply<Uint8Array> {
  try {
    const builder = new DocumentBuilder(asBuffer(task.documents[0]!), 'documents[0]');
    task.documents.slice(1).forEach((d, i) => {
      if (task.deadline !== undefined && Date.now() > task.deadline)
        throw new ProcessingTimeoutError('Joining the documents took longer than the processing limit and was cancelled.');
      builder.append(asBuffer(d), task.dividers[i]!, `documents[${i + 1}]`);
    });
    return { ok: true, value: asBytes(builder.toBuffer()) };
  } catch (error) {
    return failure(error);
  }
}

/** A template whose tags are typed in another product's syntax, as merge fields and blocks (merge/syntax/). */
export function translateTags(task: { docx: Uint8Array; syntax: TemplateSyntax; what: string; tags: TagContext }): TaskReply<Uint8Array> {
  try {
    return { ok: true, value: translations.get(task.docx, task.syntax, task.what, task.tags) };
  } catch (error) {
    return failure(error);
  }
}

export function findAndReplace(task: FindAndReplaceTask): TaskReply<Uint8Array> {
  try {
    return { ok: true, value: asBytes(replaceAll(asBuffer(task.docx), task.pairs)) };
  } catch (error) {
    return failure(error);
  }
}

export function pdfText(task: { pdf: Uint8Array; maxPages: number }): Promise<TaskReply<string>> {
  return reading(() => readPdfText(task.pdf, task.maxPages));
}

/** Whether the template's appended records may be laid out in parts (ooxml/layout.ts). */
export function laysOutInParts(task: { docx: Uint8Array }): TaskReply<boolean> {
  try {
    const template = templates.get(asBuffer(task.docx));
    return { ok: true, value: laysOutInPartsOf(asBuffer(task.docx), template.restartsPageNumbers()) };
  } catch (error) {
    return failure(error);
  }
}

/** One part of a long table as a DOCX package. */
export function longTablePart(task: { parts: [string, Uint8Array][]; main: string; xml: string }): TaskReply<Uint8Array> {
  try {
    return { ok: true, value: asBytes(longTablePartDocx(task, task.xml)) };
  } catch (error) {
    return failure(error);
  }
}

/** The office's ODT of a long table's prototype, read for parts to be made from (odf/longTable.ts); null: parts stay DOCX. */
export function longTableOdt(task: { odt: Uint8Array; prototype: Prototype }): TaskReply<OdtRows | null> {
  try {
    return { ok: true, value: odtRows(task.odt, task.prototype) };
  } catch (error) {
    return failure(error);
  }
}

/** One part of a long table as an ODT package (odf/longTable.ts). */
export function longTablePartOdt(task: {
  odt: OdtRows;
  rows: string[];
  shapeOf: number[];
  page: number;
  last: boolean;
}): TaskReply<Uint8Array> {
  try {
    return { ok: true, value: longTablePartOdtOf(task.odt, task.rows, task.shapeOf, task.page, task.last) };
  } catch (error) {
    return failure(error);
  }
}

/** PDFs laid out separately, as one (formats/pdf.ts joinPdfs). */
export function joinPdfs(task: { parts: Uint8Array[] }): Promise<TaskReply<Uint8Array>> {
  return reading(() => joinPdfParts(task.parts));
}

/** A PDF signed with the operator's certificate (formats/signature.ts). */
export async function signPdf(task: {
  pdf: Uint8Array;
  p12: Uint8Array;
  passphrase: string;
  visible: boolean;
  reason: string;
}): Promise<TaskReply<Uint8Array>> {
  try {
    const signed = await signPdfBytes(
      task.pdf,
      { p12: task.p12, passphrase: task.passphrase },
      { visible: task.visible, reason: task.reason },
    );
    return { ok: true, value: asBytes(signed) };
  } catch (error) {
    return failure(error);
  }
}

/** Factur-X invoices: the XML sent (its level read), or one built from each record. */
export function einvoices(task: { xml: string } | { records: string }): TaskReply<Invoice[]> {
  try {
    if ('xml' in task) return { ok: true, value: [{ xml: task.xml, level: conformanceLevel(task.xml) }] };
    const records = parseRecordsText(task.records);
    return { ok: true, value: records.map((record, i) => ({ xml: ciiBasicXml(record, `record ${i + 1}`), level: 'BASIC' })) };
  } catch (error) {
    return failure(error);
  }
}

/** A PDF/A-3 with its Factur-X invoice attached (formats/einvoice/facturx.ts). */
export async function attachFacturX(task: { pdf: Uint8Array; xml: string; level: string }): Promise<TaskReply<Uint8Array>> {
  try {
    return { ok: true, value: asBytes(await attachInvoice(task.pdf, task.xml, task.level)) };
  } catch (error) {
    return failure(error);
  }
}

/** Nothing: a thread that answers it has its module loaded (see DocumentWorkers.close). */
export function loaded(): TaskReply<null> {
  return { ok: true, value: null };
}

/** A letter with a field and a table block: enough of the merge's code paths to warm them. */
function warmTemplate(): Buffer {
  const field = (name: string) =>
    `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> MERGEFIELD ${name} </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>«${name}»</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>`;
  const cell = (content: string) => `<w:tc><w:p>${content}</w:p></w:tc>`;
  const body =
    `<w:p><w:r><w:t xml:space="preserve">Dear </w:t></w:r>${field('name')}</w:p>` +
    `<w:tbl><w:tblGrid><w:gridCol w:w="4000"/><w:gridCol w:w="4000"/></w:tblGrid>` +
    `<w:tr>${cell(field('TableStart:items') + field('item'))}${cell(field('amount') + field('TableEnd:items'))}</w:tr></w:tbl><w:p/>`;
  return newDocx(`${body}<w:sectPr/>`);
}

/** The warm-up's letter, compiled once per thread (every slice merges it). */
let warmLetter: CompiledTemplate | undefined;

/**
 * Warms a new thread (DocumentWorkers.warm sends it in slices): the first slice loads the PDF reader
 * (MuPDF, about 0.2 s and 35 MB); every slice merges a small letter over and over for `ms`, as a
 * request would (to DOCX, and bound for the office: made inert, its long table looked for). A
 * thread's first merge costs most of a second (module code compiled as it first runs), and V8
 * optimises the merge's code only after hundreds of runs: a one-page PDF's merge took 2.5-4 ms in a
 * thread that had merged 50 documents, 0.6-1.3 ms in one warmed this way.
 */
export async function warm(task: { first?: boolean; ms?: number } = {}): Promise<TaskReply<null>> {
  try {
    if (task.first) await loadPdfReader();
    const template = (warmLetter ??= CompiledTemplate.compile(warmTemplate()));
    const items = Array.from({ length: 8 }, (_, i) => ({ item: `Item ${i}`, amount: i * 1.5 }));
    const until = performance.now() + (task.ms ?? 0);
    let officeBound = false;
    do {
      const [merged] = template.merge([{ name: 'Ann', items }], DEFAULT_MERGE_OPTIONS, false, { officeBound });
      if (officeBound) forOffice([merged!], { comments: true, longTableRows: items.length + 1 });
      officeBound = !officeBound;
    } while (performance.now() < until);
    return { ok: true, value: null };
  } catch (error) {
    return failure(error);
  }
}

/** A document's tracked changes (review/trackedChanges.ts): a large package is unzipped here, not on the event loop. */
export function trackedChanges(task: { docx: Uint8Array }): TaskReply<TrackedChange[]> {
  try {
    return { ok: true, value: listTrackedChanges(asBuffer(task.docx)) };
  } catch (error) {
    return failure(error);
  }
}

/** One tracked change accepted or rejected. */
export function removeTrackedChange(task: { docx: Uint8Array; id: number; accept: boolean }): TaskReply<Uint8Array> {
  try {
    return { ok: true, value: asBytes(removeChange(asBuffer(task.docx), task.id, task.accept)) };
  } catch (error) {
    return failure(error);
  }
}

/** Each thread loads a dictionary on first use and keeps it (per folder and allowed list). */
const spellings = new Map<string, Spelling>();

function spellingFor(dictionaryDir: string, allowed: readonly string[] | undefined): Spelling {
  const key = `${dictionaryDir}\0${allowed?.join(',') ?? '*'}`;
  let spelling = spellings.get(key);
  if (!spelling) spellings.set(key, (spelling = new Spelling(dictionaryDir, allowed)));
  return spelling;
}

export interface SpellingTask {
  dictionaryDir: string;
  allowed?: readonly string[];
  language: string;
}

/** Misspelled and repeated words of a text (proofing/spelling.ts), as JSON text: a long list is not serialised on the event loop. */
export async function spellCheck(task: SpellingTask & { text: string }): Promise<TaskReply<string>> {
  try {
    return { ok: true, value: JSON.stringify(await spellingFor(task.dictionaryDir, task.allowed).check(task.text, task.language)) };
  } catch (error) {
    return failure(error);
  }
}

/** Suggestions for a word, best first. */
export async function spellSuggest(task: SpellingTask & { word: string; max: number }): Promise<TaskReply<string[]>> {
  try {
    return { ok: true, value: await spellingFor(task.dictionaryDir, task.allowed).suggest(task.word, task.language, task.max) };
  } catch (error) {
    return failure(error);
  }
}

/**
 * A large request body parsed as JSON (util/json.ts), and its long Base64 strings (documents)
 * decoded beside it (util/base64.ts): neither is done on the event loop.
 */
export function parseJson(task: { body: Uint8Array }): TaskReply<ParsedBody> {
  try {
    return { ok: true, value: withDecodedBase64(parseJsonBody(asBuffer(task.body))) };
  } catch (error) {
    return failure(error);
  }
}

/**
 * A job's stored answer (a Base64 document as a JSON string, or an array of them) as its files:
 * each document's bytes, or all of them in one ZIP (stored, not compressed again: PDF and DOCX are).
 */
export function jobResultFiles(task: { json: Uint8Array; zipExtension: string | null }): TaskReply<Uint8Array[]> {
  try {
    const parsed = JSON.parse(Buffer.from(task.json.buffer, task.json.byteOffset, task.json.byteLength).toString('utf8')) as unknown;
    const texts = (Array.isArray(parsed) ? parsed : [parsed]).filter((t): t is string => typeof t === 'string');
    const documents = texts.map((text) => asBytes(Buffer.from(text, 'base64')));
    if (task.zipExtension === null) return { ok: true, value: documents };
    return { ok: true, value: [documentsZip(documents, task.zipExtension)] };
  } catch (error) {
    return failure(error);
  }
}

/** Documents as one ZIP, `document-N.<extension>`, stored (they are compressed formats or small). */
function documentsZip(documents: Uint8Array[], extension: string): Uint8Array {
  const files: Zippable = {};
  documents.forEach((d, i) => (files[`document-${i + 1}.${extension}`] = [d, { level: 0 }]));
  return zipSync(files);
}

/** A document answer's files as one ZIP (Accept: application/zip on a document endpoint). */
export function zipDocuments(task: { documents: Uint8Array[]; extension: string }): TaskReply<Uint8Array> {
  try {
    return { ok: true, value: documentsZip(task.documents, task.extension) };
  } catch (error) {
    return failure(error);
  }
}
