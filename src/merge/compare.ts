/**
 * How merge values compare, the same for IF fields and block filters: numbers (written plainly or
 * as the culture writes them) as numbers, other values as case-sensitive text.
 */
import type { Culture } from './format/culture.js';

export function isNumeric(value: string): boolean {
  return /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value);
}

/**
 * A number written plainly (1234.5) or as the culture writes it (1.234,50 in de-DE, 1,234.50 in
 * en-US: what a nested field with a number picture gives), as Word reads IF operands; else undefined.
 */
export function numberIn(text: string, culture: Culture): number | undefined {
  if (isNumeric(text)) return Number(text);
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const compact = text
    .trim()
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(culture.minus, '-');
  const group = escape(culture.group.replace(/[\s\u00a0\u202f]/g, ''));
  const decimal = escape(culture.decimal);
  const grouped = group ? `\\d{1,3}(?:${group}\\d{3})+` : '(?!)';
  const match = new RegExp(`^([-+]?)(${grouped}|\\d+)(?:${decimal}(\\d+))?$`).exec(compact);
  if (!match) return undefined;
  return Number(`${match[1]}${match[2]!.replace(/\D/g, '')}.${match[3] ?? '0'}`);
}

function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    's',
  );
}

/** `a op b`; with `wildcards`, `*` and `?` in `b` match any text and any character for `=` and `<>` (Word's IF). */
export function compareValues(a: string, op: string, b: string, culture: Culture, wildcards = true): boolean {
  const x = numberIn(a, culture);
  const y = numberIn(b, culture);
  if (!(x !== undefined && y !== undefined) && (op === '=' || op === '<>')) {
    const match = wildcards && /[*?]/.test(b) ? wildcard(b).test(a) : a === b;
    return op === '=' ? match : !match;
  }
  const order = x !== undefined && y !== undefined ? Math.sign(x - y) : a < b ? -1 : a > b ? 1 : 0;
  switch (op) {
    case '=':
      return order === 0;
    case '<>':
      return order !== 0;
    case '<':
      return order < 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '>=':
      return order >= 0;
    default:
      return false;
  }
}
