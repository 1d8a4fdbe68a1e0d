/**
 * A document with one very long table to PDF, laid out part by part (ooxml/longTable.ts): each
 * part starts at a true page start (the header rows, then the first row of the previous part's
 * last page), the office keeps the part's pages but its last, and the kept pages are joined. The
 * office never lays out one table of thousands of rows, whose time grows much faster than its
 * rows, and the pages are those of one layout.
 */
import type { Converter, ConvertOptions } from '../convert/converter.js';
import { longTablePartXml, type LongTableSplit } from '../ooxml/longTable.js';
import type { DocumentWorkers } from '../workers/pool.js';

/** Tables from this many rows are laid out in parts: below it one layout is as fast (bench/long-table.ts). */
export const LONG_TABLE_ROWS = 2000;
/** Rows per part: a few pages, enough for a page break to fall inside; doubled when none does. */
export const PART_ROWS = 800;
const MAX_PART_ROWS = 6400;

export interface LongTableWork {
  workers: DocumentWorkers;
  converter: Converter;
  /** Rows laid out so far, of all. */
  progress?: (done: number, total: number) => void;
  /** Bytes of output so far: throws past the operation's limit. */
  count: (bytes: number) => void;
}

/** The PDF and the number of office jobs, or undefined: the document is to be laid out whole. */
export async function longTablePdf(
  split: LongTableSplit,
  work: LongTableWork,
  options: ConvertOptions,
): Promise<{ pdf: Buffer; parts: number } | undefined> {
  const total = split.rows.length;
  const pdfs: Buffer[] = [];
  let from = 0;
  let page = split.firstPage;
  let size = PART_ROWS;
  for (;;) {
    const to = Math.min(total, from + size);
    const last = to === total;
    const part = await work.workers.longTablePart(split, longTablePartXml(split, from, to, page), options.signal);
    const laid = await work.converter.longTablePart(part, { headerRows: split.headerRows.length, last }, options);
    if (!laid) {
      // No page of the part could start the next one (rows taller than pages): a bigger part.
      if (last || size >= MAX_PART_ROWS) return undefined;
      size *= 2;
      continue;
    }
    if (!last && laid.tableBreak.restart < 1) return undefined;
    pdfs.push(laid.data);
    work.count(laid.data.length);
    if (last) break;
    from += laid.tableBreak.restart;
    page += laid.tableBreak.keep;
    size = PART_ROWS;
    work.progress?.(from, total);
  }
  work.progress?.(total, total);
  return { pdf: pdfs.length === 1 ? pdfs[0]! : await work.workers.joinPdfs(pdfs, options.signal), parts: pdfs.length };
}
