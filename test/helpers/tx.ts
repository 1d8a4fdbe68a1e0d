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
