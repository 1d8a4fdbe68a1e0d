/**
 * What merge data leaves empty and what a template never reads (POST /document/checkdata): the
 * template's fields and blocks looked up in each record as the merge would (dotted names, any
 * case, a block's fields falling back to the enclosing rows), without making any document.
 */
import type { MergeBlockInfo, MergeFieldInfo, TemplateInfo } from './info.js';
import { MISSING, Scope, type JsonObject } from './scope.js';

/** Which of the template's fields and blocks the data leaves empty, and which data it never reads; records by index. */
export interface DataCheck {
  records: number;
  /** Fields with no value in some records (`block`: the block path they sit in, `a/b` when nested). */
  missingFields: { name: string; block: string | null; records: number[] }[];
  /** Blocks with no rows in some records (their path). */
  emptyBlocks: { name: string; records: number[] }[];
  /** Keys no field or block reads: a record's own, or a block row's as `block.key`. */
  unusedData: string[];
}

/** `shared`: the values every record reads as `$c.…` (mergeSettings.complement). */
export function checkData(info: Pick<TemplateInfo, 'mergeFields' | 'mergeBlocks'>, records: JsonObject[], shared?: JsonObject): DataCheck {
  const missing = new Map<string, { name: string; block: string | null; records: Set<number> }>();
  const empty = new Map<string, Set<number>>();
  const walk = (fields: MergeFieldInfo[], blocks: MergeBlockInfo[], scope: Scope, block: string | null, record: number) => {
    for (const field of fields) {
      if (scope.get(field.name) !== MISSING) continue;
      const key = `${block ?? ''}/${field.name.toLowerCase()}`;
      const entry = missing.get(key) ?? { name: field.name, block, records: new Set<number>() };
      missing.set(key, entry.records.add(record) && entry);
    }
    for (const inner of blocks) {
      const path = block === null ? inner.name : `${block}/${inner.name}`;
      const rows = scope.rows(inner.name);
      if (!rows?.length) empty.set(path, (empty.get(path) ?? new Set<number>()).add(record));
      for (const row of rows ?? []) walk(inner.mergeFields, inner.mergeBlocks, scope.enter(row), path, record);
    }
  };
  records.forEach((record, i) => walk(info.mergeFields, info.mergeBlocks, Scope.of(record, shared), null, i));
  // A key is read when some field or block name starts with it: anywhere for a record's keys
  // (fields in blocks fall back to the record), inside the block for its rows' keys.
  const heads = (fields: MergeFieldInfo[], blocks: MergeBlockInfo[]): Set<string> =>
    new Set([
      ...fields.map((f) => f.name.split('.')[0]!.toLowerCase()),
      ...blocks.flatMap((b) => [b.name.split('.')[0]!.toLowerCase(), ...heads(b.mergeFields, b.mergeBlocks)]),
    ]);
  const unused = new Set<string>();
  const unread = (rows: JsonObject[], read: Set<string>, prefix: string, blocks: MergeBlockInfo[]) => {
    for (const row of rows) {
      for (const [key, value] of Object.entries(row)) {
        if (!read.has(key.toLowerCase())) unused.add(prefix + key);
        const block = blocks.find((b) => b.name.toLowerCase() === key.toLowerCase());
        if (block && Array.isArray(value)) {
          const inner = value.filter((v): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v));
          unread(inner, heads(block.mergeFields, block.mergeBlocks), `${prefix}${key}.`, block.mergeBlocks);
        }
      }
    }
  };
  unread(records, heads(info.mergeFields, info.mergeBlocks), '', info.mergeBlocks);
  return {
    records: records.length,
    missingFields: [...missing.values()].map((m) => ({ ...m, records: [...m.records] })),
    emptyBlocks: [...empty].map(([name, records]) => ({ name, records: [...records] })),
    unusedData: [...unused],
  };
}
