/**
 * Conditions a block's rows must meet to show (typed tags' filters, such as Carbone's
 * `[i, type='fruit']`). They ride in the block's bookmark name after its data name,
 * `txmb_items?[…]` (JSON), which no Word bookmark can be: Word allows letters, digits and `_`.
 */
import { InputError } from '../errors.js';
import { MISSING, Scope, type JsonObject, type Lookup } from './scope.js';
import { compareValues } from './compare.js';
import type { Culture } from './format/culture.js';

export const FILTER_OPERATORS = ['=', '!=', '<', '>', '<=', '>='] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** `key op value`; the key `#` is the row's position from 0, a negative value counting from the end (-1: the last). */
export interface RowCondition {
  key: string;
  op: FilterOperator;
  value: string;
}

/** The rows that meet every condition; with `first`, only the first of them. */
export interface RowFilter {
  where: RowCondition[];
  first?: boolean;
}

const MAX_CONDITIONS = 20;
const SEPARATOR = '?';

/** A block's bookmark name for `name` with a filter: `items?[["type","=","fruit"]]`, and `?1[…]` for the first row only. */
export function filteredName(name: string, filter: RowFilter): string {
  if (filter.where.length === 0 && !filter.first) return name;
  return `${name}${SEPARATOR}${filter.first ? '1' : ''}${JSON.stringify(filter.where.map((c) => [c.key, c.op, c.value]))}`;
}

/** A bookmark's block name and its filter; a name without one as it is. */
export function parseBlockName(text: string): { name: string; filter?: RowFilter } {
  const match = /\?(1?)\[/.exec(text);
  const at = match?.index ?? -1;
  if (at <= 0) return { name: text };
  const first = match![1] === '1';
  const name = text.slice(0, at);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(at + 1 + (first ? 1 : 0)));
  } catch {
    throw new InputError(`The merge block "${name}" has conditions that cannot be read.`);
  }
  const valid = (c: unknown): c is [string, FilterOperator, string] =>
    Array.isArray(c) &&
    c.length === 3 &&
    typeof c[0] === 'string' &&
    (FILTER_OPERATORS as readonly unknown[]).includes(c[1]) &&
    typeof c[2] === 'string';
  if (!Array.isArray(parsed) || parsed.length > MAX_CONDITIONS || !parsed.every(valid))
    throw new InputError(`The merge block "${name}" has conditions that cannot be read (at most ${MAX_CONDITIONS}).`);
  return { name, filter: { where: parsed.map(([key, op, value]) => ({ key, op, value })), ...(first ? { first } : {}) } };
}

/**
 * The rows that meet every condition (the first of them only, when the filter says so): values
 * looked up and compared as IF fields do, without wildcards; a value the row lacks equals nothing.
 */
export function filterRows(rows: JsonObject[], filter: RowFilter, culture: Culture): JsonObject[] {
  const holds = (left: Lookup, op: FilterOperator, right: string) => {
    if (left === MISSING || left === null || typeof left === 'object') return op === '!=';
    return compareValues(String(left), op === '!=' ? '<>' : op, right, culture, false);
  };
  const meets = (row: JsonObject, i: number) => {
    const scope = Scope.of(row);
    return filter.where.every((c) => {
      if (c.key !== '#') return holds(scope.get(c.key), c.op, c.value);
      const at = Number(c.value);
      return holds(i, c.op, String(at < 0 ? rows.length + at : at));
    });
  };
  if (!filter.first) return rows.filter(meets);
  const found = rows.find(meets);
  return found ? [found] : [];
}
