/**
 * Writes a TX document model (formats/tx/read.ts) as TX Text Control's internal format, in the
 * layout TX writes (docs/tx-format.md). Every record is written from what the model says; what the
 * model does not say (style references, language ids, settings, the style sheet) comes from the
 * record TX wrote where the reader kept it, and where the model still says what that record says,
 * the record goes back byte for byte. A document read and written unchanged is the same file.
 */
import type {
  Colour,
  TxFormField,
  TxPicture,
  TxCharFormat,
  TxCellFormat,
  TxChange,
  TxDocument,
  TxField,
  TxFrame,
  TxSignatureBox,
  TxParaFormat,
  TxRun,
  TxStory,
  TxTable,
} from './read.js';
import {
  PAGE_FIELD_KINDS,
  PLACEMENTS,
  TX_FLAGS,
  TX_MAGIC,
  TX_REGION_RECORD,
  decodeColour,
  fieldKindOf,
  fieldOfRecords,
  readProtection,
} from './read.js';
import { InputError } from '../../errors.js';
import { txPrototypes } from './prototype.js';

/** A count, position or size TX's fields cannot hold (too many records, a negative measure): a 400. */
export class TxLimitError extends InputError {
  constructor(value: number) {
    super(
      `returnFormat TX cannot hold this document: a count, position or size of ${value} does not fit TX's fields (whole numbers, at most 65,535 for counts and positions); choose DOCX.`,
    );
  }
}

/** A growing little-endian byte buffer. */
class Bytes {
  private chunks: Uint8Array[] = [];
  length = 0;

  bytes(value: Uint8Array): this {
    this.chunks.push(value);
    this.length += value.length;
    return this;
  }

  u16(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new TxLimitError(value);
    const b = Buffer.alloc(2);
    b.writeUInt16LE(value);
    return this.bytes(b);
  }

  u32(value: number): this {
    const b = Buffer.alloc(4);
    put32(b, value, 0);
    return this.bytes(b);
  }

  utf16(text: string): this {
    return this.bytes(Buffer.from(text, 'utf16le'));
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/** A 16-bit field of a record; larger values are a 400, not a crash. */
function put16(out: Buffer, value: number, at: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new TxLimitError(value);
  out.writeUInt16LE(value, at);
}

/** A 32-bit field of a record, likewise. */
function put32(out: Buffer, value: number, at: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new TxLimitError(value);
  out.writeUInt32LE(value, at);
}

/** A record to write: the kept one (copied) or zeros, with fields put in. */
function record(kept: Uint8Array | undefined, size: number): Buffer {
  const out = Buffer.alloc(size);
  if (kept?.length === size) out.set(kept);
  return out;
}

const AUTO = 0x40000000;

/** A colour as COLORREF, keeping the kept value where it says the same (automatic and none both read as null). */
function colourValue(colour: Colour, kept: number | undefined): number {
  if (kept !== undefined && safeColour(kept) === colour) return kept;
  if (colour === null) return AUTO;
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(colour.slice(i, i + 2), 16)) as [number, number, number];
  return r | (g << 8) | (b << 16);
}

function safeColour(value: number): Colour | undefined {
  try {
    return decodeColour(value);
  } catch {
    return undefined;
  }
}

const keptU32 = (kept: Uint8Array | undefined, at: number): number | undefined =>
  kept && kept.length >= at + 4 ? Buffer.from(kept.buffer, kept.byteOffset, kept.length).readUInt32LE(at) : undefined;

function runRecord(run: TxRun, field: TxField | undefined): Buffer {
  const out = record(run.kept ?? txPrototypes().run, 20);
  put16(out, run.format + 1, 0);
  put16(out, run.start + 1, 2);
  put32(out, run.end - run.start, 4);
  put32(out, colourValue(run.colour, keptU32(run.kept, 8)), 8);
  put16(out, run.field, 12);
  put16(out, field ? fieldKindOf(field, run.kept ? out.readUInt16LE(14) : undefined) : 0, 14);
  put32(out, colourValue(run.background, keptU32(run.kept, 16)), 16);
  return out;
}

function charFormatRecord(format: TxCharFormat): Buffer {
  const out = record(format.kept ?? txPrototypes().charFormat, 50);
  const height = out.readInt16LE(0);
  if (!format.kept || Math.round(-height / 10) !== format.halfPoints) out.writeInt16LE(-format.halfPoints * 10, 0);
  const weight = out.readInt16LE(8);
  if (!format.kept || weight >= 600 !== format.bold) out.writeInt16LE(format.bold ? 700 : 400, 8);
  if (Boolean(out[10]) !== format.italic) out[10] = format.italic ? 1 : 0;
  if (Boolean(out[11]) !== format.underline) out[11] = format.underline ? 1 : 0;
  if (Boolean(out[12]) !== format.strike) out[12] = format.strike ? 1 : 0;
  if (!sameFace(format)) {
    out.fill(0, 18, 50);
    out.write(format.face.replace(/[^\x20-\x7e]/g, '?').slice(0, 31), 18, 'latin1');
  }
  return out;
}

/** The face the kept records name (the Unicode one, else the 8-bit one), as the reader takes it. */
function keptFace(format: TxCharFormat): string | undefined {
  if (!format.kept || !format.keptFace) return undefined;
  const unicode = Buffer.from(format.keptFace.subarray(0, 64)).toString('utf16le').split('\0')[0]!;
  if (unicode) return unicode;
  const latin = Buffer.from(format.kept.subarray(18, 50));
  const nul = latin.indexOf(0);
  return latin.subarray(0, nul < 0 ? 32 : nul).toString('latin1');
}

const sameFace = (format: TxCharFormat): boolean => keptFace(format) === format.face;

function faceRecord(format: TxCharFormat): Buffer {
  if (sameFace(format) && format.keptFace?.length === 80) return Buffer.from(format.keptFace);
  const out = record(txPrototypes().face, 80);
  out.fill(0, 0, 64);
  out.write(format.face.slice(0, 31), 0, 'utf16le');
  return out;
}

const ALIGNMENTS = ['left', 'right', 'center', 'both'] as const;
const TAB_STOPS = 14;
const UNUSED_TAB = 0x7fff;

function paraFormatRecord(format: TxParaFormat): Buffer {
  const out = record(format.kept ?? txPrototypes().paraFormat, 62);
  const flags =
    (out.readUInt16LE(0) & ~0xc009) |
    (ALIGNMENTS.indexOf(format.alignment) << 14) |
    (format.keepNext ? 0x0008 : 0) |
    (format.keepLines ? 0x0001 : 0);
  put16(out, flags, 0);
  put16(out, format.indent?.left ?? 0, 2);
  put16(out, format.indent?.right ?? 0, 4);
  put16(out, (format.indent?.firstLine ?? 0) & 0xffff, 6);
  put16(out, format.spaceBefore, 8);
  put16(out, format.spaceAfter, 10);
  put16(out, format.atLeast === undefined ? format.lineSpacing : 0x8000 | Math.min(format.atLeast, 0x7fff), 12);
  // The stops as the model has them (left, decimal, right at the margin); the kept ones where they say the same.
  const stops = [
    ...format.tabs.map((position) => [1, position] as const),
    ...(format.decimalTabs ?? []).map((position) => [4, position] as const),
    ...(format.rightTabs ?? []).map((position) => [5, position] as const),
  ];
  const keptStops = Array.from({ length: TAB_STOPS }, (_, i) => [out[20 + 3 * i]!, out.readUInt16LE(21 + 3 * i)] as const).filter(
    ([, position]) => position !== UNUSED_TAB,
  );
  const key = (list: readonly (readonly [number, number])[]) =>
    list
      .map(([kind, position]) => `${kind}:${position}`)
      .sort()
      .join();
  if (!format.kept || key(keptStops) !== key(stops)) {
    if (stops.length > TAB_STOPS) throw new RangeError(`TX keeps ${TAB_STOPS} tab stops per paragraph, not ${stops.length}`);
    for (let i = 0; i < TAB_STOPS; i++) {
      out[20 + 3 * i] = stops[i]?.[0] ?? 1;
      put16(out, stops[i]?.[1] ?? UNUSED_TAB, 21 + 3 * i);
    }
  }
  return out;
}

function tableRecords(table: TxTable): Buffer {
  const head = record(table.kept ?? txPrototypes().table, 12);
  put16(head, table.rows, 0);
  put16(head, table.columns, 2);
  const cells = table.cells.map((cell) => {
    const out = record(cell.kept ?? txPrototypes().cell, 18);
    put16(out, cell.start + 1, 0);
    put16(out, cell.end, 2);
    put32(out, cell.left, 4);
    put32(out, cell.width, 8);
    put16(out, cell.format + 1, 12);
    // Merged cells: 0x01 into the cell before, 0x02 into the one above, 0x04 spanning the one after.
    const merged = cell.merged ?? {};
    put32(out, (merged.left ? 0x01 : 0) | (merged.up ? 0x02 : 0) | (merged.right ? 0x04 : 0), 14);
    return out;
  });
  return Buffer.concat([head, ...cells]);
}

function cellFormatRecord(format: TxCellFormat): Buffer {
  const out = record(format.kept ?? txPrototypes().cellFormat, 28);
  format.borders.forEach((width, i) => put16(out, width, 2 * i));
  format.padding.forEach((distance, i) => put16(out, distance, 8 + 2 * i));
  put32(out, colourValue(format.shading, keptU32(format.kept, 16)), 16);
  put16(out, (out.readUInt16LE(20) & ~0x0800) | (format.headerRow ? 0x0800 : 0), 20);
  return out;
}

function cellBorderRecord(format: TxCellFormat): Buffer {
  const out = record(format.keptBorders ?? txPrototypes().cellBorders, 52);
  format.borderColours.forEach((colour, i) => put32(out, colourValue(colour, keptU32(format.keptBorders, 4 + 4 * i)), 4 + 4 * i));
  return out;
}

/** A property record: field id, kind, six bytes, the payload's length, the payload. */
function property(id: number, kind: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(14);
  put16(head, id, 0);
  put16(head, kind, 2);
  put32(head, payload.length, 10);
  return Buffer.concat([head, payload]);
}

/** A check box's record: no payload, the characters shown checked and not at bytes 6 and 8. */
function checkBoxRecord(id: number, form: TxFormField, kept: Uint8Array | undefined): Buffer {
  const out = kept?.length === 14 ? Buffer.from(kept) : property(id, 14, Buffer.alloc(0));
  out.writeUInt16LE((form.checked ?? '\u2612').charCodeAt(0), 6);
  out.writeUInt16LE((form.unchecked ?? '\u2610').charCodeAt(0), 8);
  return out;
}

/** A form field's records: its name, a drop-down's items, a date field's settings (kept, else five empty ones). */
function formRecords(id: number, field: TxField, form: TxFormField): Buffer[] {
  const keptOf = (kind: number) => field.kept?.find((r) => r[2]! + (r[3]! << 8) === kind);
  const utf16 = (value: string) => Buffer.from(value, 'utf16le');
  const records = [
    ...(field.name !== undefined ? [property(id, 0, utf16(`${field.name}\0`))] : []),
    ...(form.kind === 'dropdown' ? [property(id, 15, utf16(`${form.items.join('\0')}\0\0`))] : []),
    ...(form.kind === 'date' ? [property(id, 17, keptOf(17) ? Buffer.from(keptOf(17)!.subarray(14)) : utf16('\0'.repeat(5)))] : []),
    ...(form.kind === 'checkbox' ? [checkBoxRecord(id, form, keptOf(14))] : []),
  ];
  // A kept record whose payload says the same goes back as it was (its undecoded bytes too).
  return records.map((bytes) => {
    const kept = keptOf(bytes.readUInt16LE(2));
    return kept && Buffer.from(kept.subarray(14)).equals(bytes.subarray(14)) ? Buffer.from(kept) : bytes;
  });
}

/** A field's property records: the kept ones where they still say what the model says. */
function fieldRecords(id: number, field: TxField): Buffer[] {
  if (field.form) return formRecords(id, field, field.form);
  // A merge block's start or end: its name as property 4 (the kept record where it says the same).
  if (field.block !== undefined) {
    const record = property(id, 4, Buffer.from(`${field.block}\0`, 'utf16le'));
    const kept = field.kept?.find((r) => Buffer.from(r).subarray(14).equals(record.subarray(14)) && r[2] === 4);
    return [kept ? Buffer.from(kept) : record];
  }
  // A page number or count field: one empty property of its type's number (3 or 9), its six
  // undecoded bytes as kept (the Parallel sample has 1 and 3 there: a number format, presumably).
  if (field.page) {
    const kind = PAGE_FIELD_KINDS[field.page] >> 8;
    const kept = field.kept?.find((r) => r[2]! + (r[3]! << 8) === kind && r.length === 14);
    return [kept ? Buffer.from(kept) : property(id, kind, Buffer.alloc(0))];
  }
  if (field.kept?.length) {
    const said = fieldOfRecords(field.kept);
    if (
      said.name === field.name &&
      said.link === field.link &&
      said.target === field.target &&
      said.instruction.join('\0') === field.instruction.join('\0')
    )
      return field.kept.map((kept) => Buffer.from(kept));
  }
  const text = (kind: number, value: string) => property(id, kind, Buffer.from(`${value}\0`, 'utf16le'));
  return [
    ...(field.name !== undefined ? [text(0, field.name)] : []),
    ...(field.link !== undefined
      ? [text(1, field.link)]
      : field.target !== undefined
        ? [text(2, field.target)]
        : [text(7, field.instruction.join('\0'))]),
  ];
}

const FILETIME_EPOCH_MS = Date.UTC(1601, 0, 1);
/** TX Text Control Words' link targets: 34 bytes each; the table ends with 94 zero bytes (formats/tx/read.ts readWordsTable). */
const TARGET_RECORD = 34;
const WORDS_ZEROS = 94;

/** A picture's record (formats/tx/read.ts readPicture): the kept one where the model still says what it says. */
function pictureRecord(picture: TxPicture): Buffer {
  if (picture.box) return boxRecord(picture, picture.box);
  if (picture.barcode) return barcodeRecord(picture, picture.barcode);
  const head = record(picture.kept, 46);
  if (!picture.kept) {
    if (picture.signatureBox) put16(head, 0x8018, 0);
    put16(head, picture.signatureBox ? 0 : 16, 4);
    head.write(`${picture.type}\0`.slice(0, 4), 40, 'latin1');
  }
  put16(head, picture.scaleX, 6);
  put16(head, picture.scaleY, 8);
  put16(head, picture.width, 10);
  put16(head, picture.height, 12);
  put32(head, 20 + 6 + picture.data.length, 16);
  if (!picture.kept) put32(head, 20 + 6 + picture.data.length, 26);
  // A linked picture: its path's length last in the record, the path's first two bytes after the type's tag.
  if (!picture.kept && picture.linked !== undefined) {
    put32(head, Buffer.byteLength(picture.linked, 'latin1'), 36);
    head.write(picture.linked.slice(0, 2), 44, 'latin1');
  }
  return Buffer.concat([head, picture.data]);
}

/** A text box in line (formats/tx/read.ts readBox): a 20-byte record, then the box's own document. */
function boxRecord(picture: TxPicture, box: NonNullable<TxPicture['box']>): Buffer {
  const head = record(picture.kept, 20);
  if (!picture.kept) head.set([0x07, 0x80, 0, 0, 0, 0, 100, 0, 100, 0]);
  put16(head, picture.width, 10);
  put16(head, picture.height, 12);
  const document = frameDocument(box.story, box.keptDocument);
  put32(head, document.length, 16);
  return Buffer.concat([head, document]);
}

/** A frame's or a text box's own TX document: its text's stream, then its settings as kept (TX's defaults for a new one). */
function frameDocument(story: TxStory, keptDocument: Uint8Array | undefined): Buffer {
  const document = new Bytes().bytes(TX_MAGIC);
  writeStream(document, story, 'frame document');
  const settings = txPrototypes().settings;
  document.bytes(keptDocument ?? new Bytes().u32(0).u32(settings.length).bytes(settings).u16(0).toBuffer());
  return document.toBuffer();
}

function changeRecord(change: TxChange): Buffer {
  const out = record(change.kept, 47);
  put32(out, change.start, 0);
  put32(out, change.end, 4);
  put16(out, 1, 8);
  const keptTicks = change.kept ? out.readBigUInt64LE(19) : undefined;
  const keptMs = keptTicks === undefined ? undefined : FILETIME_EPOCH_MS + Number(keptTicks / 10_000n);
  if (keptMs !== change.time.getTime()) out.writeBigUInt64LE(BigInt(change.time.getTime() - FILETIME_EPOCH_MS) * 10_000n, 19);
  return out;
}

/** Tables not inside another table's cells: the block's own; the rest are nested (flag 0x20). */
function outerTables(tables: TxTable[]): { outer: TxTable[]; nested: TxTable[] } {
  const range = (t: TxTable) => [t.cells[0]!.start, t.cells[t.cells.length - 1]!.end] as const;
  const inside = (a: TxTable, b: TxTable) => a !== b && range(b)[0] <= range(a)[0] && range(a)[1] <= range(b)[1];
  const nested = tables.filter((t) => tables.some((other) => inside(t, other)));
  return { outer: tables.filter((t) => !nested.includes(t)), nested };
}

type StoryKind = 'body' | 'header' | 'footer' | 'frame document';

/** A barcode in line (formats/tx/read.ts readBarcode): its head, TX's XML of it, the picture TX drew of it. */
function barcodeRecord(picture: TxPicture, barcode: NonNullable<TxPicture['barcode']>): Buffer {
  const xml = Buffer.from(barcode.xml, 'utf8');
  const head = record(barcode.kept, 36);
  if (!barcode.kept) {
    put16(head, 0x8010, 0);
    put32(head, 100, 20);
    put32(head, 16, 24);
  }
  put16(head, picture.scaleX, 6);
  put16(head, picture.scaleY, 8);
  put16(head, picture.width, 10);
  put16(head, picture.height, 12);
  put32(head, 16 + xml.length + 26 + picture.data.length, 16);
  put32(head, xml.length, 28);
  return Buffer.concat([head, xml, pictureFrom20(picture), picture.data]);
}

/** The 26 bytes before an image that a signature box or a barcode shows (a picture's record from byte 20). */
function pictureFrom20(picture: TxPicture): Buffer {
  const head = record(picture.kept, 26);
  if (!picture.kept) put16(head, 220, 2);
  put32(head, 26 + picture.data.length, 4);
  head.fill(0, 20, 24).write(`${picture.type}\0`.slice(0, 4), 20, 'latin1');
  return head;
}

/** TX's kinds of floating objects by where they are measured from (formats/tx/read.ts PLACEMENTS). */
const KINDS = Object.fromEntries(Object.entries(PLACEMENTS).map(([kind, placement]) => [placement, Number(kind)])) as Record<
  TxSignatureBox['placement'],
  number
>;

/**
 * A frame record (56 bytes) of the body's frame table: the kept one, or TX's object and settings;
 * the kind, anchor, offset (signed) and size from the model.
 */
function frameHead(frame: TxFrame, object: number, kind: number, settings: number[]): Buffer {
  const head = record(frame.kept, 56);
  if (!frame.kept) {
    put16(head, object, 4);
    settings.forEach((value, i) => put16(head, value, 26 + 2 * i));
  }
  put16(head, kind, 6);
  put16(head, frame.anchor + 1, 8);
  for (const [i, value] of [frame.x, frame.y].entries()) {
    if (!Number.isInteger(value) || Math.abs(value) > 31680) throw new TxLimitError(value);
    head.writeInt32LE(value, 10 + 4 * i);
  }
  put32(head, frame.width, 18);
  put32(head, frame.height, 22);
  return head;
}

function frameRecords(frames: TxFrame[]): Buffer {
  const out = new Bytes().u16(frames.length);
  for (const [index, frame] of frames.entries()) {
    if ('signature' in frame) {
      // The picture the box shows follows its record, as a picture's record from byte 20.
      const head = frameHead(frame, 0x8018, KINDS[frame.placement], [100, 100, 0, 0, 0, 0, 0, 0, 0, 2, 1001 + index, 0, 0, 1, 0]);
      const picture = pictureFrom20(frame.signature);
      out
        .bytes(head)
        .u32(picture.length + frame.signature.data.length)
        .bytes(picture)
        .bytes(frame.signature.data);
      continue;
    }
    // Kind 3 as the .NET SDK's file has it; kinds 1 and 2 with the settings of the CustomSigning NDA's box.
    const head = frame.placement
      ? frameHead(frame, 0x8007, KINDS[frame.placement], [100, 100, 0, 0, 0, 0, 0, 0, 0, 2, 1001 + index, 0, 0, 0, 0])
      : frameHead(frame, 0x8007, 3, [100, 100, 2, 0, 0, 0, 0, 0, 0, 0, 1001, 0, 0, 0, 0]);
    const document = frameDocument(frame.story, frame.keptDocument);
    out.bytes(head).u32(document.length).bytes(document);
  }
  return out.toBuffer();
}

function formattingBlock(story: TxStory, kind: StoryKind): Buffer {
  const kept = story.kept;
  // Tables with spreadsheet formulas go back where TX keeps them, with the formulas as they were.
  const sheet = kept?.sheet?.tables.filter((table) => story.tables.includes(table)) ?? [];
  const { outer, nested } = outerTables(story.tables.filter((table) => !sheet.includes(table)));
  // TX writes the names first, then the other property records, each in the order of the fields in the text.
  const named = (record: Buffer) => (record.readUInt16LE(2) === 0 ? 0 : 1);
  const placeOf = new Map<number, number>();
  for (const run of story.runs) if (run.field && !placeOf.has(run.field)) placeOf.set(run.field, run.start);
  const place = (record: Buffer) => placeOf.get(record.readUInt16LE(0)) ?? Infinity;
  const properties = [...story.fields.entries()]
    .flatMap(([id, field]) => fieldRecords(id, field))
    .sort(
      (a, b) =>
        named(a) - named(b) || place(a) - place(b) || a.readUInt16LE(2) - b.readUInt16LE(2) || a.readUInt16LE(0) - b.readUInt16LE(0),
    );
  const names = [...(kept?.names ?? [])];
  for (const { name } of [...story.marks, ...(story.targets ?? [])]) if (!names.includes(name)) names.push(name);
  let flags = kept?.flags ?? TX_FLAGS.base | TX_FLAGS.names;
  const set = (flag: number, on: boolean) => (flags = on ? flags | flag : flags & ~flag);
  set(TX_FLAGS.sectionRecord, kind === 'body');
  if (story.marks.length) set(TX_FLAGS.marks, true);
  if (nested.length) set(TX_FLAGS.nestedTables, true);
  if (story.changes?.length) set(TX_FLAGS.tracked, true);
  set(TX_FLAGS.regions, Boolean(story.regions?.length));
  if (story.frames?.length || kept?.frameTable) set(TX_FLAGS.frames, true);
  if (names.length) set(TX_FLAGS.names, true);
  set(TX_FLAGS.sheet, sheet.length > 0);
  const conditions = (story.conditions ?? []).filter((c) => story.fields.get(c.field)?.form);
  const words = story.targets !== undefined || conditions.length > 0 || kept?.wordsTable !== undefined;
  if (words) set(TX_FLAGS.newer, true);
  if (story.targets?.length && conditions.length)
    throw new InputError('returnFormat TX cannot hold link targets and conditional instructions in one part; choose DOCX.');

  const out = new Bytes();
  for (const count of [
    story.runs.length,
    story.charFormats.length,
    story.paragraphs.length,
    story.paraFormats.length,
    story.pictures?.length ?? 0,
    outer.length,
    story.cellFormats.length,
    properties.length,
    flags,
  ])
    out.u16(count);
  for (const run of story.runs) out.bytes(runRecord(run, run.field ? story.fields.get(run.field) : undefined));
  for (const format of story.charFormats) out.bytes(charFormatRecord(format));
  // The last paragraph ends past the text (its end is the text's end, not a mark).
  story.paragraphs.forEach((paragraph, i) => {
    out.u16(paragraph.format + 1).u16(paragraph.start + 1);
    out.u16(i === story.paragraphs.length - 1 ? story.text.length + 1 : paragraph.end);
  });
  for (const format of story.paraFormats) out.bytes(paraFormatRecord(format));
  for (const picture of story.pictures ?? []) out.bytes(pictureRecord(picture));
  for (const table of outer) out.bytes(tableRecords(table));
  for (const format of story.cellFormats) out.bytes(cellFormatRecord(format));
  for (const property of properties) out.bytes(property);

  out.bytes(kept?.faceHeader ?? txPrototypes().faceHeader);
  for (const format of story.charFormats) out.bytes(faceRecord(format));
  out.u32(kept?.codePage ?? txPrototypes().codePage);
  for (const format of story.paraFormats) out.bytes(record(format.keptExtra ?? txPrototypes().paraExtra, 32));
  for (const run of story.runs) out.bytes(format18(run.keptExtra, true));
  for (const paragraph of story.paragraphs) out.bytes(format18(paragraph.keptExtra, false));
  if (flags & TX_FLAGS.nestedTables) {
    out.u16(nested.length);
    for (const table of nested) out.bytes(tableRecords(table));
  }
  if (kept?.frameTable) out.bytes(kept.frameTable);
  else if (story.frames?.length) out.bytes(frameRecords(story.frames));
  if (kind === 'body') {
    const section = record(kept?.sectionRecord, 24);
    if (!kept?.sectionRecord) section.set([1, 0, 1, 0, 1, 0]);
    put32(section, story.text.length + 1, 6);
    out.bytes(section);
  }
  if (flags & TX_FLAGS.names) {
    out.u16(names.length);
    for (const name of names) out.utf16(`${name}\0`);
  }
  for (const format of story.cellFormats) out.bytes(cellBorderRecord(format));
  for (const picture of story.pictures ?? []) {
    const extra = record(picture.keptExtra, 42);
    if (!picture.keptExtra) put32(extra, picture.width, 12);
    if (!picture.keptExtra) put32(extra, picture.height, 16);
    out.bytes(extra);
  }
  if (sheet.length) {
    out.u16(sheet.length);
    for (const table of sheet) out.bytes(tableRecords(table));
  }
  if (flags & TX_FLAGS.marks) {
    out.u16(story.marks.length);
    for (const mark of story.marks) {
      const tail = record(mark.kept ?? txPrototypes().mark, 37);
      put32(tail, mark.start, 0);
      put32(tail, mark.end, 4);
      put16(tail, names.indexOf(mark.name) + 1, 19);
      out.bytes(tail);
    }
  }
  if (flags & TX_FLAGS.tracked) {
    out.u16(story.changes?.length ?? 0);
    for (const change of story.changes ?? []) out.bytes(changeRecord(change));
  }
  if (flags & TX_FLAGS.regions) {
    out.u16(story.regions!.length);
    for (const region of story.regions!) {
      const tail = record(region.kept ?? TX_REGION_RECORD(), 37);
      put32(tail, region.start, 0);
      put32(tail, region.end, 4);
      put32(tail, region.id, 21);
      out.bytes(tail);
    }
  }
  if (sheet.length) out.bytes(kept!.sheet!.formulas);
  if (words && kept?.wordsTable?.head === 0 && !story.targets?.length && !conditions.length) out.u16(0);
  else if (words) {
    const list = story.targets ?? [];
    // TX Text Control Words writes 8, with 4 set for link targets and 2 for conditional instructions.
    out.u16(8 | (list.length ? 4 : 0) | (conditions.length ? 2 : 0)).u16(list.length + conditions.length);
    for (const target of list) {
      const tail = record(target.kept, TARGET_RECORD);
      if (!target.kept) put16(tail, 2, 14);
      put32(tail, target.position, 0);
      put16(tail, names.indexOf(target.name), 4);
      out.bytes(tail);
    }
    for (const condition of conditions) out.bytes(condition.record);
    out.bytes(Buffer.alloc(kept?.wordsTable?.zeros ?? WORDS_ZEROS));
  }
  return out.toBuffer();
}

/** An extended run or paragraph record: the kept one, else TX's for style [Normal] (and, for a run, English). */
function format18(kept: Uint8Array | undefined, run: boolean): Buffer {
  return record(kept ?? (run ? txPrototypes().runExtra : txPrototypes().paragraphExtra), 18);
}

function writeStream(out: Bytes, story: TxStory, kind: StoryKind): void {
  const block = formattingBlock(story, kind);
  out.u16(story.text.length).u16(2).utf16(story.text).u16(0).u32(block.length).bytes(block);
}

const HEADER = 0x01;
const FIRST_HEADER = 0x02;
const FOOTER = 0x04;
const FIRST_FOOTER = 0x08;

/** The document as a .tx file. */
export function writeTx(doc: TxDocument): Buffer {
  const out = new Bytes().bytes(TX_MAGIC);
  writeStream(out, doc, 'body');
  const settings = doc.keptFile?.settings ?? txPrototypes().settings;
  // TX keeps a protection inside settings this writer does not compose: only the kept ones carry one.
  if (JSON.stringify(readProtection(settings)) !== JSON.stringify(doc.protection))
    throw new InputError('returnFormat TX cannot hold this document protection (editing restrictions); choose DOCX.');
  out.u32(0).u32(settings.length).bytes(settings);

  const section = new Bytes();
  const fixed = record(doc.keptFile?.section ?? txPrototypes().section, 46);
  put32(fixed, 0x32, 0);
  // The streams in TX's order: header, first-page header, footer, first-page footer.
  const streams = [
    [HEADER, doc.header, 'header'],
    [FIRST_HEADER, doc.firstHeader, 'header'],
    [FOOTER, doc.footer, 'footer'],
    [FIRST_FOOTER, doc.firstFooter, 'footer'],
  ] as const;
  let flags = (fixed.readUInt16LE(4) & ~(HEADER | FIRST_HEADER | FOOTER | FIRST_FOOTER)) | 0x4000;
  for (const [flag, story] of streams) if (story) flags |= flag;
  put16(fixed, flags, 4);
  const { page } = doc;
  put16(fixed, page.headerDistance, 10);
  put16(fixed, page.footerDistance, 12);
  put32(fixed, page.width, 18);
  put32(fixed, page.height, 22);
  page.margins.forEach((margin, i) => put16(fixed, margin, 26 + 2 * i));
  section.bytes(fixed);
  for (const [, story, kind] of streams) if (story) writeStream(section, story, kind);
  const end = record(doc.keptFile?.sectionEnd ?? txPrototypes().sectionEnd, 72);
  end.writeUInt32LE(1, 0);
  section.bytes(end);
  out
    .u16(1)
    .u32(section.length + 4)
    .bytes(section.toBuffer());
  return out.toBuffer();
}
