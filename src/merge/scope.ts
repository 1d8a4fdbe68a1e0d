/**
 * Data lookup for one record: dotted names, case-insensitive keys, and inside blocks the
 * current row first, then each enclosing row out to the record.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const MISSING = Symbol('missing');

/** The name every record reads the merge's shared values under (MergeOptions.complement): `$c.company`. */
export const SHARED_VALUES = '$c';
export type Lookup = Json | typeof MISSING;

function getKey(object: JsonObject, key: string): Lookup {
  if (Object.prototype.hasOwnProperty.call(object, key)) return object[key]!;
  const lower = key.toLowerCase();
  for (const k of Object.keys(object)) if (k.toLowerCase() === lower) return object[k]!;
  return MISSING;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Scope {
  /** Look-ups of a record, its blocks' rows included: zero means nothing of it was merged. */
  private readonly reads: { count: number };

  private constructor(
    private readonly frames: readonly JsonObject[],
    reads?: { count: number },
  ) {
    this.reads = reads ?? { count: 0 };
  }

  /** A record's scope; `shared`: values every record reads as `$c.…`, after its own. */
  static of(record: JsonObject, shared?: JsonObject): Scope {
    return new Scope(shared ? [record, { [SHARED_VALUES]: shared }] : [record]);
  }

  /** A scope for one row of a block, falling back to this one. */
  enter(row: JsonObject): Scope {
    return new Scope([row, ...this.frames], this.reads);
  }

  get readCount(): number {
    return this.reads.count;
  }

  /** The value of `name` (dotted), or MISSING when no frame has it. */
  get(name: string): Lookup {
    this.reads.count++;
    // Most names have no dot: looked up without splitting (a merge looks up every field of every row).
    if (!name.includes('.')) {
      for (const frame of this.frames) {
        const value = getKey(frame, name);
        if (value !== MISSING) return value;
      }
      return MISSING;
    }
    const path = name.split('.');
    for (const frame of this.frames) {
      let value: Lookup = getKey(frame, path[0]!);
      if (value === MISSING) {
        // A key with dots in it ("a.b": 1) wins over nothing.
        const whole = getKey(frame, name);
        if (whole !== MISSING) return whole;
        continue;
      }
      for (const piece of path.slice(1)) {
        // A number after a list is its element by position from 0 (Carbone's items[2]).
        if (Array.isArray(value) && /^\d{1,9}$/.test(piece)) {
          value = (value[Number(piece)] as Json | undefined) ?? null;
          if (value === null) return MISSING;
          continue;
        }
        // A path through a list outside its block reads the list's first row, as TX Text Control
        // does (a label's Sales_SalesOrderDetail.CarrierTrackingNumber).
        if (Array.isArray(value) && isObject(value[0] as Json)) value = value[0] as Json;
        if (!isObject(value as Json)) return MISSING;
        value = getKey(value as JsonObject, piece);
        if (value === MISSING) return MISSING;
      }
      return value;
    }
    return MISSING;
  }

  /**
   * Rows for a section (merge/syntax/): a list's rows; one row for an object or any other true
   * value (a value that is not an object adds nothing to the scope); for an inverted section one
   * row when the value is false, empty or missing. Truth as in JavaScript, an empty list false.
   */
  section(name: string, mode: 'section' | 'inverted'): JsonObject[] {
    const value = this.get(name);
    const truthy = value !== MISSING && Boolean(value) && !(Array.isArray(value) && value.length === 0);
    if (mode === 'inverted') return truthy ? [] : [{}];
    if (!truthy) return [];
    if (Array.isArray(value)) return value.map((row) => (isObject(row) ? row : { value: row }));
    return [isObject(value) ? value : {}];
  }

  /** Rows for a block: an array of rows, one object as one row, else none. */
  rows(name: string): JsonObject[] | null {
    const value = this.get(name);
    if (value === MISSING || value === null) return null;
    if (Array.isArray(value)) return value.map((row) => (isObject(row) ? row : { value: row }));
    if (isObject(value)) return Object.keys(value).length ? [value] : null;
    return null;
  }
}
