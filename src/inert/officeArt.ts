import zlib from 'node:zlib';
import { isInertPicture, markupIn } from './pictures.js';

/**
 * Pictures in the binary Office formats (Word, Excel and PowerPoint 97-2003 streams), judged by
 * their bytes and made harmless in place, so that no offset in the file moves. The office reads
 * an OfficeArt picture (a BLIP record) by its content, whatever its record type says: an SVG
 * behind a PNG record is an SVG to it, and an SVG may show a local file. What we cannot vouch for
 * is overwritten with zeros, which the office shows as an empty picture.
 *
 * A stream's text (a Word document's pieces) is passed as `text` and left alone: a document may
 * well talk about `<svg>`.
 */

/** A byte range [start, end) of a stream. */
export interface Range {
  start: number;
  end: number;
}

/** BLIP record types (MS-ODRAW: msofbtBlipFirst..msofbtBlipLast), as the office checks them. */
const BLIP_FIRST = 0xf018;
const BLIP_LAST = 0xf117;
/** Record instances (their lowest bit cleared) whose data is a metafile header and deflated data. */
const METAFILE_INSTANCES = new Set([0x216, 0x3d4, 0x542]);
/** Record instances whose data is one tag byte and then the picture. */
const TAGGED_INSTANCES = new Set([0x46a, 0x6e0, 0x6e2, 0x7a8]);
/**
 * The instances pictures are written with (TIFF's included). A record of another instance is not
 * judged as a whole (random bytes look like one now and then); the markup pass still covers it,
 * as the office reads its data undeflated.
 */
const KNOWN_INSTANCES = new Set([...METAFILE_INSTANCES, ...TAGGED_INSTANCES, 0x6e4]);
const DIB_INSTANCE = 0x7a8;
const PICT_INSTANCE = 0x542;
/** Largest metafile we inflate to judge; a bigger one is blanked. */
const MAX_METAFILE_BYTES = 64 * 1024 * 1024;

/** Shape property lists: OfficeArtFOPT and the tertiary one. */
const FOPT_TYPES = new Set([0xf00b, 0xf122]);
/**
 * Shape properties that say how a picture's name is meant (pibFlags, pibPrintFlags, fillBlipFlags,
 * lineFillBlipFlags). With msoblipflagLinkToFile the office loads the file named; without it the
 * name is only a name (Word keeps the inserted file's name there).
 */
const BLIP_FLAG_PROPERTIES = new Set([0x106, 0x113, 0x188, 0x1c7]);
const LINK_TO_FILE = 0x08;

/** PICF picture format "a BMP or GIF file, not embedded": the office links the file it names. */
const MM_LINKED_FILE = 94;
/** "A TIFF file, not embedded": the office skips such a picture. */
const MM_SKIPPED_FILE = 99;

/**
 * Makes the pictures in one stream harmless, in place: BLIP records whose data is not a picture
 * that cannot refer to anything (SVG, unknown formats, metafiles with SVG inside) are zeroed;
 * shape properties no longer link the picture file they name; PICF headers that link a file by
 * name are turned into ones the office skips; and any SVG or XML start left anywhere outside the
 * text is broken (the office finds an SVG by `<svg`, or an XML declaration with a `DOCTYPE`,
 * near the start of a picture, however the picture was reached). True when anything changed.
 */
export function inertOfficeArtStream(bytes: Buffer, text: Range[] = []): boolean {
  const inText = within(text);
  const pictures: Range[] = [];
  let changed = false;
  for (let at = 0; at + 8 <= bytes.length; at++) {
    const high = bytes[at + 3]!;
    if ((high !== 0xf0 && high !== 0xf1) || inText(at)) continue;
    const type = bytes.readUInt16LE(at + 2);
    const ver = bytes[at]! & 0x0f;
    if (ver === 0 && type >= BLIP_FIRST && type <= BLIP_LAST) {
      const blip = inertBlip(bytes, at);
      if (blip === undefined) continue;
      changed = blip.changed || changed;
      pictures.push({ start: at, end: blip.end });
      at = blip.end - 1; // a picture's own bytes are not looked through for records
    } else if (ver === 3 && FOPT_TYPES.has(type)) changed = unlinkShapePictures(bytes, at) || changed;
  }
  // Neither the text nor the pictures just judged hold a picture header or an SVG the office reads.
  const outside = (ranges: Range[]) => {
    const inside = within(ranges);
    return (at: number) => !inside(at);
  };
  changed = unlinkPicfs(bytes, outside([...text, ...pictures])) || changed;
  const open = outside([...text, ...pictures]);
  for (const at of markupIn(bytes)) {
    if (!open(at)) continue;
    bytes[at] = bytes[at] === 0x1f ? 0x00 : 0x20; // a gzip header, the `<` of `<svg` or the `D` of `DOCTYPE`
    changed = true;
  }
  return changed;
}

/**
 * A BLIP record header at `at`: its data zeroed unless it is safe. Undefined when it is no
 * picture record of a known instance whose length fits the stream.
 */
function inertBlip(bytes: Buffer, at: number): { changed: boolean; end: number } | undefined {
  const length = bytes.readUInt32LE(at + 4);
  const end = at + 8 + length;
  const instance = bytes.readUInt16LE(at) >> 4;
  const base = instance & 0xfffe;
  if (length < 17 || end > bytes.length || !KNOWN_INSTANCES.has(base)) return undefined;
  let start = at + 8 + (instance & 1 ? 32 : 16);
  if (METAFILE_INSTANCES.has(base)) start += 34;
  else if (TAGGED_INSTANCES.has(base)) start += 1;
  if (start >= end) return { changed: false, end };
  const data = bytes.subarray(start, end);
  if (safeBlipData(data, base)) return { changed: false, end };
  data.fill(0);
  return { changed: true, end };
}

function safeBlipData(data: Buffer, base: number): boolean {
  if (base === DIB_INSTANCE) return [12, 40, 52, 56, 64, 108, 124].includes(data.readUInt32LE(0)) && markupIn(data).length === 0;
  if (!METAFILE_INSTANCES.has(base)) return isInertPicture(data);
  // The office always inflates a metafile record's data, and reads what came out before any error.
  const metafile = inflatedPrefix(data);
  if (metafile === undefined) return false;
  if (base === PICT_INSTANCE) return metafile.length > 0 && markupIn(metafile).length === 0;
  return isInertPicture(metafile);
}

/** What the office gets out of deflated data: all of it, or what came before the first error; undefined past the size limit. */
function inflatedPrefix(data: Buffer): Buffer | undefined {
  const inflate = (input: Buffer) =>
    zlib.inflateSync(input, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: MAX_METAFILE_BYTES });
  try {
    return inflate(data);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
  }
  // Damaged data: the longest prefix that inflates without an error.
  let good = 0;
  let bad = data.length;
  let out = Buffer.alloc(0);
  while (bad - good > 1) {
    const middle = (good + bad) >> 1;
    try {
      out = inflate(data.subarray(0, middle));
      good = middle;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
      bad = middle;
    }
  }
  return out;
}

/** An OfficeArtFOPT at `at`: picture flags lose "link to file". */
function unlinkShapePictures(bytes: Buffer, at: number): boolean {
  const count = bytes.readUInt16LE(at) >> 4;
  const length = bytes.readUInt32LE(at + 4);
  if (count * 6 > length || at + 8 + length > bytes.length) return false;
  let changed = false;
  for (let k = 0; k < count; k++) {
    const where = at + 8 + k * 6;
    const opid = bytes.readUInt16LE(where);
    const value = bytes.readUInt32LE(where + 2);
    if (!BLIP_FLAG_PROPERTIES.has(opid & 0x3fff) || (opid & 0x8000) !== 0 || (value & LINK_TO_FILE) === 0) continue;
    bytes.writeUInt32LE(value & ~LINK_TO_FILE, where + 2);
    changed = true;
  }
  return changed;
}

/**
 * PICF headers (MS-DOC 2.9.192) of pictures "not embedded" name a file that the office links. The
 * office takes any header whose size is at least 58 bytes; each is made a "TIFF file, not
 * embedded", which it skips.
 */
function unlinkPicfs(bytes: Buffer, open: (at: number) => boolean): boolean {
  let changed = false;
  for (let at = bytes.indexOf(MM_LINKED_FILE); at >= 0; at = bytes.indexOf(MM_LINKED_FILE, at + 1)) {
    const picf = at - 6;
    if (picf < 0 || bytes[at + 1] !== 0 || picf + 58 > bytes.length || !open(picf)) continue;
    const lcb = bytes.readUInt32LE(picf);
    const cbHeader = bytes.readUInt16LE(picf + 4);
    if (lcb < 58 || lcb > bytes.length - picf || cbHeader > lcb) continue;
    bytes.writeUInt16LE(MM_SKIPPED_FILE, at);
    changed = true;
  }
  return changed;
}

/** Whether an offset lies in one of the ranges; asked in increasing order within a pass, so a cursor walks them. */
function within(ranges: Range[]): (at: number) => boolean {
  if (ranges.length === 0) return () => false;
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  let i = 0;
  let last = -1;
  return (at: number) => {
    if (at < last) i = 0; // a new pass
    last = at;
    while (i < sorted.length && sorted[i]!.end <= at) i++;
    return i < sorted.length && sorted[i]!.start <= at;
  };
}
