/**
 * A document with one very long table to PDF, laid out part by part (ooxml/longTable.ts): each
 * part starts at a true page start (the header rows, then the first row of the previous part's
 * last page), the office keeps the part's pages but its last, and the kept pages are joined. The
 * office never lays out one table of thousands of rows, whose time grows much faster than its
 * rows, and the pages are those of one layout.
 */
import type { Converter, ConvertOptions, LaidPart } from '../convert/converter.js';
import type { PartStart, TableBreak } from '../office/process.js';
import { longTablePartXml, type LongTableSplit } from '../ooxml/longTable.js';
import { prototypeOf, type OdtRows } from '../odf/longTable.js';
import type { DocumentWorkers } from '../workers/pool.js';

/** Tables from this many rows are laid out in parts: below it one layout is as fast (bench/long-table.ts). */
export const LONG_TABLE_ROWS = 2000;
/** Rows per part: a few pages, enough for a page break to fall inside; doubled when none does. */
export const PART_ROWS = 800;
const MAX_PART_ROWS = 6400;
/** Rows a part laid out ahead begins before the end of the part before it, until pages have been seen. */
const FIRST_MARGIN = 200;
/** Pages' worth of rows a part ahead begins before the end of the part before it. */
const MARGIN_PAGES = 3;

/**
 * Parts laid out since start: in turn (from a known page start), ahead (and kept), or ahead and
 * dropped; parts ahead that kept their layout as it was (their true start began one of their
 * pages); and those read from ODT.
 */
export const longTableParts = { inTurn: 0, ahead: 0, discarded: 0, keptLayout: 0, fromOdt: 0 };

export interface LongTableWork {
  workers: DocumentWorkers;
  converter: Converter;
  /** Office processes this table may use at once: parts ahead run only on processes nobody waits for. */
  lanes: number;
  /** Rows laid out so far, of all. */
  progress?: (done: number, total: number) => void;
  /** Bytes of output so far: throws past the operation's limit. */
  count: (bytes: number) => void;
}

/** Rows [from, to) of the table on pages numbered from `page`. */
interface Part {
  from: number;
  to: number;
  page: number;
  last: boolean;
}

type Laid = LaidPart | undefined | null;

interface Flight {
  part: Part;
  /** Laid out ahead: from rows before its true start, which it is told once the part before is done. */
  ahead: boolean;
  /** Tells a part ahead where it starts (null: drop it); once only, later calls do nothing. */
  start: (start: PartStart | null) => void;
  /** Resolves once the part has its office process (true) or was not run (false). */
  started: Promise<boolean>;
  /** Where the part breaks, told before its pages are exported; undefined once `laid` settles without it. */
  broke: Promise<TableBreak | undefined>;
  laid: Promise<Laid>;
}

/** A part whose break was used but whose pages did not come: the document is laid out whole. */
class PartLost extends Error {}

/**
 * The PDF and the number of parts, or undefined: the document is to be laid out whole.
 *
 * Where a part breaks is known only once it is laid out, but a page's layout depends only on the
 * row that starts it. So, on office processes nobody waits for, the next part is laid out at once
 * from a few pages before the end of the part before it; when that part is done, the one ahead
 * drops the rows before the true break (which lays out again only what follows, quickly), is
 * numbered from the true page and goes on as if it had started there. A part ahead that does not
 * cover the true break is dropped and laid out in turn.
 */
export async function longTablePdf(
  split: LongTableSplit,
  work: LongTableWork,
  options: ConvertOptions,
): Promise<{ pdf: Buffer; parts: number } | undefined> {
  const total = split.rows.length;
  const headerRows = split.headerRows.length;
  // Each kept part's pages, in order; a part's export may still run while the next goes on.
  const exported: Promise<Buffer>[] = [];
  let at = { from: 0, page: split.firstPage };
  let size = PART_ROWS;
  // How far before the end of the part before it a part ahead begins: a few pages' rows (the most
  // rows a page held so far), widened each time a part ahead began after the true break.
  let perPage: number | undefined;
  let widen = 1;
  // The rows of the last page a part kept, and whether every page of that part (not the first)
  // held as many. Then a part ahead begun that many rows on from a true page start begins a true
  // page too, with a known number, and when told where it starts it only leaves pages out: one
  // page before the end of the part before it is enough.
  let rowsOnPage: number | undefined;
  let uniform = false;
  const margin = () =>
    Math.min(PART_ROWS, (uniform && rowsOnPage ? rowsOnPage : perPage ? Math.ceil(perPage * MARGIN_PAGES) + 1 : FIRST_MARGIN) * widen);
  const pageStartBefore = (row: number, page: number) => {
    if (!rowsOnPage || row <= at.from) return { from: row, page };
    const pages = Math.floor((row - at.from) / rowsOnPage);
    return { from: at.from + pages * rowsOnPage, page: at.page + pages };
  };
  let flight: Flight[] = [];
  // A kept part's pages, counted against the output limit as they come; the first failure stops the parts after it.
  let failed: unknown;
  const pagesOf = (laid: Promise<Laid>): Promise<Buffer> => {
    const pages = laid.then((result) => {
      if (!result) throw new PartLost();
      work.count(result.data.length);
      return result.data;
    });
    pages.catch((error: unknown) => (failed ??= error)); // awaited in order later
    return pages;
  };

  // Parts read from ODT made from the office's own ODT of a prototype (odf/longTable.ts), when the
  // rows allow: the first part has one of its own, with what precedes the table, when that is plain.
  const odt = split.shapes ? odtParts(split, split.shapes.prototype, false, work, options) : Promise.resolve(null);
  const firstOdt = split.shapes?.first ? odtParts(split, split.shapes.first, true, work, options) : Promise.resolve(null);

  // Parts whose break is known while their pages are still exported: their processes are not free yet.
  const exporting = new Set<Promise<Laid>>();

  const launch = (part: Part, after?: Flight): Flight => {
    const freeing = Promise.allSettled([...exporting]);
    let started!: (run: boolean) => void;
    let start!: (start: PartStart | null) => void;
    let broke!: (found: TableBreak | undefined) => void;
    const told = new Promise<PartStart | null>((resolve) => (start = resolve));
    const flight: Flight = {
      part,
      ahead: after !== undefined,
      start,
      started: new Promise((resolve) => (started = resolve)),
      broke: new Promise((resolve) => (broke = resolve)),
      laid: Promise.resolve(null),
    };
    flight.laid = (async (): Promise<Laid> => {
      const rows = await (part.from > 0 ? odt : firstOdt);
      const document =
        rows && (!part.last || rows.end.last !== null)
          ? {
              bytes: await work.workers.longTablePartOdt(split, rows, part.from, part.to, part.page, options.signal),
              format: 'odt' as const,
              updateFields: split.updateFields,
            }
          : {
              bytes: await work.workers.longTablePart(split, longTablePartXml(split, part.from, part.to, part.page), options.signal),
              format: 'docx' as const,
              updateFields: split.updateFields,
            };
      if (after && !(await after.started)) return null;
      if (after) await freeing; // a part ahead takes a process only once one is done exporting, or none is spare
      const laid = await work.converter.longTablePart(document, { headerRows, last: part.last }, options, {
        ...(after ? { held: () => told } : {}),
        broke,
        started,
      });
      if (laid && document.format === 'odt') longTableParts.fromOdt++;
      if (laid?.leftOut !== undefined) longTableParts.keptLayout++;
      return laid;
    })().finally(() => {
      started(false);
      broke(undefined);
    });
    flight.laid.catch(() => undefined); // a part dropped may fail unheard; one that counts is awaited
    return flight;
  };

  try {
    for (;;) {
      if (failed) break; // Promise.all below says what
      if (flight.length === 0) flight.push(launch(partFrom(at.from, at.page, size, total)));
      while (flight.length < work.lanes && !flight.at(-1)!.part.last) {
        const before = flight.at(-1)!.part;
        const start = pageStartBefore(before.to - margin(), before.page);
        const from = Math.max(before.from + 1, start.from);
        flight.push(launch(partFrom(from, start.page, size + margin(), total), flight.at(-1)));
      }
      const next = flight.shift()!;
      let { part } = next;
      if (next.ahead) {
        // The part before is done: `at` is where this one truly starts.
        if (part.from > at.from || at.from >= part.to - 1) {
          widen *= 2;
          flight = drop([next, ...flight]); // begun after the true break (or too near its end): laid out in turn
          continue;
        }
        next.start({ trim: at.from - part.from, page: at.page });
        part = { ...part, from: at.from, page: at.page };
      }
      const found = part.last ? undefined : await next.broke;
      if (found) {
        // Known before the part's pages are exported: the next part goes on meanwhile.
        if (found.restart < 1) return undefined;
        exported.push(pagesOf(next.laid));
        const laid = next.laid;
        exporting.add(laid);
        void laid.catch(() => undefined).finally(() => exporting.delete(laid));
      } else {
        const result = await next.laid;
        if (result === null) {
          flight = drop(flight); // no spare process for it, or the office failed on it: laid out in turn
          continue;
        }
        if (!result) {
          // No page of the part could start the next one (rows taller than pages): a bigger part.
          flight = drop(flight);
          if (part.last || part.to - part.from >= MAX_PART_ROWS) return undefined;
          size = Math.min(MAX_PART_ROWS, (part.to - part.from) * 2);
          continue;
        }
        exported.push(pagesOf(next.laid));
      }
      longTableParts[next.ahead ? 'ahead' : 'inTurn']++;
      if (part.last) break;
      const broken = found ?? (await next.laid)!.tableBreak;
      const { restart, keep } = broken;
      size = PART_ROWS;
      perPage = Math.max(perPage ?? 0, restart / keep);
      rowsOnPage = broken.rowsOnPage;
      uniform = rowsOnPage !== undefined && part.from > 0 && restart === keep * rowsOnPage;
      at = { from: part.from + restart, page: part.page + keep };
      work.progress?.(at.from, total);
    }
    const pdfs = await Promise.all(exported).catch((error: unknown) => {
      if (error instanceof PartLost) return undefined;
      throw error;
    });
    if (!pdfs) return undefined;
    work.progress?.(total, total);
    return { pdf: pdfs.length === 1 ? pdfs[0]! : await work.workers.joinPdfs(pdfs, options.signal), parts: pdfs.length };
  } finally {
    drop(flight);
  }
}

/**
 * The rows of a long table ready to be made into ODT parts: the prototype converted by the office and
 * read; null when any step fails (the parts are then DOCX, which the office reads too).
 */
async function odtParts(
  split: LongTableSplit,
  prototype: string,
  first: boolean,
  work: LongTableWork,
  options: ConvertOptions,
): Promise<OdtRows | null> {
  try {
    const docx = await work.workers.longTablePart(split, prototype, options.signal);
    const odt = await work.converter.longTablePrototype(docx, options);
    return odt && (await work.workers.longTableOdt(odt, prototypeOf(split, first), options.signal));
  } catch {
    return null; // the parts meet the same trouble (a time limit, an abort) and say so
  }
}

/** A part of `size` rows from `from`, the last when it reaches the table's end. */
function partFrom(from: number, page: number, size: number, total: number): Part {
  const to = Math.min(total, from + size);
  return { from, to, page, last: to === total };
}

/** Gives up parts laid out ahead (a part waiting to be told where it starts is told to drop): those that ran are counted. */
function drop(flight: Flight[]): Flight[] {
  for (const { start, started } of flight) {
    start(null);
    void started.then((run) => run && longTableParts.discarded++);
  }
  return [];
}
