import { randomUUID } from 'node:crypto';
import { InputError } from '../errors.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes standard Base64 (MIME line breaks allowed, padding optional). `what` names the value
 * in the error, e.g. "the template".
 */
export function decodeBase64(text: string, what: string): Buffer {
  if (text.startsWith(STAND_IN)) {
    const known = predecoded.get(text);
    if (!known) throw new InputError(`${what} is no longer at hand; send the request again.`);
    predecoded.delete(text);
    return known;
  }
  // Fast path, native scans only (documents run to 100 MB on the event loop): Node's decoder
  // skips what is not Base64 and stops at "=", so a clean text decodes to exactly its length's
  // worth; only "-" and "_" (Base64url, which it also takes) need a look of their own.
  const decoded = Buffer.from(text, 'base64');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (
    text.length % 4 !== 1 &&
    decoded.length === Math.floor(((text.length - padding) * 3) / 4) &&
    text.indexOf('-') < 0 &&
    text.indexOf('_') < 0
  )
    return decoded;
  const compact = /\s/.test(text) ? text.replace(/\s+/g, '') : text;
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new InputError(`${what} is not valid Base64 (only A-Z, a-z, 0-9, "+", "/" and "=" padding are allowed).`);
  }
  return Buffer.from(compact, 'base64');
}

/** Document strings from this length on are decoded where a body is parsed off the event loop. */
const LONG_STRING = 256 * 1024;
/** Documents of bodies parsed off the loop, by the short stand-in their body holds, until a parser asks (or the request ends). */
const predecoded = new Map<string, Buffer>();
/** What is kept at most: the oldest go first (a request whose parser never asked). */
const MAX_KEPT = 16;
/** Begins every stand-in: a NUL, which no Base64 text holds. */
const STAND_IN = '\u0000docsmith-decoded:';

/** A parsed body whose documents were decoded: each taken out of the body, a stand-in left in its place. */
export interface ParsedBody {
  value: unknown;
  decoded: { standIn: string; bytes: Uint8Array }[];
}

/**
 * A parsed body with its documents decoded from Base64 (in a worker thread: they run to 100 MB),
 * where documents are: the body itself when a string, `template`, and `documents[i].document`.
 * Each is replaced in the body by a short stand-in that decodeBase64 turns into its bytes, so the
 * long text never travels back to the event loop. A string that is not Base64 is left as it is,
 * for the parser to name in its 400.
 */
export function withDecodedBase64(value: unknown): ParsedBody {
  const decoded: ParsedBody['decoded'] = [];
  const take = (text: unknown): unknown => {
    if (typeof text !== 'string' || text.length < LONG_STRING) return text;
    let bytes: Buffer;
    try {
      bytes = decodeBase64(text, '');
    } catch {
      return text;
    }
    const standIn = `${STAND_IN}${randomUUID()}`;
    decoded.push({ standIn, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    return standIn;
  };
  if (typeof value === 'string') return { value: take(value), decoded };
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const body = value as Record<string, unknown>;
    if ('template' in body) body.template = take(body.template);
    if (Array.isArray(body.documents)) {
      for (const entry of body.documents as unknown[]) {
        if (entry && typeof entry === 'object' && 'document' in entry) {
          const holder = entry as Record<string, unknown>;
          holder.document = take(holder.document);
        }
      }
    }
  }
  return { value, decoded };
}

/** Keeps a parsed body's decoded documents for decodeBase64 to find by their stand-ins; returns the stand-ins. */
export function keepDecoded(body: ParsedBody): string[] {
  for (const { standIn, bytes } of body.decoded) {
    predecoded.set(standIn, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    while (predecoded.size > MAX_KEPT) predecoded.delete(predecoded.keys().next().value!);
  }
  return body.decoded.map((d) => d.standIn);
}

export function forgetDecoded(standIns: readonly string[]): void {
  for (const standIn of standIns) predecoded.delete(standIn);
}
