import { InputError } from '../errors.js';

/** The JSON type of a parsed value, for messages ("not a JSON array"). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Deepest nesting of arrays and objects a request body may have: real merge data stays far below. */
export const MAX_JSON_DEPTH = 100;

/**
 * Throws when JSON text nests arrays and objects deeper than `max`, before anything recursive
 * (serialising, merging) walks it and overflows the stack. Strings are skipped natively, so a
 * body of base64 documents costs almost nothing. The error names the top-level field.
 */
export function checkJsonDepth(text: string, max = MAX_JSON_DEPTH): void {
  let depth = 0;
  let topKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: jump to its closing quote
      let end = i;
      do {
        end = text.indexOf('"', end + 1);
        if (end < 0) return; // unterminated: the parser says so
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      } while (true);
      if (depth === 1 && end - i < 200) topKey = text.slice(i + 1, end);
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) {
        throw new InputError(
          `The request body nests arrays and objects more than ${max} levels deep${topKey === undefined ? '' : ` in "${topKey}"`}; at most ${max} levels are accepted.`,
        );
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
}
