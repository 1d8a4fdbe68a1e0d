import CFB from 'cfb';
import { LINKING_FIELDS } from './fields.js';

/** Field begin, separator and end marks in Word 97-2003 text and field tables. */
const FIELD_BEGIN = 0x13;
const FIELD_MARKS = new Set([0x13, 0x14, 0x15]);

/**
 * Field types ([MS-DOC] Flt) that include or link a file: RD, INCLUDE, DDE, DDEAUTO, IMPORT,
 * LINK, INCLUDEPICTURE, INCLUDETEXT, DATABASE. The office goes by this number, not the text.
 */
const LINKING_FLT = new Set([0x0b, 0x24, 0x2d, 0x2e, 0x37, 0x38, 0x43, 0x44, 0x4e]);
/** "Unknown keyword": the office shows the field's last result and does nothing else. */
const UNKNOWN_FLT = 0x01;

/**
 * A Word 97-2003 document made inert: every field that includes or links a file becomes an
 * unknown field (its type in the field tables, and its keyword in the text, both overwritten in
 * place, so no offset moves). Pictures linked through their binary picture header are left to
 * the office's sandbox, which cannot see any file but the job's.
 */
export function inertDoc(input: Buffer): Buffer {
  let container: CFB.CFB$Container;
  try {
    container = CFB.read(input, { type: 'buffer' });
  } catch {
    return input; // never reaches the office as is: the converter has the office rewrite it as DOCX first
  }
  let changed = mapFieldTypes(container, (flt) => (LINKING_FLT.has(flt) ? UNKNOWN_FLT : flt));
  for (const entry of container.FileIndex) {
    if (entry.type !== 2 || !entry.content || entry.content.length === 0) continue;
    const content = Buffer.from(entry.content as Uint8Array);
    if (neuterKeywords(content)) {
      entry.content = content;
      changed = true;
    }
  }
  if (!changed) return input;
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

function stream(container: CFB.CFB$Container, name: string): CFB.CFB$Entry | undefined {
  return container.FileIndex.find((entry) => entry.type === 2 && entry.name.toLowerCase() === name.toLowerCase());
}

/**
 * Rewrites the type of every field that begins in the document's field tables (PlcFld: the
 * main text's, headers', notes', comments', text boxes'). The tables are found through the FIB
 * and recognised by their shape, so a table we do not know by index is not missed.
 * True when a type changed.
 */
export function mapFieldTypes(container: CFB.CFB$Container, map: (flt: number) => number): boolean {
  const word = stream(container, 'WordDocument');
  const wordBytes = word?.content as Uint8Array | undefined;
  if (!wordBytes || wordBytes.length < 64) return false;
  const fib = Buffer.from(wordBytes);
  const nFib = fib.readUInt16LE(0x02);
  if (nFib >= 101 && nFib < 193) return mapWord6FieldTypes(word!, fib, map);
  const flags = fib.readUInt16LE(0x0a);
  const tableEntry = stream(container, flags & 0x0200 ? '1Table' : '0Table');
  if (!tableEntry?.content) return false;
  const table = Buffer.from(tableEntry.content as Uint8Array);
  let at = 32;
  const csw = fib.readUInt16LE(at);
  at += 2 + csw * 2;
  if (at + 2 > fib.length) return false;
  const cslw = fib.readUInt16LE(at);
  at += 2 + cslw * 4;
  if (at + 2 > fib.length) return false;
  const pairs = fib.readUInt16LE(at);
  at += 2;
  let changed = false;
  for (let k = 0; k < pairs && at + k * 8 + 8 <= fib.length; k++) {
    const fc = fib.readUInt32LE(at + k * 8);
    const lcb = fib.readUInt32LE(at + k * 8 + 4);
    if (lcb < 10 || (lcb - 4) % 6 !== 0 || fc + lcb > table.length) continue;
    const n = (lcb - 4) / 6;
    const flds = fc + 4 * (n + 1);
    if (!looksLikePlcFld(table, fc, n, flds)) continue;
    for (let i = 0; i < n; i++) {
      const mark = table[flds + i * 2]! & 0x1f;
      if (mark !== FIELD_BEGIN) continue;
      const flt = table[flds + i * 2 + 1]!;
      const next = map(flt);
      if (next !== flt) {
        table[flds + i * 2 + 1] = next;
        changed = true;
      }
    }
  }
  if (changed) tableEntry.content = table;
  return changed;
}

/**
 * Word 6.0 and 95 keep the field tables in the WordDocument stream itself, and their FIB is a
 * fixed list of (offset, size) pairs; every pair that points at something shaped like a field
 * table is taken for one.
 */
function mapWord6FieldTypes(word: CFB.CFB$Entry, bytes: Buffer, map: (flt: number) => number): boolean {
  let changed = false;
  const end = Math.min(bytes.length - 8, 0x200);
  for (let at = 0x40; at <= end; at += 2) {
    const fc = bytes.readUInt32LE(at);
    const lcb = bytes.readUInt32LE(at + 4);
    if (lcb < 10 || (lcb - 4) % 6 !== 0 || fc < 0x80 || fc + lcb > bytes.length) continue;
    const n = (lcb - 4) / 6;
    const flds = fc + 4 * (n + 1);
    if (!looksLikePlcFld(bytes, fc, n, flds)) continue;
    for (let i = 0; i < n; i++) {
      if ((bytes[flds + i * 2]! & 0x1f) !== FIELD_BEGIN) continue;
      const flt = bytes[flds + i * 2 + 1]!;
      const next = map(flt);
      if (next !== flt) {
        bytes[flds + i * 2 + 1] = next;
        changed = true;
      }
    }
  }
  if (changed) word.content = bytes;
  return changed;
}

function looksLikePlcFld(table: Buffer, fc: number, n: number, flds: number): boolean {
  let previous = -1;
  for (let i = 0; i <= n; i++) {
    const cp = table.readUInt32LE(fc + i * 4);
    if (cp < previous) return false;
    previous = cp;
  }
  let begins = 0;
  for (let i = 0; i < n; i++) {
    const mark = table[flds + i * 2]! & 0x1f;
    if (!FIELD_MARKS.has(mark)) return false;
    if (mark === FIELD_BEGIN) begins++;
  }
  return begins > 0;
}

/** Overwrites linking field keywords that follow a field begin mark in text; true when any was found. */
function neuterKeywords(bytes: Buffer): boolean {
  let found = false;
  for (let i = bytes.indexOf(FIELD_BEGIN); i >= 0 && i < bytes.length - 2; i = bytes.indexOf(FIELD_BEGIN, i + 1)) {
    // 8-bit text: 0x13, spaces, KEYWORD
    let at = i + 1;
    while (bytes[at] === 0x20) at++;
    found = overwriteKeyword(bytes, at, 1) || found;
    // UTF-16 text: 0x13 0x00, (0x20 0x00)*, K 0x00 E 0x00 ...
    if (bytes[i + 1] === 0x00) {
      at = i + 2;
      while (bytes[at] === 0x20 && bytes[at + 1] === 0x00) at += 2;
      found = overwriteKeyword(bytes, at, 2) || found;
    }
  }
  return found;
}

function overwriteKeyword(bytes: Buffer, at: number, width: 1 | 2): boolean {
  let word = '';
  let end = at;
  while (end < bytes.length && word.length < 20) {
    const code = bytes[end]!;
    if (width === 2 && bytes[end + 1] !== 0x00) break;
    if (!((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a))) break;
    word += String.fromCharCode(code);
    end += width;
  }
  if (!LINKING_FIELDS.has(word.toUpperCase())) return false;
  for (let k = at; k < end; k += width) bytes[k] = 0x58; // 'X'
  return true;
}
