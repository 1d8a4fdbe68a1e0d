/**
 * A document with one very long table to PDF, laid out part by part (ooxml/longTable.ts): each
 * part starts at a true page start (the header rows, then the first row of the previous part's
 * last page), the office keeps the part's pages but its last, and the kept pages are joined. The
 * office never lays out one table of thousands of rows, whose time grows much faster than its
 * rows, and the pages are those of one layout.
 */
import type { Converter, ConvertOptions } from '../convert/converter.js';
import type { TableBreak } from '../office/process.js';
import { longTablePartXml, type LongTableSplit } from '../ooxml/longTable.js';
import type { DocumentWorkers } from '../workers/pool.js';

/** Tables from this many rows are laid out in parts: below it one layout is as fast (bench/long-table.ts). */
export const LONG_TABLE_ROWS = 2000;
/** Rows per part: a few pages, enough for a page break to fall inside; doubled when none does. */
export const PART_ROWS = 800;
const MAX_PART_ROWS = 6400;
/** Plans that missed after which a table's pages are taken not to repeat: its parts are laid out in turn. */
const MAX_MISSES = 2;

/** Parts laid out since start: in turn (from a known page start), ahead (planned, and kept), or ahead and discarded. */
export const longTableParts = { inTurn: 0, ahead: 0, discarded: 0 };

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

/** Rows [from, to) of the table on pages numbered from `page`; `prefer`: where the next part is planned to start, `pages` later. */
interface Part {
  from: number;
  to: number;
  page: number;
  last: boolean;
  prefer?: number;
  pages?: number;
}

type Laid = { data: Buffer; tableBreak: TableBreak } | undefined | null;

interface Flight {
  part: Part;
  guess: boolean;
  /** Resolves once the part has its office process (true) or was not run (false). */
  started: Promise<boolean>;
  laid: Promise<Laid>;
}

/**
 * The PDF and the number of parts, or undefined: the document is to be laid out whole.
 *
 * Pages depend only on the row that starts them, so once a part shows a steady number of rows per
 * page, the parts after it are planned at the rows where pages will start and laid out at once on
 * spare office processes; each is kept when the part before it breaks where planned, and the
 * rest is laid out again from the true break when it does not.
 */
export async function longTablePdf(
  split: LongTableSplit,
  work: LongTableWork,
  options: ConvertOptions,
): Promise<{ pdf: Buffer; parts: number } | undefined> {
  const total = split.rows.length;
  const headerRows = split.headerRows.length;
  const pdfs: Buffer[] = [];
  let at = { from: 0, page: split.firstPage };
  let period: number | undefined;
  let misses = 0;
  let size = PART_ROWS;
  let flight: Flight[] = [];

  const launch = (part: Part, after?: Flight): Flight => {
    let started!: (run: boolean) => void;
    const flight: Flight = {
      part,
      guess: after !== undefined,
      started: new Promise((resolve) => (started = resolve)),
      laid: Promise.resolve(null),
    };
    flight.laid = (async (): Promise<Laid> => {
      const docx = await work.workers.longTablePart(split, longTablePartXml(split, part.from, part.to, part.page), options.signal);
      if (after && !(await after.started)) return null;
      return work.converter.longTablePart(docx, { headerRows, last: part.last, ...(part.prefer ? { prefer: part.prefer } : {}) }, options, {
        guess: after !== undefined,
        started,
      });
    })().finally(() => started(false));
    flight.laid.catch(() => undefined); // a guess given up may fail unheard; one that counts is awaited
    return flight;
  };

  for (;;) {
    if (flight.length === 0) {
      flight.push(
        launch(
          period
            ? planned(at, period, total)
            : { from: at.from, to: Math.min(total, at.from + size), page: at.page, last: at.from + size >= total },
        ),
      );
    }
    while (period && flight.length < work.lanes && !flight.at(-1)!.part.last) {
      const before = flight.at(-1)!.part;
      flight.push(launch(planned({ from: before.from + before.prefer!, page: before.page + before.pages! }, period, total), flight.at(-1)));
    }
    const { part, laid, guess } = flight.shift()!;
    const result = await laid;
    if (result === null) {
      flight = drop(flight); // no spare process for it: it is laid out in turn
      continue;
    }
    if (!result) {
      // No page of the part could start the next one (rows taller than pages): a bigger part.
      flight = drop(flight);
      if (part.last || part.to - part.from >= MAX_PART_ROWS) return undefined;
      period = undefined;
      size = Math.min(MAX_PART_ROWS, (part.to - part.from) * 2);
      continue;
    }
    const { restart, keep } = result.tableBreak;
    if (!part.last && restart < 1) return undefined;
    pdfs.push(result.data);
    longTableParts[guess ? 'ahead' : 'inTurn']++;
    work.count(result.data.length);
    if (part.last) break;
    size = PART_ROWS;
    at = { from: part.from + restart, page: part.page + keep };
    if (restart !== part.prefer || keep !== part.pages) {
      if (part.prefer !== undefined) misses++;
      period = misses < MAX_MISSES ? result.tableBreak.period : undefined;
      flight = drop(flight); // planned from a break that did not come
    }
    work.progress?.(at.from, total);
  }
  work.progress?.(total, total);
  return { pdf: pdfs.length === 1 ? pdfs[0]! : await work.workers.joinPdfs(pdfs, options.signal), parts: pdfs.length };
}

/** Gives up parts laid out ahead: those that ran are counted as discarded. */
function drop(flight: Flight[]): Flight[] {
  for (const { started } of flight) void started.then((run) => run && longTableParts.discarded++);
  return [];
}

/** The part from a page start when pages hold `period` rows: whole pages to about PART_ROWS, and one page more to see the next start. */
function planned(at: { from: number; page: number }, period: number, total: number): Part {
  const pages = Math.max(1, Math.floor(PART_ROWS / period));
  const prefer = pages * period;
  if (at.from + prefer + period >= total) return { from: at.from, to: total, page: at.page, last: true };
  return { from: at.from, to: at.from + prefer + period, page: at.page, last: false, prefer, pages };
}
