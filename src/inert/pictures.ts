import zlib from 'node:zlib';
import { InputError } from '../errors.js';
import { parseXml, serializeDocument, type XmlElement, type XmlNode } from '../ooxml/xml.js';
import { inertCss } from './css.js';

/**
 * Pictures judged by their bytes, never by a name or a declared type: the office recognises a
 * picture by its content, so an SVG under a `.png` name, a `\pngblip` or `data:image/png` is
 * still an SVG to it, and an SVG may link files (`<image href="file:...">`, `<use>`, CSS).
 *
 * - Formats that cannot name another file (PNG, JPEG, GIF, BMP, TIFF, WebP, EMF, WMF, ICO,
 *   JPEG XR, HEIF/AVIF) are kept as they are; so are gzip-packed metafiles (`.emz`, `.wmz`).
 * - SVG, plain or gzip-packed, is rewritten without anything that loads: external and `file:`
 *   references, scripts, foreign objects, style sheets' `url()` and `@import`, DTDs.
 * - Anything else (EPS, XBM, an unreadable SVG, ...) becomes a blank 1x1 PNG.
 */

/** A transparent 1x1 PNG: what a picture we cannot vouch for becomes. */
export const BLANK_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=',
  'base64',
);

/** Largest SVG (unpacked) we rewrite; a bigger one is blanked. */
const MAX_SVG_BYTES = 32 * 1024 * 1024;
/** How deep pictures inside pictures (data: URIs in SVG) are followed. */
const PICTURE_NESTING = 3;

/** `markup`: text starting with `<`, which the office may read as SVG. */
export type PictureKind = 'inert' | 'markup' | 'gzip' | 'other';

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) => signature.every((b, i) => bytes[at + i] === b);
const ascii = (bytes: Uint8Array, text: string, at = 0) =>
  startsWith(
    bytes,
    [...text].map((c) => c.charCodeAt(0)),
    at,
  );

/** Formats whose bytes cannot refer to anything outside themselves. */
function isInertFormat(b: Uint8Array): boolean {
  return (
    startsWith(b, [0x89, 0x50, 0x4e, 0x47]) || // PNG
    startsWith(b, [0xff, 0xd8, 0xff]) || // JPEG
    ascii(b, 'GIF8') ||
    ascii(b, 'BM') ||
    startsWith(b, [0x49, 0x49, 0x2a, 0x00]) ||
    startsWith(b, [0x4d, 0x4d, 0x00, 0x2a]) || // TIFF
    startsWith(b, [0x49, 0x49, 0xbc]) || // JPEG XR (Word's .wdp)
    (ascii(b, 'RIFF') && ascii(b, 'WEBP', 8)) ||
    (startsWith(b, [0x01, 0x00, 0x00, 0x00]) && ascii(b, ' EMF', 40)) ||
    startsWith(b, [0xd7, 0xcd, 0xc6, 0x9a]) || // placeable WMF
    ((startsWith(b, [0x01, 0x00, 0x09, 0x00]) || startsWith(b, [0x02, 0x00, 0x09, 0x00])) && (b[4] === 0x00 || b[4] === 0x01)) || // WMF
    startsWith(b, [0x00, 0x00, 0x01, 0x00]) || // ICO
    ascii(b, 'ftyp', 4)
  ); // HEIF, AVIF (and video, which the office does not fetch anything for)
}

/** Metafiles can carry pictures of any format inside (EMF+ images, embedded EMF in WMF), which the office reads by content. */
function isMetafile(b: Uint8Array): boolean {
  return (
    (startsWith(b, [0x01, 0x00, 0x00, 0x00]) && ascii(b, ' EMF', 40)) ||
    startsWith(b, [0xd7, 0xcd, 0xc6, 0x9a]) ||
    startsWith(b, [0x01, 0x00, 0x09, 0x00]) ||
    startsWith(b, [0x02, 0x00, 0x09, 0x00])
  );
}

/** A picture that can be kept as it is: a format that refers to nothing, and for a metafile, no SVG inside. */
export function isInertPicture(bytes: Uint8Array): boolean {
  return isInertFormat(bytes) && (!isMetafile(bytes) || markupIn(bytes).length === 0);
}

/** What a picture's bytes are. */
export function pictureKind(bytes: Uint8Array): PictureKind {
  if (isInertPicture(bytes)) return 'inert';
  if (startsWith(bytes, [0x1f, 0x8b])) return 'gzip';
  return looksLikeMarkup(bytes) ? 'markup' : 'other';
}

/**
 * What makes an office take bytes for an SVG: `<svg` near their start, or an XML declaration
 * with a `DOCTYPE` and `svg` (a prefixed root, `<s:svg`). Looked for in any case, 8-bit, UTF-16LE
 * and UTF-16BE.
 */
const MARKUP_STARTS = ['<svg', 'doctype'].flatMap((word) => [
  { word, width: 1 as const, big: false },
  { word, width: 2 as const, big: false },
  { word, width: 2 as const, big: true },
]);
/** Compressed bytes read from a gzip header when judging what it inflates to (an SVG reader looks at the first 2 KB). */
const GZIP_PROBE = 16 * 1024;

/**
 * Offsets in `bytes` from which an office could read an SVG: the first byte of every `<svg` or
 * `DOCTYPE` (any case, 8-bit or UTF-16) and every gzip header whose data inflates to such a
 * start. Breaking the byte at each offset leaves nothing an office recognises as SVG. Sorted.
 */
export function markupIn(bytes: Uint8Array): number[] {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: number[] = [];
  for (const lead of [0x3c, 0x44, 0x64]) {
    for (let at = b.indexOf(lead); at >= 0; at = b.indexOf(lead, at + 1)) {
      if (MARKUP_STARTS.some(({ word, width, big }) => spells(b, at, word, width, big))) found.push(at);
    }
  }
  for (let at = b.indexOf(GZIP_MAGIC); at >= 0; at = b.indexOf(GZIP_MAGIC, at + 1)) {
    let inflated: Buffer;
    try {
      inflated = zlib.gunzipSync(b.subarray(at, at + GZIP_PROBE), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    } catch {
      continue;
    }
    if (markupIn(inflated.subarray(0, 4096)).length > 0) found.push(at);
  }
  return found.sort((x, y) => x - y);
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);

/** Whether `word` is spelt at `at` (case-insensitively), one byte a letter or two (UTF-16, `big`-endian or not). */
function spells(b: Buffer, at: number, word: string, width: 1 | 2, big: boolean): boolean {
  const start = width === 2 && big ? at - 1 : at;
  if (start < 0 || start + word.length * width > b.length) return false;
  for (let i = 0; i < word.length; i++) {
    const lo = big ? b[start + i * 2 + 1]! : b[start + i * width]!;
    if (width === 2 && (big ? b[start + i * 2] : b[start + i * 2 + 1]) !== 0) return false;
    if (String.fromCharCode(lo).toLowerCase() !== word[i]) return false;
  }
  return true;
}

/** Text that starts with markup (after a byte-order mark and white space): a candidate SVG. */
function looksLikeMarkup(bytes: Uint8Array): boolean {
  const head = decodeText(bytes.subarray(0, 1024)).trimStart();
  return head.startsWith('<');
}

function decodeText(bytes: Uint8Array): string {
  if (startsWith(bytes, [0xff, 0xfe])) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (startsWith(bytes, [0xfe, 0xff])) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder('utf-8').decode(startsWith(bytes, [0xef, 0xbb, 0xbf]) ? bytes.subarray(3) : bytes);
}

/**
 * The picture made inert: the input itself when it is safe as it is, a rewritten SVG, or
 * BLANK_PNG. `depth` limits pictures nested in pictures.
 */
export function inertPicture(bytes: Uint8Array, depth = PICTURE_NESTING): Uint8Array {
  switch (pictureKind(bytes)) {
    case 'inert':
      return bytes;
    case 'gzip': {
      let inflated: Buffer;
      try {
        inflated = zlib.gunzipSync(bytes, { maxOutputLength: MAX_SVG_BYTES });
      } catch {
        return BLANK_PNG;
      }
      const kind = pictureKind(inflated);
      if (kind === 'inert') return bytes; // .emz, .wmz
      return kind === 'markup' ? inertSvgBytes(inflated, depth) : BLANK_PNG;
    }
    case 'markup':
      return inertSvgBytes(bytes, depth);
    case 'other':
      return BLANK_PNG;
  }
}

function inertSvgBytes(bytes: Uint8Array, depth: number): Uint8Array {
  if (bytes.length > MAX_SVG_BYTES || depth < 0) return BLANK_PNG;
  const svg = inertSvg(decodeText(bytes), depth);
  return svg === undefined ? BLANK_PNG : Buffer.from(svg, 'utf8');
}

/** Elements that run code, embed other content or name another file, dropped with their content. */
const SVG_DROPPED = new Set([
  'script',
  'foreignobject',
  'iframe',
  'embed',
  'object',
  'video',
  'audio',
  'handler',
  'listener',
  'animation',
  'discard',
]);

/**
 * An SVG document rewritten so that it loads nothing: only in-document (`#id`) references and
 * data: pictures (themselves made inert) remain. Undefined when it is not an SVG we can read
 * (not XML, a DTD with declarations, another root), which the caller blanks.
 */
export function inertSvg(text: string, depth = PICTURE_NESTING): string | undefined {
  // A DOCTYPE naming the SVG DTD is common (and may make a reader fetch it): dropped. One that
  // declares anything (entities) is not an SVG we take.
  const withoutDoctype = text.replace(/<!DOCTYPE[^[>]*>/i, '');
  let doc;
  try {
    doc = parseXml(withoutDoctype, 'An SVG picture');
  } catch (error) {
    if (error instanceof InputError) return undefined;
    throw error;
  }
  if (localName(doc.root.name).toLowerCase() !== 'svg') return undefined;
  const stack: XmlElement[] = [doc.root];
  while (stack.length) {
    const node = stack.pop()!;
    node.attrs = node.attrs.flatMap(([name, value]): [string, string][] => {
      const local = localName(name).toLowerCase();
      if (local.startsWith('on') || name === 'xml:base') return [];
      if (local === 'href' || local === 'src') {
        const kept = inertReference(value, depth);
        return kept === undefined ? [] : [[name, kept]];
      }
      if (local === 'style') return [[name, inertSvgCss(value, depth)]];
      return /url\s*\(|@import|expression\s*\(/i.test(value) ? [[name, inertSvgCss(value, depth)]] : [[name, value]];
    });
    const isStyle = localName(node.name).toLowerCase() === 'style';
    node.children = node.children.flatMap((child): XmlNode[] => {
      if (child.kind === 'element') {
        if (SVG_DROPPED.has(localName(child.name).toLowerCase())) return [];
        stack.push(child);
        return [child];
      }
      if (child.kind === 'raw') {
        if (child.xml.startsWith('<?')) return []; // xml-stylesheet and other instructions
        const cdata = /^<!\[CDATA\[([\s\S]*)\]\]>$/.exec(child.xml);
        if (cdata && isStyle) return [{ kind: 'text', text: inertSvgCss(cdata[1]!, depth) }];
        return [child];
      }
      return isStyle ? [{ kind: 'text', text: inertSvgCss(child.text, depth) }] : [child];
    });
  }
  // Only the XML declaration survives from the prolog (no style-sheet instructions).
  const declaration = /^<\?xml\s[^?]*\?>/.exec(doc.prolog.trimStart())?.[0] ?? '';
  return declaration + serializeDocument({ prolog: '', root: doc.root });
}

/** A reference kept: `#id` as is, a data: picture made inert; anything else (files, URLs) undefined. */
function inertReference(value: string, depth: number): string | undefined {
  const v = value.trim();
  if (v.startsWith('#')) return v;
  return inertDataUri(v, depth - 1);
}

/** CSS inside an SVG: `url(#id)` and data: pictures (made inert) stay, nothing else that loads. */
function inertSvgCss(css: string, depth: number): string {
  return inertCss(css, (url) => inertReference(url, depth));
}

/**
 * A `data:` URI holding a picture, made inert and written as base64; undefined when it is not
 * a data: picture (a file, a URL) or cannot be read.
 */
export function inertDataUri(uri: string, depth = PICTURE_NESTING): string | undefined {
  const match = /^data:([^,]*?),([\s\S]*)$/i.exec(uri.trim());
  if (!match || depth < 0) return undefined;
  const meta = match[1]!.toLowerCase();
  if (!/^image\//.test(meta.trim()) && meta.trim() !== '' && !meta.startsWith(';')) return undefined;
  let bytes: Buffer;
  try {
    bytes = /;\s*base64\s*$/.test(meta)
      ? Buffer.from(match[2]!.replace(/\s+/g, ''), 'base64')
      : Buffer.from(decodeURIComponent(match[2]!), 'utf8');
  } catch {
    return undefined;
  }
  const made = inertPicture(bytes, depth);
  const declared = /^image\/[a-z0-9.+-]+/.exec(meta.trim())?.[0] ?? 'image/png';
  const type = made === bytes ? declared : made === BLANK_PNG ? 'image/png' : 'image/svg+xml';
  // Always base64: nothing of the original spelling (quotes, escapes) reaches CSS or markup.
  return `data:${type};base64,${Buffer.from(made).toString('base64')}`;
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}
