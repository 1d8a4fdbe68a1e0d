import CFB from 'cfb';
import { LINKING_FIELDS } from './fields.js';
import { inertOfficeArtStream, type Range } from './officeArt.js';

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

/** Nested documents in a compound file's streams (an embedded DOCX or RTF) are made inert by the caller's rules. */
export interface CompoundOptions {
  depth: number;
  nested(bytes: Buffer, depth: number): Buffer;
}

/**
 * A Word 97-2003 document made inert: every field that includes or links a file becomes an
 * unknown field (its type in the field tables, and its keyword in the text, both overwritten in
 * place, so no offset moves), and every picture in every stream is judged by its bytes
 * (officeArt.ts), Excel and other objects embedded in it included.
 */
export function inertDoc(input: Buffer, options?: CompoundOptions): Buffer {
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
  changed = inertCompoundStreams(container, options) || changed;
  if (!changed) return input;
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/**
 * Any other compound file (an object embedded in a document: a workbook, a package) with the
 * pictures in its streams judged as in a DOC; the input itself when nothing changed, empty when
 * our reader cannot take it apart.
 */
export function inertCompound(input: Buffer, options?: CompoundOptions): Buffer {
  let container: CFB.CFB$Container;
  try {
    container = CFB.read(input, { type: 'buffer' });
  } catch {
    return Buffer.alloc(0);
  }
  if (!inertCompoundStreams(container, options)) return input;
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/** Every stream of a compound file, storages inside storages included: pictures judged, nested documents made inert. */
function inertCompoundStreams(container: CFB.CFB$Container, options?: CompoundOptions): boolean {
  let changed = false;
  container.FileIndex.forEach((entry, i) => {
    if (entry.type !== 2 || !entry.content || entry.content.length === 0) return;
    const content = Buffer.from(entry.content as Uint8Array);
    if (options && options.depth > 0 && isNestedDocument(content)) {
      const made = options.nested(content, options.depth - 1);
      if (made !== content) {
        entry.content = made;
        changed = true;
      }
      return;
    }
    const path = container.FullPaths[i] ?? '';
    const text = entry.name.toLowerCase() === 'worddocument' ? wordText(container, path, content) : [];
    if (inertOfficeArtStream(content, text)) {
      entry.content = content;
      changed = true;
    }
  });
  return changed;
}

/** A package (ZIP), RTF or compound file held whole in a stream, as OLE objects keep embedded documents. */
function isNestedDocument(bytes: Buffer): boolean {
  return (
    bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ||
    bytes.subarray(0, 5).toString('latin1') === '{\\rtf' ||
    bytes.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))
  );
}

/**
 * Where a Word document's text lies in its WordDocument stream: the pieces of its piece table
 * (Word 97 and later), and the range the FIB gives (fcMin..fcMac, all Word 6 and 95 have).
 */
function wordText(container: CFB.CFB$Container, path: string, word: Buffer): Range[] {
  if (word.length < 32) return [];
  const ranges: Range[] = [];
  const fcMin = word.readUInt32LE(0x18);
  const fcMac = word.readUInt32LE(0x1c);
  if (fcMin < fcMac && fcMac <= word.length) ranges.push({ start: fcMin, end: fcMac });
  const nFib = word.readUInt16LE(0x02);
  if (nFib < 193) return ranges;
  const folder = path.slice(0, path.lastIndexOf('/') + 1);
  const tableName = word.readUInt16LE(0x0a) & 0x0200 ? '1Table' : '0Table';
  const index = container.FullPaths.findIndex((p) => p.toLowerCase() === `${folder}${tableName}`.toLowerCase());
  const table = index >= 0 ? (container.FileIndex[index]!.content as Uint8Array | undefined) : undefined;
  const clx = fcLcb(word, CLX_INDEX);
  if (!table || !clx || clx.fc + clx.lcb > table.length) return ranges;
  return [...ranges, ...pieces(Buffer.from(table).subarray(clx.fc, clx.fc + clx.lcb), word.length)];
}

/** FibRgFcLcb97's pair for the piece table (fcClx). */
const CLX_INDEX = 33;

/** The (fc, lcb) pair `index` of the FIB's FibRgFcLcb, when the FIB has it. */
function fcLcb(fib: Buffer, index: number): { fc: number; lcb: number } | undefined {
  return fcLcbPairs(fib)[index];
}

/** Every (fc, lcb) pair of the FIB's FibRgFcLcb (after its FibRgW and FibRgLw), as far as the FIB holds them. */
function fcLcbPairs(fib: Buffer): { fc: number; lcb: number }[] {
  let at = 32;
  if (at + 2 > fib.length) return [];
  at += 2 + fib.readUInt16LE(at) * 2; // csw, FibRgW
  if (at + 2 > fib.length) return [];
  at += 2 + fib.readUInt16LE(at) * 4; // cslw, FibRgLw
  if (at + 2 > fib.length) return [];
  const count = fib.readUInt16LE(at);
  at += 2;
  const pairs: { fc: number; lcb: number }[] = [];
  for (let k = 0; k < count && at + k * 8 + 8 <= fib.length; k++)
    pairs.push({ fc: fib.readUInt32LE(at + k * 8), lcb: fib.readUInt32LE(at + k * 8 + 4) });
  return pairs;
}

/** The text pieces (MS-DOC Clx, Pcdt): 8-bit pieces a byte a character, the others two. */
function pieces(clx: Buffer, streamLength: number): Range[] {
  let at = 0;
  while (at < clx.length && clx[at] === 0x01) {
    if (at + 3 > clx.length) return [];
    at += 3 + clx.readInt16LE(at + 1); // Prc: property modifiers, skipped
  }
  if (clx[at] !== 0x02 || at + 5 > clx.length) return [];
  const lcb = clx.readUInt32LE(at + 1);
  const plc = clx.subarray(at + 5, at + 5 + lcb);
  if (plc.length !== lcb || lcb < 16 || (lcb - 4) % 12 !== 0) return [];
  const n = (lcb - 4) / 12;
  const ranges: Range[] = [];
  for (let i = 0; i < n; i++) {
    const characters = plc.readUInt32LE((i + 1) * 4) - plc.readUInt32LE(i * 4);
    const fc = plc.readUInt32LE((n + 1) * 4 + i * 8 + 2);
    const compressed = (fc & 0x40000000) !== 0;
    const start = compressed ? (fc & 0x3fffffff) / 2 : fc;
    const end = Math.min(streamLength, start + characters * (compressed ? 1 : 2));
    if (characters > 0 && start < end) ranges.push({ start, end });
  }
  return ranges;
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
  let changed = false;
  for (const { fc, lcb } of fcLcbPairs(fib)) {
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
