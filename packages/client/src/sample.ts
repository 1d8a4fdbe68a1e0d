/** A JSON value of merge data. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

// Structural shapes of templates/info: what GET /v1/templates/info answers.
interface FieldShape {
  name: string;
  numericFormat: string;
  dateTimeFormat: string;
}
interface BlockShape {
  name: string;
  mergeFields: FieldShape[];
  mergeBlocks: BlockShape[];
}

/** Puts `value` at a dotted name (`a.b.c`), making the objects on the way. */
function put(record: JsonObject, name: string, value: Json): void {
  const path = name.split('.');
  let target = record;
  for (const piece of path.slice(0, -1)) {
    const next = target[piece];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) target[piece] = {};
    target = target[piece] as JsonObject;
  }
  target[path[path.length - 1]!] = value;
}

function sampleValue(field: FieldShape, row: number): Json {
  if (field.numericFormat) return 1234.5 + row;
  if (field.dateTimeFormat) return `2024-0${(row % 9) + 1}-15T10:30:00`;
  return `${field.name} ${row + 1}`;
}

function fill(fields: FieldShape[], blocks: BlockShape[], rows: number, row: number): JsonObject {
  const record: JsonObject = {};
  for (const field of fields) put(record, field.name, sampleValue(field, row));
  for (const block of blocks) {
    put(
      record,
      block.name,
      Array.from({ length: rows }, (_, i) => fill(block.mergeFields, block.mergeBlocks, rows, i)),
    );
  }
  return record;
}

/**
 * A record that fills every field and repeats every block `rows` times, from a template's info
 * (GET /v1/templates/info): a starting point for merge data (the portal's playground offers it).
 */
export function sampleRecord(info: { mergeFields: FieldShape[]; mergeBlocks: BlockShape[] }, rows = 2): JsonObject {
  return fill(info.mergeFields, info.mergeBlocks, rows, 0);
}
