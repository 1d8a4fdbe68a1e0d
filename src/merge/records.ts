/**
 * A merge's records on their way from the request to a merge thread. Sent in a body, they stay
 * the JSON text they came as: the thread parses them, and the event loop neither parses them nor
 * writes them back to text (under load, that was a seventh of the event loop's work for a
 * 100-row invoice). Made of objects (a job, a part of a long merge, a test), they become text once.
 */
import { InputError } from '../errors.js';
import { parseClean } from '../util/json.js';
import type { JsonObject } from './scope.js';

export class Records {
  private constructor(
    readonly length: number,
    private text: string | undefined,
    private parsed: JsonObject[] | undefined,
  ) {}

  static of(objects: JsonObject[]): Records {
    return new Records(objects.length, undefined, objects);
  }

  /** `text`: a JSON array of `count` objects, as sent (util/json.ts arrayOfObjects found it). */
  static sent(text: string, count: number): Records {
    return new Records(count, text, undefined);
  }

  /** The JSON text a thread parses (parseRecordsText). */
  get json(): string {
    return (this.text ??= JSON.stringify(this.parsed));
  }

  /** The records as objects, parsed here the first time: for the few paths that read them on the event loop. */
  get objects(): JsonObject[] {
    return (this.parsed ??= parseRecordsText(this.text!));
  }

  /** A job stores its records as JSON. */
  toJSON(): JsonObject[] {
    return this.objects;
  }
}

/** Records' JSON text parsed as a request body is (`__proto__` and `constructor` keys removed); 400 when it is not JSON. */
export function parseRecordsText(text: string): JsonObject[] {
  try {
    return parseClean(text) as JsonObject[];
  } catch (error) {
    throw new InputError(`mergeData is not valid JSON (${(error as Error).message}).`);
  }
}
