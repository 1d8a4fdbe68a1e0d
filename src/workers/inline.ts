/**
 * Merges too small to be worth a thread's hop, done on the event loop. Handing a one-page merge
 * to a thread and back cost about 0.5 ms, more than the merge itself (0.1-0.2 ms). Only a merge
 * that cannot delay another request is done here:
 * - nothing else is being done in the threads (no load: under load the threads do every merge);
 * - one record, its data small, its template one a thread has merged and found small and free of
 *   barcodes (drawing one takes milliseconds) (DocumentWorkers keys templates by content hash, up
 *   to 256 KB), compiled here once;
 * - bound for the office (PDF), the merged package is made inert here too (forOffice.ts): a thread
 *   admits the template for that only when its merged package was read whole and small
 *   (INLINE_PACKAGE_BYTES; what a merge adds is bounded by the budget's characters and the data's);
 * - within a budget of steps, time and characters (merge/render.ts RenderBudget): a merge that
 *   outgrows it stops there and is done again in a thread, and a template that outgrows its steps
 *   or characters three times is merged in threads from then on (at once, for one that fails here
 *   otherwise).
 */
import { LRUCache } from 'lru-cache';
import { DocsmithError } from '../errors.js';
import { CompiledTemplate, type MergeOptions } from '../merge/engine.js';
import { OverBudgetError } from '../merge/render.js';
import type { Records } from '../merge/records.js';
import { holdsSvg } from '../render/svg.js';
import { countLookup } from '../util/cacheStats.js';
import { forOffice, type OfficeBound } from './forOffice.js';

/** A template whose parts a merge renders hold at most this many characters of XML may be merged here. */
export const INLINE_TEMPLATE_CHARS = 64 * 1024;
/** Bound for the office, a template whose merged package's parts hold more bytes than this is not merged here. */
export const INLINE_PACKAGE_BYTES = 256 * 1024;
/** Data larger than this is not merged here. */
const MAX_RECORDS_CHARS = 8 * 1024;
/** The budget of one merge (a one-page letter takes 0.1-0.2 ms once warm). */
const BUDGET = { steps: 400, ms: 2, chars: 128 * 1024 };
/** Merges past their steps or characters (the template and data decide) before a template is refused. */
const STRIKES = 3;

export interface InlineMerge {
  docx: Uint8Array;
  /** Parsed here only once the cheaper tests have passed. */
  records: Records;
  options: MergeOptions;
  deadline?: number;
  maxOutputBytes?: number;
  /** Bound for the office: made inert, its long table looked for (forOffice.ts). */
  inert?: boolean;
  dropComments?: boolean;
  longTableRows?: number;
}

/** The merged document; bound for the office, with what the office is told. */
export type InlineMerged = { documents: Buffer[] } & Partial<Pick<OfficeBound, 'updateFields' | 'longTables'>>;

export class InlineMerges {
  /** `ms`: the time a merge may take here (tests give one no machine overruns). */
  constructor(private readonly ms = BUDGET.ms) {}

  /**
   * Templates a thread found small, by content hash: compiled here once at their first merge, for
   * either output; kept with their strikes once refused.
   */
  private readonly admitted = new LRUCache<string, { compiled?: CompiledTemplate; strikes: number; docx: boolean; office: boolean }>({
    max: 32,
  });

  /** A thread merged the template and found it small: for merges to DOCX, or (`officeBound`) for the office. */
  admit(key: string, officeBound = false): void {
    let entry = this.admitted.get(key);
    if (!entry) this.admitted.set(key, (entry = { strikes: 0, docx: false, office: false }));
    if (officeBound) entry.office = true;
    else entry.docx = true;
  }

  /** The merged document, or undefined when the merge is not one for the event loop (a thread does it). */
  merge(key: string, task: InlineMerge): InlineMerged | undefined {
    const entry = this.admitted.get(key);
    if (
      !entry ||
      !(task.inert ? entry.office : entry.docx) ||
      entry.strikes >= STRIKES ||
      task.records.length !== 1 ||
      task.records.json.length > MAX_RECORDS_CHARS ||
      holdsSvg(task.records.objects)
    )
      return undefined;
    try {
      countLookup('templates', entry.compiled !== undefined);
      entry.compiled ??= CompiledTemplate.compile(task.docx);
      const budget = { steps: BUDGET.steps, until: performance.now() + this.ms, chars: BUDGET.chars };
      const merged = entry.compiled.merge(task.records.objects, task.options, false, {
        deadline: task.deadline,
        maxBytes: task.maxOutputBytes,
        budget,
        officeBound: task.inert,
      });
      if (!task.inert) return { documents: merged };
      const { documents, updateFields, longTables } = forOffice(merged, {
        comments: !task.dropComments,
        longTableRows: task.longTableRows,
      });
      return { documents, updateFields, ...(longTables ? { longTables } : {}) };
    } catch (error) {
      // What the request did wrong is answered as a thread would answer it.
      if (error instanceof DocsmithError) throw error;
      // Past its steps or characters: a strike. Past its time alone: none (a cold event loop, whose
      // first merges compile the merge code, is slower; templates that draw barcodes are never
      // admitted). Anything else (a template nested deeper than the event loop's stack holds,
      // where a thread's holds it): refused at once. A thread does this merge.
      if (!(error instanceof OverBudgetError)) entry.strikes = STRIKES;
      else if (!error.time) entry.strikes++;
      // Refused from now on (admit() leaves it so): its compiled form is not needed any more.
      if (entry.strikes >= STRIKES) entry.compiled = undefined;
      return undefined;
    }
  }
}
