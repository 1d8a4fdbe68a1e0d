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

/** Where the string opened by the quote at `open` ends (its closing quote), found natively; -1 when it does not. */
function closingQuote(text: string, open: number): number {
  let end = open;
  do {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return end;
  } while (true);
}

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
      const end = closingQuote(text, i);
      if (end < 0) return; // unterminated: the parser says so
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
 * An array of objects left as the JSON text it was sent as (see parseJsonBody's `asText`): a merge
 * thread parses it, the event loop never does.
 */
export class JsonArrayText {
  constructor(
    readonly text: string,
    /** How many objects the array holds. */
    readonly count: number,
  ) {}
}

/**
 * A request body as JSON: a leading byte-order mark dropped, nesting checked before parsing,
 * `__proto__` and `constructor` keys removed; undefined when empty; 400 when not JSON.
 * `asText`: a top-level key whose value, when it is a plain array of objects, is kept as its text
 * (JsonArrayText) instead of parsed; anything less plain is parsed as usual, so a schema still
 * says what is wrong with it.
 */
export function parseJsonBody(body: Buffer, asText?: string): unknown {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return undefined;
  // A body whose records are kept as text had its nesting checked as they were found.
  const span = asText === undefined ? undefined : arrayOfObjects(text, asText);
  if (span === undefined) checkJsonDepth(text);
  try {
    // A bare JSON string (a document, usually) has no keys to poison: the plain parser is enough.
    if (text.trimStart().startsWith('"')) return JSON.parse(text) as unknown;
    if (span === undefined) return parseClean(text);
    const value = parseClean(text.slice(0, span.start) + '[]' + text.slice(span.end)) as Record<string, unknown>;
    value[asText!] = new JsonArrayText(text.slice(span.start, span.end), span.count);
    return value;
  } catch (error) {
    throw new InputError(`The request body is not valid JSON (${(error as Error).message}).`);
  }
}

/** JSON text parsed with `__proto__` and `constructor` keys removed; throws SyntaxError when it is not JSON. */
export function parseClean(text: string): unknown {
  return sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Where the value of `key` in a top-level object is, when it is an array of one or more objects
 * and `key` is there once, spelled plainly, and nothing in the text nests deeper than `maxDepth`:
 * [start, end) of its text and its length. Undefined for anything else. Strings are skipped
 * natively; what lies inside the objects is not checked here (the thread that parses it says
 * when it is not JSON).
 */
export function arrayOfObjects(
  text: string,
  key: string,
  maxDepth = MAX_JSON_DEPTH,
): { start: number; end: number; count: number } | undefined {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  const next = (from: number) => {
    while (from < text.length && isSpace(text.charCodeAt(from))) from++;
    return from;
  };
  let depth = 0;
  let found: { start: number; end: number; count: number } | undefined;
  // Inside the array: the depth of its elements, and whether the next value is one of them.
  let inArray = false;
  let elementDue = false;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inArray && depth === 2) {
      // Between the array's elements: nothing but commas and objects.
      if (isSpace(c)) continue;
      if (elementDue) {
        if (c !== 0x7b) return undefined;
        elementDue = false;
      } else if (c !== 0x2c && c !== 0x5d) return undefined;
    }
    if (c === 0x22) {
      const end = closingQuote(text, i);
      if (end < 0) return undefined;
      if (depth === 1) {
        const colon = next(end + 1);
        if (text.charCodeAt(colon) === 0x3a) {
          const name = text.slice(i + 1, end);
          // An escaped key may spell `key` too: the parser, not this scan, decides then.
          if (name.includes('\\')) return undefined;
          if (name === key) {
            if (found) return undefined;
            const start = next(colon + 1);
            if (text.charCodeAt(start) !== 0x5b) return undefined;
            found = { start, end: -1, count: 0 };
            inArray = true;
            elementDue = true;
            depth = 2;
            i = start;
            continue;
          }
        }
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return undefined;
      if (inArray && depth === 3) found!.count++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (inArray && depth === 1) {
        if (c !== 0x5d) return undefined;
        found!.end = i + 1;
        inArray = false;
      }
    } else if (c === 0x2c && inArray && depth === 2) {
      elementDue = true;
    }
  }
  return found && found.end > 0 && found.count > 0 ? found : undefined;
}
