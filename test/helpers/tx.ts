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

/** A well-formed TX file the reader refuses by name: the twin marked as holding tracked changes. */
export const unreadableTx = (): Buffer => txWithFlags(0x179f | 0x4000);

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
