// TX files built from the PHP SDK's public ones (BSD-3, test/fixtures/reportingcloud/LICENSE.md).
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './server.js';

/** The twin: a .tx TX Text Control saved beside its .docx. */
export const twinTx = (): Buffer => fs.readFileSync(path.join(FIXTURES, 'text-in-merge-data', 'template.tx'));

/** The twin with its body's feature flags replaced. */
export function txWithFlags(flags: number): Buffer {
  const copy = twinTx();
  const textLength = copy.readUInt16LE(0x0e);
  const block = 0x12 + 2 * textLength + 6;
  copy.writeUInt16LE(flags, block + 16);
  return copy;
}

/** A TX file the reader refuses by name: the twin with a paragraph flag (0x0200) no public file has. */
export function unreadableTx(): Buffer {
  const copy = twinTx();
  const paragraphFormat = 0x12 + 2 * copy.readUInt16LE(0x0e) + 6 + 18 + 13 * 20 + 2 * 50 + 13 * 6;
  copy.writeUInt16LE(copy.readUInt16LE(paragraphFormat) | 0x0200, paragraphFormat);
  return copy;
}

/**
 * The find-and-replace template in the older layout without a name list (as TX Text Control's
 * Instructions.tx sample): feature flag 0x100 cleared and the list (one name, "Symbol") cut out.
 */
export function txWithoutNames(): Buffer {
  const file = fs.readFileSync(path.join(FIXTURES, 'resource', 'test_find_and_replace.tx'));
  const block = 0x12 + 2 * file.readUInt16LE(0x0e) + 6;
  const list = block + 444;
  if (file.readUInt16LE(list) !== 1 || file.subarray(list + 2, list + 16).toString('utf16le') !== 'Symbol\0')
    throw new Error('the fixture changed');
  const copy = Buffer.concat([file.subarray(0, list), file.subarray(list + 16)]);
  copy.writeUInt16LE(copy.readUInt16LE(block + 16) & ~0x100, block + 16);
  copy.writeUInt32LE(copy.readUInt32LE(block - 4) - 16, block - 4);
  return copy;
}

const MAGIC = Buffer.from([0x08, 0x07, 0x01, 0x00, 0x0e, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);

/**
 * The find-and-replace template with a text frame anchored at `anchor` (1-based) of its body, the
 * frame's own document being the same template (as TX Text Control embeds one): the body gets
 * feature flag 0x40 and a frame table before its section record; the embedded copy loses its
 * section record (flag 0x80) and section list, as the .NET SDK's replace_template.tx has them.
 */
export function txWithFrame(
  anchor: number,
  frame: { x: number; y: number; width: number; height: number } = { x: 0, y: 0, width: 2880, height: 2880 },
  kind = 3,
): Buffer {
  const { file, block, section, formatting, embedded } = embeddedFindAndReplace();
  const record = Buffer.alloc(2 + 10 + 16 + 30 + 4);
  let at = record.writeUInt16LE(1, 0);
  for (const value of [0, 0, 0x8007, kind, anchor]) at = record.writeUInt16LE(value, at);
  for (const value of [frame.x, frame.y, frame.width, frame.height]) at = record.writeUInt32LE(value, at);
  // Kind 3 as the .NET SDK's file has it; kinds 1 and 2 as the CustomSigning NDA's box.
  const settings = kind === 3 ? [100, 100, 2, 0, 0, 0, 0, 0, 0, 0, 1001, 0, 0, 0, 0] : [100, 100, 0, 0, 0, 0, 0, 0, 0, 2, 2002, 0, 0, 0, 0];
  for (const value of settings) at = record.writeUInt16LE(value, at);
  record.writeUInt32LE(embedded.length, at);
  const host = Buffer.concat([file.subarray(0, section), record, embedded, file.subarray(section)]);
  host.writeUInt16LE(host.readUInt16LE(block + 16) | 0x40, block + 16);
  host.writeUInt32LE(formatting + record.length + embedded.length, block - 4);
  if (!host.subarray(0, 14).equals(MAGIC)) throw new Error('not a TX file');
  return host;
}

/**
 * The find-and-replace template with a signature box anchored at `anchor` (1-based), as
 * TextControl's e-signing samples have one: a frame record of object 0x8018 (kind 1: placed from the
 * text area, 2: from the anchor's paragraph; the offset signed), then the picture it shows as a
 * picture's record holds it from byte 20 (`u16` 0 and 220, the length, zeros, the type's tag).
 */
export function txWithSignatureBox(
  anchor: number,
  box: { kind: number; x: number; y: number; width: number; height: number },
  image: Buffer,
  type = 'png',
): Buffer {
  const { file, block, section, formatting } = embeddedFindAndReplace();
  const record = Buffer.alloc(2 + 10 + 16 + 30 + 4);
  let at = record.writeUInt16LE(1, 0);
  for (const value of [0, 0, 0x8018, box.kind, anchor]) at = record.writeUInt16LE(value, at);
  for (const value of [box.x, box.y, box.width, box.height]) at = record.writeInt32LE(value, at);
  for (const value of [100, 100, 0, 0, 0, 0, 0, 0, 0, 2, 1001, 0, 0, 1, 0]) at = record.writeUInt16LE(value, at);
  const picture = Buffer.alloc(26);
  picture.writeUInt16LE(220, 2);
  picture.writeUInt32LE(26 + image.length, 4);
  picture.write(`${type}\0`, 20, 'latin1');
  record.writeUInt32LE(picture.length + image.length, at);
  const entry = Buffer.concat([record, picture, image]);
  const host = Buffer.concat([file.subarray(0, section), entry, file.subarray(section)]);
  host.writeUInt16LE(host.readUInt16LE(block + 16) | 0x40, block + 16);
  host.writeUInt32LE(formatting + entry.length, block - 4);
  return host;
}

/** The find-and-replace template, and the same as TX embeds a frame's or a text box's document: its section record and list cut. */
function embeddedFindAndReplace(): { file: Buffer; block: number; section: number; formatting: number; embedded: Buffer } {
  const file = fs.readFileSync(path.join(FIXTURES, 'resource', 'test_find_and_replace.tx'));
  const block = 0x12 + 2 * file.readUInt16LE(0x0e) + 6;
  const section = block + 420;
  if (file.readUInt16LE(section) !== 1 || file.readUInt32LE(section + 6) !== file.readUInt16LE(0x0e) + 1)
    throw new Error('the fixture changed');
  const formatting = file.readUInt32LE(block - 4);
  const settingsEnd = block + formatting + 8 + file.readUInt32LE(block + formatting + 4);
  // The embedded document: the stream without its section record, the settings, no sections.
  const embedded = Buffer.concat([file.subarray(0, section), file.subarray(section + 24, settingsEnd), Buffer.alloc(2)]);
  embedded.writeUInt16LE(embedded.readUInt16LE(block + 16) & ~0x80, block + 16);
  embedded.writeUInt32LE(formatting - 24, block - 4);
  return { file, block, section, formatting, embedded };
}

/**
 * The find-and-replace template with a text box in line at `at` (TextControl's e-signing samples' signature boxes): U+0001
 * in the text, the pictures count, a 20-byte record after the paragraph formats (`u16` 0x8007, kind
 * 0, the scaling, the box's size in twips, the length of what follows), the box's own document (the
 * find-and-replace template as TX embeds one), and the 42-byte second record at the block's end.
 */
export function txWithTextBox(at = 2, size: { width: number; height: number } = { width: 3015, height: 1500 }): Buffer {
  const { embedded } = embeddedFindAndReplace();
  return findAndReplaceWithEntry(at, Buffer.concat([objectHead(0x8007, size, embedded.length), embedded]), size);
}

/**
 * The find-and-replace template with U+0001 at `at` and one entry of the picture table: `entry`
 * (its record and what follows it) after the paragraph formats, and the 42-byte second record (the
 * size again) at the block's end.
 */
function findAndReplaceWithEntry(at: number, entry: Buffer, size: { width: number; height: number }): Buffer {
  const { file, block, formatting } = findAndReplaceWith(at, '\u0001');
  const extra = Buffer.alloc(42);
  extra.writeUInt32LE(size.width, 12);
  extra.writeUInt32LE(size.height, 16);
  const start = block + FR.afterRecords;
  const copy = Buffer.concat([
    file.subarray(0, start),
    entry,
    file.subarray(start, block + formatting),
    extra,
    file.subarray(block + formatting),
  ]);
  copy.writeUInt16LE(1, block + 8);
  copy.writeUInt32LE(formatting + entry.length + extra.length, block - 4);
  return copy;
}

/** A table of ranges as TX keeps them: a `u16` count, then per range `size` bytes starting with its `u32` start and end. */
function rangeTable<T extends { start: number; end: number }>(size: number, ranges: T[], fill: (record: Buffer, range: T) => void): Buffer {
  const table = Buffer.alloc(2 + size * ranges.length);
  table.writeUInt16LE(ranges.length, 0);
  ranges.forEach((range, i) => {
    const record = table.subarray(2 + size * i, 2 + size * (i + 1));
    record.writeUInt32LE(range.start, 0);
    record.writeUInt32LE(range.end, 4);
    fill(record, range);
  });
  return table;
}

/**
 * The find-and-replace template with tracked changes in its body (as the .NET SDK's tracked.tx):
 * feature flags 0x4000 (and 0x8000, which the newer TX that wrote it sets) and the change table at
 * the block's end, one 47-byte record per change (0-based start, end, kind, the bytes the sample
 * has, the FILETIME at byte 19).
 */
export function txWithChanges(changes: { start: number; end: number; kind?: number; time?: Date }[], newer = true): Buffer {
  const file = fs.readFileSync(path.join(FIXTURES, 'resource', 'test_find_and_replace.tx'));
  const block = 0x12 + 2 * file.readUInt16LE(0x0e) + 6;
  const formatting = file.readUInt32LE(block - 4);
  const table = rangeTable(47, changes, (record, change) => {
    record.writeUInt16LE(change.kind ?? 1, 8);
    Buffer.from('0a0000ff00003c0000', 'hex').copy(record, 10);
    const ticks = BigInt((change.time ?? new Date('2019-08-06T12:34:13.918Z')).getTime() - Date.UTC(1601, 0, 1)) * 10_000n;
    record.writeBigUInt64LE(ticks, 19);
    record.writeUInt16LE(0x2000, 27);
  });
  const copy = Buffer.concat([file.subarray(0, block + formatting), table, file.subarray(block + formatting)]);
  copy.writeUInt16LE(copy.readUInt16LE(block + 16) | 0x4000 | (newer ? 0x8000 : 0), block + 16);
  copy.writeUInt32LE(formatting + table.length, block - 4);
  return copy;
}

/** The find-and-replace template's body block: where it starts, how long it is, where its name list ("Symbol") sits. */
function findAndReplaceBlock(): { file: Buffer; block: number; formatting: number; list: number } {
  const file = fs.readFileSync(path.join(FIXTURES, 'resource', 'test_find_and_replace.tx'));
  const block = 0x12 + 2 * file.readUInt16LE(0x0e) + 6;
  const list = block + 444;
  if (file.readUInt16LE(list) !== 1 || file.subarray(list + 2, list + 16).toString('utf16le') !== 'Symbol\0')
    throw new Error('the fixture changed');
  return { file, block, formatting: file.readUInt32LE(block - 4), list };
}

/** The block's end grown by `tail` (and names added to its list), with feature flags added. */
function withTail(names: string[], tail: Buffer, flags: number): Buffer {
  const { file, block, formatting, list } = findAndReplaceBlock();
  const added = Buffer.from(names.map((name) => `${name}\0`).join(''), 'utf16le');
  const copy = Buffer.concat([
    file.subarray(0, list + 16),
    added,
    file.subarray(list + 16, block + formatting),
    tail,
    file.subarray(block + formatting),
  ]);
  copy.writeUInt16LE(1 + names.length, list);
  copy.writeUInt16LE(copy.readUInt16LE(block + 16) | flags, block + 16);
  copy.writeUInt32LE(formatting + added.length + tail.length, block - 4);
  return copy;
}

/** TX Text Control Words' closing table: `u16` 8 (12 with targets), the count, 34 bytes per target, 94 zero bytes. */
function targetTable(targets: { position: number; name: number }[]): Buffer {
  const table = Buffer.alloc(4 + 34 * targets.length + 94);
  table.writeUInt16LE(targets.length ? 12 : 8, 0);
  table.writeUInt16LE(targets.length, 2);
  targets.forEach((target, i) => {
    table.writeUInt32LE(target.position, 4 + 34 * i);
    table.writeUInt16LE(target.name, 4 + 34 * i + 4);
    table.writeUInt16LE(2, 4 + 34 * i + 14);
  });
  return table;
}

/**
 * The find-and-replace template as TX Text Control Words saves it (TXSamples' Hyperlink Document.tx):
 * feature flag 0x8000 and the closing table of link targets, each target's name added to the name list.
 */
export function txWithTargets(targets: { position: number; name: string }[]): Buffer {
  return withTail(
    targets.map((t) => t.name),
    targetTable(targets.map((t, i) => ({ position: t.position, name: 1 + i }))),
    0x8000,
  );
}

/**
 * The find-and-replace template protected with editable regions for everyone (TXSamples' Protected
 * Document.tx): flags 0x2000 and 0x8000, the region table (37 bytes each: start, end, the bytes the
 * sample has, the id at byte 21), Words' closing table; and, when given, the protection TX keeps in
 * its settings (`__TX_PERM__`, Word's attributes separated by `;`), appended to the settings.
 */
export function txWithRegions(regions: { start: number; end: number; id: number }[], permissions?: string): Buffer {
  const table = rangeTable(37, regions, (record, region) => {
    Buffer.from('080c00ff00003c000000000000', 'hex').copy(record, 8);
    record.writeUInt32LE(region.id, 21);
  });
  const copy = withTail([], Buffer.concat([table, targetTable([])]), 0x2000 | 0x8000);
  if (permissions === undefined) return copy;
  const block = 0x12 + 2 * copy.readUInt16LE(0x0e) + 6;
  const settingsAt = block + copy.readUInt32LE(block - 4) + 4;
  const settingsLength = copy.readUInt32LE(settingsAt);
  const value = Buffer.from(`__TX_PERM__;__TX_DOX_Begin__;${permissions};__TX_DOX_End__;`, 'utf16le');
  const record = Buffer.alloc(6);
  record.writeUInt32LE(2002, 0);
  record.writeUInt16LE(value.length, 4);
  const end = settingsAt + 4 + settingsLength;
  const out = Buffer.concat([copy.subarray(0, end), record, value, copy.subarray(end)]);
  out.writeUInt32LE(settingsLength + record.length + value.length, settingsAt);
  return out;
}

/**
 * The twin with its first field made a link, as TX stores one: to an address (run field kind
 * 0x0110, or 0x0100 as TextControl's NDA and quick-start samples have it; the address as property
 * 1) or to a place in the document (0x0210, the target's name as property 2), in place of the merge
 * field's name and instruction.
 */
export function twinWithLink(value: string, kind: 'address' | 'place' | 'address 0x0100' = 'address'): Buffer {
  const twin = twinTx();
  const textLength = twin.readUInt16LE(0x0e);
  const blockAt = 0x12 + 2 * textLength + 6;
  const block = Buffer.from(twin.subarray(blockAt, blockAt + twin.readUInt32LE(blockAt - 4)));
  block.writeUInt16LE({ address: 0x0110, place: 0x0210, 'address 0x0100': 0x0100 }[kind], 18 + 20 + 14);
  const propertiesAt = 18 + 13 * 20 + 2 * 50 + 13 * 6 + 62 + 12 + 12 * 18 + 2 * 28;
  const property = (at: number) => 14 + block.readUInt32LE(at + 10);
  const sizes: number[] = [];
  for (let i = 0, at = propertiesAt; i < 12; i++) {
    sizes.push(property(at));
    at += sizes[i]!;
  }
  const payload = Buffer.from(`${value}\0`, 'utf16le');
  const head = Buffer.alloc(14);
  head.writeUInt16LE(1, 0);
  head.writeUInt16LE(kind === 'place' ? 2 : 1, 2);
  head.writeUInt32LE(payload.length, 10);
  const at = (i: number) => propertiesAt + sizes.slice(0, i).reduce((a, b) => a + b, 0);
  // Names first, then the other properties by field id, as TX orders them.
  const rebuilt = Buffer.concat([block.subarray(0, propertiesAt), block.subarray(at(1), at(6)), head, payload, block.subarray(at(7))]);
  rebuilt.writeUInt16LE(11, 14);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(rebuilt.length);
  return Buffer.concat([twin.subarray(0, blockAt - 4), length, rebuilt, twin.subarray(blockAt + block.length)]);
}

/** The find-and-replace template (one run, one font, five paragraphs, one paragraph format) with its text's character `at` replaced. */
function findAndReplaceWith(at: number, ch: string): { file: Buffer; block: number; formatting: number } {
  const { file, block, formatting } = findAndReplaceBlock();
  const copy = Buffer.from(file);
  copy.write(ch, 0x12 + 2 * at, 'utf16le');
  return { file: copy, block, formatting };
}

/** Byte offsets in the find-and-replace template's block (counts of 1 run, 1 font, 5 paragraphs, 1 format, no properties). */
const FR = { runs: 18, fonts: 38, paragraphFormats: 118, afterRecords: 180, runExtras: 180 + 16 + 80 + 4 + 32 } as const;

/**
 * The find-and-replace template with a picture in line at `at` (TXSamples' Booking Request.tx has one in its
 * header): U+0001 in the text, the pictures count, a 40-byte record after the paragraph formats (`u16` 16, the
 * scaling, the own size in twips, the length from byte 20), the type's tag (`png\0`, `svg\0`) and two bytes, the image; and the 42-byte
 * second record (the size again) at the block's end.
 */
export function txWithPicture(
  png: Buffer,
  at = 2,
  size: { width: number; height: number; scaleX: number; scaleY: number } = { width: 1440, height: 720, scaleX: 50, scaleY: 50 },
  type = 'png',
  linked?: string,
): Buffer {
  if (linked !== undefined) {
    // A picture linked to a file (the InsuranceClaim sample's logo): the path's length last in the
    // record, the path from the two bytes after the tag on, a NUL, and what TX keeps after it.
    const path = Buffer.from(`${linked}\0`, 'latin1');
    const record = txWithPicture(Buffer.concat([path.subarray(2), png]), at, size, type);
    const tag = record.indexOf(Buffer.from(`${type}\0`, 'latin1'));
    record.writeUInt32LE(linked.length, tag - 4);
    path.copy(record, tag + 4, 0, 2);
    return record;
  }
  const record = Buffer.alloc(46);
  record.writeUInt16LE(16, 4);
  record.writeUInt16LE(size.scaleX, 6);
  record.writeUInt16LE(size.scaleY, 8);
  record.writeUInt16LE(size.width, 10);
  record.writeUInt16LE(size.height, 12);
  record.writeUInt32LE(26 + png.length, 16);
  record.writeUInt16LE(220, 24);
  record.writeUInt32LE(26 + png.length, 26);
  record.write(`${type}\0`, 40, 'latin1');
  return findAndReplaceWithEntry(at, Buffer.concat([record, png]), size);
}

/** The 20 bytes a picture-table entry starts with: its object, kind 0, scaled 100 %, its size, the length of what follows. */
function objectHead(object: number, size: { width: number; height: number }, length: number): Buffer {
  const head = Buffer.alloc(20);
  head.writeUInt16LE(object, 0);
  head.writeUInt16LE(100, 6);
  head.writeUInt16LE(100, 8);
  head.writeUInt16LE(size.width, 10);
  head.writeUInt16LE(size.height, 12);
  head.writeUInt32LE(length, 16);
  return head;
}

/**
 * The find-and-replace template with a barcode in line at `at` (TextControl's Barcode sample): a
 * picture-table entry of object 0x8010, 16 bytes (100, 16, the XML's length, 0), TX's barcode XML,
 * then the picture TX drew of it as a picture's record holds one from byte 20.
 */
export function txWithBarcode(image: Buffer, text = 'AAAA', at = 2, size = { width: 2880, height: 2880 }): Buffer {
  const xml = Buffer.from(
    '<?xml version="1.0" encoding="utf-8"?>\r\n<BarcodeData_TXBarcode_3.0>\r\n  <BarcodeType>QRCode</BarcodeType>\r\n' +
      `  <Text>${text}</Text>\r\n</BarcodeData_TXBarcode_3.0>`,
    'utf8',
  );
  const prefix = Buffer.alloc(16);
  prefix.writeUInt32LE(100, 0);
  prefix.writeUInt32LE(16, 4);
  prefix.writeUInt32LE(xml.length, 8);
  const head = Buffer.concat([objectHead(0x8010, size, 16 + xml.length + 26 + image.length), prefix]);
  const picture = Buffer.alloc(26);
  picture.writeUInt16LE(220, 2);
  picture.writeUInt32LE(26 + image.length, 4);
  picture.write('png\0', 20, 'latin1');
  return findAndReplaceWithEntry(at, Buffer.concat([head, xml, picture, image]), size);
}

/** The find-and-replace template with its paragraph format's line spacing replaced (TX's raw `u16`: percent, or 0x8000 and twips). */
export function txWithLineSpacing(value: number): Buffer {
  const { file, block } = findAndReplaceBlock();
  const copy = Buffer.from(file);
  copy.writeUInt16LE(value, block + FR.paragraphFormats + 12);
  return copy;
}

/**
 * The find-and-replace template with a form field (TX Text Control Words) at `at`: U+0002 in the
 * text, the run split in three with the middle one the field's (kind 0x1090 text, 0x1190 date,
 * 0x0f92 drop-down), its properties (name; a drop-down's items, separated and ended as TX keeps
 * them; a date field's five empty settings), and, given conditions, Words' closing table (0x0a)
 * with the field's conditional instructions.
 */
export function txWithFormField(
  kind: 'text' | 'date' | 'dropdown',
  name: string,
  options: { at?: number; items?: string[]; conditions?: string } = {},
): Buffer {
  const at = options.at ?? 2;
  const { file, block, formatting } = findAndReplaceWith(at, '\u0002');
  const textLength = file.readUInt16LE(0x0e);
  const run = file.subarray(block + FR.runs, block + FR.runs + 20);
  const runExtra = file.subarray(block + FR.runExtras, block + FR.runExtras + 18);
  const codes = { text: 0x1090, date: 0x1190, dropdown: 0x0f92 } as const;
  const runs = [
    [1, at, 0, 0],
    [at + 1, 1, 1, codes[kind]],
    [at + 2, textLength - at - 1, 0, 0],
  ].map(([position, length, field, code]) => {
    const r = Buffer.from(run);
    r.writeUInt16LE(position!, 2);
    r.writeUInt32LE(length!, 4);
    r.writeUInt16LE(field!, 12);
    r.writeUInt16LE(code!, 14);
    return r;
  });
  const property = (type: number, value: string) => {
    const payload = Buffer.from(value, 'utf16le');
    const head = Buffer.alloc(14);
    head.writeUInt16LE(1, 0);
    head.writeUInt16LE(type, 2);
    head.writeUInt32LE(payload.length, 10);
    return Buffer.concat([head, payload]);
  };
  const properties = [
    property(0, `${name}\0`),
    ...(kind === 'dropdown' ? [property(15, `${(options.items ?? []).join('\0')}\0\0`)] : []),
    ...(kind === 'date' ? [property(17, '\0'.repeat(5))] : []),
  ];
  const words =
    options.conditions === undefined
      ? Buffer.alloc(0)
      : Buffer.concat([Buffer.from([0x0a, 0, 1, 0]), property(codes[kind] >> 8, `${options.conditions}\0`), Buffer.alloc(94)]);
  if (words.length) words.writeUInt16LE(1, 4);
  const copy = Buffer.concat([
    file.subarray(0, block + FR.runs),
    ...runs,
    file.subarray(block + FR.runs + 20, block + FR.afterRecords),
    ...properties,
    file.subarray(block + FR.afterRecords, block + FR.runExtras),
    runExtra,
    runExtra,
    file.subarray(block + FR.runExtras, block + formatting),
    words,
    file.subarray(block + formatting),
  ]);
  copy.writeUInt16LE(3, block);
  copy.writeUInt16LE(properties.length, block + 14);
  if (words.length) copy.writeUInt16LE(copy.readUInt16LE(block + 16) | 0x8000, block + 16);
  const added = 40 + properties.reduce((n, p) => n + p.length, 0) + 36 + words.length;
  copy.writeUInt32LE(formatting + added, block - 4);
  return copy;
}

/**
 * The twin with its table as a spreadsheet table (TXSamples' Cashflow.tx): the block's table count 0,
 * feature flag 0x0800, a `u16` count and the table after the cell borders (before the twin's one
 * mark), and the formulas' records at the block's end (here `formulas`, kept without decoding).
 */
export function txWithSheet(formulas: Buffer): Buffer {
  const twin = twinTx();
  const block = 0x12 + 2 * twin.readUInt16LE(0x0e) + 6;
  const formatting = twin.readUInt32LE(block - 4);
  const tableAt = block + 18 + 13 * 20 + 2 * 50 + 13 * 6 + 62;
  const tableLength = 12 + 12 * 18;
  if (twin.readUInt16LE(block + 10) !== 1 || twin.readUInt16LE(tableAt) !== 2 || twin.readUInt16LE(tableAt + 2) !== 6)
    throw new Error('the fixture changed');
  const count = Buffer.from([1, 0]);
  const marks = block + formatting - 2 - 37;
  if (twin.readUInt16LE(marks) !== 1) throw new Error('the fixture changed');
  const copy = Buffer.concat([
    twin.subarray(0, tableAt),
    twin.subarray(tableAt + tableLength, marks),
    count,
    twin.subarray(tableAt, tableAt + tableLength),
    twin.subarray(marks, block + formatting),
    formulas,
    twin.subarray(block + formatting),
  ]);
  copy.writeUInt16LE(0, block + 10);
  copy.writeUInt16LE(copy.readUInt16LE(block + 16) | 0x0800, block + 16);
  copy.writeUInt32LE(formatting + 2 + formulas.length, block - 4);
  return copy;
}

/**
 * The twin with header and footer streams (section flags: 0x01 header, 0x02 first-page header,
 * 0x04 footer, 0x08 first-page footer, in that order, as TextControl's Parallel sample has all
 * four): each the find-and-replace template's stream without its text-section record, its third
 * character made H, h, F or f to tell them apart.
 */
export function txWithStories(flags: number): Buffer {
  const source = fs.readFileSync(path.join(FIXTURES, 'resource', 'test_find_and_replace.tx'));
  const textLength = source.readUInt16LE(0x0e);
  const streamEnd = 0x12 + 2 * textLength + 6 + source.readUInt32LE(0x12 + 2 * textLength + 2);
  const stream = Buffer.from(source.subarray(0x0e, streamEnd));
  const blockAt = 4 + 2 * textLength + 6;
  const record = blockAt + 180 + 16 + 80 + 4 + 32 + 18 * 6;
  if (stream.readUInt32LE(record + 6) !== textLength + 1) throw new Error('the fixture changed');
  const base = Buffer.concat([stream.subarray(0, record), stream.subarray(record + 24)]);
  base.writeUInt32LE(stream.readUInt32LE(blockAt - 4) - 24, blockAt - 4);
  base.writeUInt16LE(0x071f, blockAt + 16);
  const streams = (
    [
      [0x01, 'H'],
      [0x02, 'h'],
      [0x04, 'F'],
      [0x08, 'f'],
    ] as const
  )
    .filter(([flag]) => flags & flag)
    .map(([, letter]) => {
      const copy = Buffer.from(base);
      copy.write(letter, 4 + 2 * 2, 'utf16le');
      return copy;
    });
  const twin = twinTx();
  const sectionAt = twin.length - 122 - 2;
  const section = twin.subarray(sectionAt + 6);
  const flagged = Buffer.from(section.subarray(0, 46));
  flagged.writeUInt16LE(0x4000 | flags, 4);
  const body = Buffer.concat([flagged, ...streams, section.subarray(46)]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length + 4);
  return Buffer.concat([twin.subarray(0, sectionAt + 2), length, body]);
}

/** The find-and-replace template with its paragraph format's flags, indents or first tab stop replaced (TX's raw values). */
export function txWithParagraphFormat(change: {
  flags?: number;
  tab?: { kind: number; position: number };
  indents?: [number, number, number];
}): Buffer {
  const { file, block } = findAndReplaceBlock();
  const copy = Buffer.from(file);
  const format = block + FR.paragraphFormats;
  if (change.flags !== undefined) copy.writeUInt16LE(change.flags, format);
  change.indents?.forEach((indent, i) => copy.writeUInt16LE(indent, format + 2 + 2 * i));
  if (change.tab) {
    copy[format + 20] = change.tab.kind;
    copy.writeUInt16LE(change.tab.position, format + 21);
  }
  return copy;
}

/**
 * The find-and-replace template with fields of no text before characters of its text (runs of
 * length 0, as TextControl's samples have them): each with its run kind and one property record
 * (`kind`, a UTF-16 payload), the text's run split around them.
 */
function txWithEmptyFields(fields: { at: number; code: number; property: number; value: string }[]): Buffer {
  const { file, block, formatting } = findAndReplaceBlock();
  const textLength = file.readUInt16LE(0x0e);
  const run = file.subarray(block + FR.runs, block + FR.runs + 20);
  const runExtra = file.subarray(block + FR.runExtras, block + FR.runExtras + 18);
  const record = (position: number, length: number, field: number, code: number) => {
    const r = Buffer.from(run);
    r.writeUInt16LE(position, 2);
    r.writeUInt32LE(length, 4);
    r.writeUInt16LE(field, 12);
    r.writeUInt16LE(code, 14);
    return r;
  };
  const sorted = [...fields].sort((a, b) => a.at - b.at);
  const runs: Buffer[] = [];
  let from = 0;
  // Code 0: a run of no text and no field (TextControl's CustomSigning and Barcode samples have them).
  const coded = sorted.filter((field) => field.code !== 0);
  for (const field of sorted) {
    if (field.at > from) runs.push(record(from + 1, field.at - from, 0, 0));
    runs.push(record(field.at + 1, 0, field.code ? coded.indexOf(field) + 1 : 0, field.code));
    from = field.at;
  }
  runs.push(record(from + 1, textLength - from, 0, 0));
  const properties = coded.map((field, i) => {
    const payload = Buffer.from(field.value, 'utf16le');
    const head = Buffer.alloc(14);
    head.writeUInt16LE(i + 1, 0);
    head.writeUInt16LE(field.property, 2);
    head.writeUInt32LE(payload.length, 10);
    return Buffer.concat([head, payload]);
  });
  const copy = Buffer.concat([
    file.subarray(0, block + FR.runs),
    ...runs,
    file.subarray(block + FR.runs + 20, block + FR.afterRecords),
    ...properties,
    file.subarray(block + FR.afterRecords, block + FR.runExtras),
    ...runs.slice(1).map(() => runExtra),
    file.subarray(block + FR.runExtras, block + formatting),
    file.subarray(block + formatting),
  ]);
  copy.writeUInt16LE(runs.length, block);
  copy.writeUInt16LE(properties.length, block + 14);
  const added = 20 * (runs.length - 1) + properties.reduce((n, p) => n + p.length, 0) + 18 * (runs.length - 1);
  copy.writeUInt32LE(formatting + added, block - 4);
  return copy;
}

/**
 * The find-and-replace template with a page number (run field type 3) or page count (type 9)
 * field before its character `at`: a run of no text, as TextControl's Parallel sample has them in
 * its footers, and the field's one empty property of the type's number.
 */
export function txWithPageField(page: 'number' | 'count', at = 12): Buffer {
  const type = page === 'number' ? 3 : 9;
  return txWithEmptyFields([{ at, code: type << 8, property: type, value: '' }]);
}

/** The find-and-replace template with a run of no text and no field before its character `at`. */
export function txWithEmptyRun(at: number): Buffer {
  return txWithEmptyFields([{ at, code: 0, property: 0, value: '' }]);
}

/** The find-and-replace template with a document target named `name` at `at` (type 4, flags 0: the Blockchain sample's `_DV_M52`). */
export function txWithTargetField(name: string, at: number): Buffer {
  return txWithEmptyFields([{ at, code: 0x0400, property: 4, value: `${name}\0` }]);
}

/**
 * The find-and-replace template with a merge block marked as older TX versions mark one
 * (TextControl's MailMerge.WebAPI sample): `BlockStart_name` and `BlockEnd_name` fields of no text
 * (run field kind 0x0401, the name as property 4) at `start` and `end`.
 */
export function txWithBlockFields(name: string, start: number, end: number): Buffer {
  return txWithEmptyFields([
    { at: start, code: 0x0401, property: 4, value: `BlockStart_${name}\0` },
    { at: end, code: 0x0401, property: 4, value: `BlockEnd_${name}\0` },
  ]);
}

/**
 * The find-and-replace template with its third paragraph ("%%FIELD1%% -- hello world.") in a
 * table with a merged cell (TextControl's Financial sample has both kinds): `across`, one row of
 * two cells, the first spanning the second (cell flags 0x04 and 0x01); `down`, two rows of one
 * cell, the second merged into the first (0x02). A merged cell holds no text (its end one before
 * its start) and keeps its own place. The cell format is the twin's first.
 */
export function txWithMergedTable(kind: 'across' | 'down'): Buffer {
  const { file, block, formatting, list } = findAndReplaceBlock();
  const twin = twinTx();
  const twinBlock = 0x12 + 2 * twin.readUInt16LE(0x0e) + 6;
  const twinCellFormat = twinBlock + 18 + 13 * 20 + 2 * 50 + 13 * 6 + 62 + 12 + 12 * 18;
  const cellFormat = twin.subarray(twinCellFormat, twinCellFormat + 28);
  const twinBorders = twinBlock + twin.readUInt32LE(twinBlock - 4) - 39 - 2 * 52;
  const borders = twin.subarray(twinBorders, twinBorders + 52);
  const cell = (start: number, end: number, left: number, width: number, flags: number) => {
    const out = Buffer.alloc(18);
    out.writeUInt16LE(start, 0);
    out.writeUInt16LE(end, 2);
    out.writeUInt32LE(left, 4);
    out.writeUInt32LE(width, 8);
    out.writeUInt16LE(1, 12);
    out.writeUInt32LE(flags, 14);
    return out;
  };
  const head = Buffer.alloc(12);
  const cells =
    kind === 'across'
      ? [cell(3, 28, 0, 9000, 0x04), cell(29, 28, 4500, 4500, 0x01)]
      : [cell(3, 28, 0, 9000, 0), cell(29, 28, 0, 9000, 0x02)];
  head.writeUInt16LE(kind === 'across' ? 1 : 2, 0);
  head.writeUInt16LE(kind === 'across' ? 2 : 1, 2);
  const table = Buffer.concat([head, ...cells]);
  const at = block + FR.afterRecords;
  const copy = Buffer.concat([file.subarray(0, at), table, cellFormat, file.subarray(at, list + 16), borders, file.subarray(list + 16)]);
  copy.writeUInt16LE(1, block + 10);
  copy.writeUInt16LE(1, block + 12);
  copy.writeUInt32LE(formatting + table.length + cellFormat.length + borders.length, block - 4);
  return copy;
}
