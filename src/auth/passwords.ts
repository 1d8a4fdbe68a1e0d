import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { BusyError } from '../errors.js';

const PARAMS = { N: 16384, r: 8, p: 1, keylen: 32 };

/**
 * Bounds the hashing work: at most `concurrent` scrypt runs at once (they share libuv's four
 * threads with file and zlib work) and `waiting` in line; past that a sign-in answers 503 at
 * once, so a flood of guesses (unknown users cost a hash too) cannot queue without end.
 */
export const hashingLimits = { concurrent: 2, waiting: 64 };
let running = 0;
const queue: (() => void)[] = [];

async function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  if (running < hashingLimits.concurrent) {
    running++;
  } else {
    if (queue.length >= hashingLimits.waiting) throw new BusyError('Too many sign-ins are being checked right now; retry shortly.', 1);
    await new Promise<void>((resolve) => queue.push(resolve)); // the finishing run hands its place over
  }
  try {
    return await new Promise((resolve, reject) => {
      scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
    });
  } finally {
    const next = queue.shift();
    if (next) next();
    else running--;
  }
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in Base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keylen } = PARAMS;
  const hash = await scryptAsync(password, salt, keylen, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const actual = await scryptAsync(password, salt, expected.length, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;

/** Spends the time of a real check, so an unknown user answers as slowly as a wrong password. */
export async function verifyAgainstNothing(password: string): Promise<false> {
  dummyHash ??= hashPassword('docsmith-dummy-password');
  await verifyPassword(password, await dummyHash);
  return false;
}
