/**
 * Merged documents made ready for the office: inert, with what the office is told about each
 * (fields to recompute, a long table to lay out in parts). Done where the merge was done: in a
 * document thread (tasks.ts), or on the event loop for a small one (inline.ts).
 */
import { docxForOffice, inertForOffice, type InertDocument } from '../inert/index.js';
import { packageNeedsFieldUpdate } from '../ooxml/fields.js';
import { OoxmlPackage } from '../ooxml/package.js';
import { splitLongTable, type LongTableSplit } from '../ooxml/longTable.js';

export interface OfficeBound {
  documents: Buffer[];
  /** Per document, whether it has fields to recompute (ooxml/fields.ts). */
  updateFields: boolean[];
  /** Per document, its long table cut at its rows, or null (with `longTableRows`). */
  longTables?: (LongTableSplit | null)[];
  /** Per document, the bytes of its parts when it was read whole here (with `longTableRows`, comments kept). */
  packageBytes: (number | undefined)[];
}

export interface OfficeBoundOptions {
  /** Comments are kept (the output shows them). */
  comments: boolean;
  /** Bound for PDF: cut each document's table of at least this many rows (ooxml/longTable.ts). */
  longTableRows?: number;
}

/**
 * A merged document's long table cut at its rows, and whether the document has fields to
 * recompute: read once for both (inertForOffice asks the second alone).
 */
function longTableFacts(
  docx: Buffer,
  rows: number,
  pkg = OoxmlPackage.read(docx),
): { longTable: LongTableSplit | null; updateFields: boolean } {
  const longTable = splitLongTable(pkg, rows);
  return { longTable, updateFields: longTable?.updateFields ?? packageNeedsFieldUpdate(pkg) };
}

const partBytes = (pkg: OoxmlPackage) => [...pkg.parts.values()].reduce((sum, part) => sum + part.length, 0);

export function forOffice(merged: Buffer[], { comments, longTableRows: rows }: OfficeBoundOptions): OfficeBound {
  // Fields are looked for as the document is made inert unless its long table is looked for too,
  // in the package read to make it inert.
  const prepared: (InertDocument & { pkg?: OoxmlPackage })[] = rows
    ? merged.map((d) => docxForOffice(d, { comments }))
    : merged.map((d) => inertForOffice(d, 'docx', { comments }));
  const tables = rows ? prepared.map((d) => longTableFacts(d.bytes, rows, d.pkg)) : undefined;
  return {
    documents: prepared.map((d) => d.bytes),
    // Unknown only where nobody looked: recomputed then.
    updateFields: prepared.map((d, i) => d.updateFields ?? tables?.[i]?.updateFields ?? true),
    ...(tables ? { longTables: tables.map((t) => t.longTable) } : {}),
    packageBytes: prepared.map((d) => d.pkg && partBytes(d.pkg)),
  };
}
