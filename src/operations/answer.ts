/**
 * The JSON answer of document operations (documents as Base64 strings: one, or an array) written
 * a piece at a time: a 200 MB answer never holds the event loop in one Base64 or stringify step.
 */
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Input bytes encoded per piece: a multiple of 3, so the pieces' Base64 joins up; about a millisecond each. */
const PIECE = 3 * 256 * 1024;

export function* documentsJsonPieces(documents: readonly Buffer[], list: boolean): Generator<Buffer> {
  if (list) yield Buffer.from('[');
  for (const [i, document] of documents.entries()) {
    yield Buffer.from(i > 0 ? ',"' : '"');
    for (let at = 0; at < document.length; at += PIECE) yield Buffer.from(document.subarray(at, at + PIECE).toString('base64'), 'latin1');
    yield Buffer.from('"');
  }
  if (list) yield Buffer.from(']');
}

/** The answer's length in bytes, known before it is written. */
export function documentsJsonLength(documents: readonly Buffer[], list: boolean): number {
  const strings = documents.reduce((sum, d) => sum + 2 + 4 * Math.ceil(d.length / 3), 0);
  return list ? strings + 2 + Math.max(0, documents.length - 1) : strings;
}

/**
 * The answer as a stream, or, when its documents fit in one piece (most merges), as one buffer:
 * written in one call, without a stream's turns.
 */
export function documentsJsonBody(documents: readonly Buffer[], list: boolean): Readable | Buffer {
  if (documents.reduce((sum, d) => sum + d.length, 0) <= PIECE) return Buffer.concat([...documentsJsonPieces(documents, list)]);
  return Readable.from(documentsJsonPieces(documents, list), { objectMode: false });
}

/** The whole answer in one buffer, built a piece per turn of the event loop (a job's kept result). */
export async function documentsJson(documents: readonly Buffer[], list: boolean): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (const piece of documentsJsonPieces(documents, list)) {
    pieces.push(piece);
    if (piece.length >= PIECE) await nextTurn();
  }
  return Buffer.concat(pieces);
}
