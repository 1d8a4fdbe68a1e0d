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

/** A TX file the reader refuses by name: the twin marked as a protected document (editable regions). */
export const unreadableTx = (): Buffer => txWithFlags(0x179f | 0x2000);

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
): Buffer {
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
  const record = Buffer.alloc(2 + 10 + 16 + 30 + 4);
  let at = record.writeUInt16LE(1, 0);
  for (const value of [0, 0, 0x8007, 3, anchor]) at = record.writeUInt16LE(value, at);
  for (const value of [frame.x, frame.y, frame.width, frame.height]) at = record.writeUInt32LE(value, at);
  for (const value of [100, 100, 2, 0, 0, 0, 0, 0, 0, 0, 1001, 0, 0, 0, 0]) at = record.writeUInt16LE(value, at);
  record.writeUInt32LE(embedded.length, at);
  const host = Buffer.concat([file.subarray(0, section), record, embedded, file.subarray(section)]);
  host.writeUInt16LE(host.readUInt16LE(block + 16) | 0x40, block + 16);
  host.writeUInt32LE(formatting + record.length + embedded.length, block - 4);
  if (!host.subarray(0, 14).equals(MAGIC)) throw new Error('not a TX file');
  return host;
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
  const table = Buffer.alloc(2 + 47 * changes.length);
  table.writeUInt16LE(changes.length, 0);
  changes.forEach((change, i) => {
    const record = table.subarray(2 + 47 * i);
    record.writeUInt32LE(change.start, 0);
    record.writeUInt32LE(change.end, 4);
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
