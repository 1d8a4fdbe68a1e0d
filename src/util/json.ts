import sjson from 'secure-json-parse';
import { InputError } from '../errors.js';

/** A value already written as JSON (in a worker thread): sent as it is. */
export interface JsonText<T> {
  json: string;
  /** Only for the type: what the text holds. */
  of?: T;
}

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

/**
 * A request body as JSON: a leading byte-order mark dropped, nesting checked before parsing,
 * `__proto__` and `constructor` keys removed; undefined when empty; 400 when not JSON.
 */
export function parseJsonBody(body: Buffer): unknown {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return undefined;
  checkJsonDepth(text);
  try {
    // A bare JSON string (a document, usually) has no keys to poison: the plain parser is enough.
    if (text.trimStart().startsWith('"')) return JSON.parse(text) as unknown;
    return sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (error) {
    throw new InputError(`The request body is not valid JSON (${(error as Error).message}).`);
  }
}
