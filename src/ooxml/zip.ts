import zlib from 'node:zlib';
import { LRUCache } from 'lru-cache';

/** Bounds on what one archive may unpack to: a zip bomb gets a clear refusal, never our memory or CPU. */
export interface ZipLimits {
  maxEntries: number;
  /** Largest part, counted in bytes actually inflated (the sizes a ZIP declares can lie). */
  maxPartBytes: number;
  /** All parts together, inflated. */
  maxTotalBytes: number;
  /** Largest inflated/compressed ratio of a part above `ratioFloorBytes` (real XML stays far below). */
  maxRatio: number;
  ratioFloorBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 5_000,
  maxPartBytes: 256 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 8 * 1024 * 1024,
};

/** Why an archive was refused, in words for the user. */
export class ZipError extends Error {
  constructor(
    message: string,
    readonly kind: 'damaged' | 'limit',
  ) {
    super(message);
  }
}

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** A part whose packed bytes are at most this long may be remembered inflated (inflatedBefore). */
const REMEMBERED_PACKED_BYTES = 4096;
/** Nor is one remembered that inflates to more than this. */
const REMEMBERED_BYTES = 64 * 1024;

/**
 * Small parts inflated before, by their packed bytes. A template sent with every request (and so
 * detected, made inert, looked through again) has the same small parts each time, and Node's
 * zlib costs more to set up (about 13 µs) than such a part costs to inflate.
 */
const inflatedBefore = new LRUCache<string, Buffer>({
  max: 512,
  maxSize: 4 * 1024 * 1024,
  sizeCalculation: (content, key) => content.length + key.length,
});

/** A part's deflated bytes inflated with a hard output cap: more than `cap` bytes come back as cap + 1 zero bytes. */
function inflate(compressed: Buffer, cap: number): Buffer {
  const key = compressed.length <= REMEMBERED_PACKED_BYTES ? compressed.toString('latin1') : undefined;
  const known = key === undefined ? undefined : inflatedBefore.get(key);
  // A copy: callers may change what they were given.
  if (known) return known.length > cap ? Buffer.alloc(cap + 1) : Buffer.from(known);
  let content: Buffer;
  try {
    content = zlib.inflateRawSync(compressed, { maxOutputLength: Math.max(1, cap + 1) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) return Buffer.alloc(cap + 1);
    throw error;
  }
  if (key !== undefined && content.length <= REMEMBERED_BYTES && content.length <= cap) inflatedBefore.set(key, Buffer.from(content));
  return content;
}

/**
 * Reads a ZIP archive from its central directory and inflates each wanted entry with Node's
 * zlib under a hard output cap, so a part that inflates beyond its limit (whatever its header
 * says) is stopped after at most that many bytes. fflate, which writes our output packages,
 * trusts the declared sizes when reading and keeps inflating past them; hence this reader.
 */
export function readZip(
  bytes: Uint8Array,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
  want: (name: string) => boolean = () => true,
): Map<string, Uint8Array> {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(data, limits);
  const parts = new Map<string, Uint8Array>();
  let total = 0;
  for (const entry of entries) {
    if (entry.name.endsWith('/') || !want(entry.name)) continue;
    const start = dataStart(data, entry);
    if (start + entry.compressedSize > data.length) throw new ZipError(`the part ${entry.name} is cut off (truncated archive)`, 'damaged');
    const compressed = data.subarray(start, start + entry.compressedSize);
    const cap = Math.min(
      limits.maxPartBytes,
      limits.maxTotalBytes - total,
      Math.max(limits.ratioFloorBytes, entry.compressedSize * limits.maxRatio),
    );
    let content: Buffer;
    if (entry.method === 0) {
      content = compressed;
    } else if (entry.method === 8) {
      try {
        content = inflate(compressed, cap);
      } catch (error) {
        throw new ZipError(`the part ${entry.name} is damaged (${(error as Error).message})`, 'damaged');
      }
    } else {
      throw new ZipError(`the part ${entry.name} uses compression method ${entry.method}, which Office documents do not use`, 'damaged');
    }
    if (content.length > cap) throw new ZipError(overLimit(entry, content.length, limits, total), 'limit');
    total += content.length;
    parts.set(entry.name, content);
  }
  return parts;
}

function overLimit(entry: Entry, size: number, limits: ZipLimits, total: number): string {
  const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
  if (size > limits.maxPartBytes) return `the part ${entry.name} unpacks to more than ${mb(limits.maxPartBytes)}`;
  if (total + size > limits.maxTotalBytes) return `it unpacks to more than ${mb(limits.maxTotalBytes)}`;
  return `the part ${entry.name} unpacks to more than ${limits.maxRatio} times its packed size (a zip bomb)`;
}

function centralDirectory(data: Buffer, limits: ZipLimits): Entry[] {
  // The end record sits in the last 64 KiB + 22 bytes (its comment is at most 65535 bytes).
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65_535); i--) {
    if (data.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipError('it has no ZIP directory (truncated or not a ZIP archive)', 'damaged');
  const count = data.readUInt16LE(eocd + 10);
  const size = data.readUInt32LE(eocd + 12);
  const offset = data.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new ZipError('it is a ZIP64 archive, larger than any document we accept', 'limit');
  if (count > limits.maxEntries) throw new ZipError(`it has more than ${limits.maxEntries} parts`, 'limit');
  if (offset + size > data.length) throw new ZipError('its ZIP directory is cut off (truncated archive)', 'damaged');
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== CENTRAL) throw new ZipError('its ZIP directory is damaged', 'damaged');
    const nameLength = data.readUInt16LE(at + 28);
    const extraLength = data.readUInt16LE(at + 30);
    const commentLength = data.readUInt16LE(at + 32);
    if (data.readUInt16LE(at + 8) & 0x0001)
      throw new ZipError('it has encrypted ZIP entries, which Office documents never have', 'damaged');
    entries.push({
      method: data.readUInt16LE(at + 10),
      compressedSize: data.readUInt32LE(at + 20),
      localOffset: data.readUInt32LE(at + 42),
      name: data.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function dataStart(data: Buffer, entry: Entry): number {
  const at = entry.localOffset;
  if (at + 30 > data.length || data.readUInt32LE(at) !== LOCAL)
    throw new ZipError(`the part ${entry.name} is damaged (no local header)`, 'damaged');
  return at + 30 + data.readUInt16LE(at + 26) + data.readUInt16LE(at + 28);
}

/** Parts always deflated: markup. Others (media, embedded packages) only when they shrink (worthDeflating). */
const COMPRESSED_PARTS = /\.(xml|rels|vml|txt|html?|svg|emf|wmf|bmp|tiff?)$/i;

/** 1980-01-01 00:00, the earliest DOS date: output does not depend on the clock. */
const DOS_TIME = 0;
const DOS_DATE = (1 << 5) | 1;

/** The fields a local header and a central directory entry share, in the same order, from `at`. */
function writeEntryFields(
  header: Buffer,
  at: number,
  f: { method: number; crc: number; compressed: number; size: number; nameLength: number },
): void {
  header.writeUInt16LE(20, at); // version needed
  header.writeUInt16LE(0x0800, at + 2); // names in UTF-8
  header.writeUInt16LE(f.method, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(f.crc, at + 10);
  header.writeUInt32LE(f.compressed, at + 14);
  header.writeUInt32LE(f.size, at + 18);
  header.writeUInt16LE(f.nameLength, at + 22);
}

/**
 * Deflated bodies by part content. A merged document shares most of its parts (styles, theme,
 * fonts, settings) with its template, byte array for byte array: those are deflated once, not
 * for every document.
 */
const deflated = new WeakMap<Uint8Array, { level: number; method: 0 | 8; body: Buffer; crc: number }>();

/** Bytes sampled to judge whether a part that is usually compressed already (media) still deflates. */
const PROBE_BYTES = 64 * 1024;

/**
 * Whether deflating pays: markup always; any other part when a sample from its middle shrinks by
 * a tenth at the fastest level (an uncompressed picture under any name deflates to a fraction; a
 * real JPEG or PNG does not, and is stored as it is).
 */
function worthDeflating(name: string, bytes: Buffer): boolean {
  if (COMPRESSED_PARTS.test(name)) return true;
  if (bytes.length < 4096) return false;
  const from = Math.max(0, (bytes.length - PROBE_BYTES) >> 1);
  const sample = bytes.subarray(from, from + PROBE_BYTES);
  return zlib.deflateRawSync(sample, { level: 1 }).length < sample.length * 0.9;
}

function encode(name: string, bytes: Uint8Array, level: number): { method: 0 | 8; body: Buffer; crc: number } {
  const known = deflated.get(bytes);
  if (known && known.level === level) return known;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const method = worthDeflating(name, view) ? 8 : 0;
  const entry = { level, method, body: method === 8 ? zlib.deflateRawSync(view, { level }) : view, crc: zlib.crc32(view) >>> 0 } as const;
  deflated.set(bytes, entry);
  return entry;
}

/**
 * Writes a ZIP archive: XML parts deflated with Node's native zlib (an order of magnitude faster
 * than fflate's JavaScript deflate on merged documents, and smaller at the same level), media
 * stored as they are when they are compressed already, deflated when they are not. Level 3 is
 * zlib's fastest kind of search: on merged documents it deflated 3.5-4.7 times faster than
 * level 6, for parts 4-20% larger (a 100-row invoice's document.xml: 31 against 107 µs).
 */
export function writeZip(parts: Iterable<[string, Uint8Array]>, level = 3): Buffer {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for (const [name, data] of parts) {
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const { method, body, crc } = encode(name, data, level);
    const fileName = Buffer.from(name, 'utf8');
    const fields = { method, crc, compressed: body.length, size: bytes.length, nameLength: fileName.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    writeEntryFields(local, 4, fields);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(CENTRAL, 0);
    entry.writeUInt16LE(20, 4); // made by
    writeEntryFields(entry, 6, fields);
    entry.writeUInt32LE(offset, 42);
    chunks.push(local, fileName, body);
    central.push(entry, fileName);
    offset += 30 + fileName.length + body.length;
    count++;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, directory, end]);
}
