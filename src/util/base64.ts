import { InputError } from '../errors.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes standard Base64 (MIME line breaks allowed, padding optional). `what` names the value
 * in the error, e.g. "the template".
 */
export function decodeBase64(text: string, what: string): Buffer {
  const compact = /\s/.test(text) ? text.replace(/\s+/g, '') : text;
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new InputError(`${what} is not valid Base64 (only A-Z, a-z, 0-9, "+", "/" and "=" padding are allowed).`);
  }
  return Buffer.from(compact, 'base64');
}
