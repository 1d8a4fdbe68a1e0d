import { randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { BusyError } from '../errors.js';

const PARAMS = { N: 16384, r: 8, p: 1, keylen: 32 };

/**
 * Bounds the hashing work: at most `concurrent` scrypt runs at once (they share libuv's four
 * threads with file and zlib work) and `waiting` in line; past that a sign-in answers 503 at
 * once, so a flood of guesses cannot queue without end. Only names that exist are hashed for
 * (see verifyAgainstNothing): made-up ones never take a place.
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
  const started = performance.now();
  const actual = await scryptAsync(password, salt, expected.length, { N, r, p, maxmem: 64 * 1024 * 1024 });
  checkTimes.add(performance.now() - started);
  return timingSafeEqual(actual, expected);
}

/**
 * How long the latest real checks took, their wait for a hashing place included: an unknown
 * user's answer takes as long as one of them, drawn at random, so the time does not tell whether
 * a name exists, under load or not.
 */
class CheckTimes {
  private readonly times: number[] = [];
  private next = 0;

  constructor(private readonly size: number) {}

  add(ms: number): void {
    if (this.times.length < this.size) this.times.push(ms);
    else this.times[this.next] = ms;
    this.next = (this.next + 1) % this.size;
  }

  /** One of the recorded times, at random; undefined before the first. */
  draw(): number | undefined {
    return this.times.length === 0 ? undefined : this.times[randomInt(this.times.length)];
  }

  /** The shortest recorded time (tests). */
  shortest(): number {
    return Math.min(...this.times);
  }
}

export const checkTimes = new CheckTimes(64);

let firstCheck: Promise<void> | undefined;

/**
 * An unknown user's sign-in: answers as slowly as a real check, but costs no hashing, so that a
 * flood of made-up names cannot take the hashing places real users need (nor be refused for
 * lack of one, which a real check could be). Before any real check has been timed, one is made.
 */
export async function verifyAgainstNothing(password: string): Promise<false> {
  firstCheck ??= hashPassword('docsmith-dummy-password').then((hash) => verifyPassword(password, hash).then(() => undefined));
  await firstCheck;
  const until = performance.now() + (checkTimes.draw() ?? 0);
  // A timer counts from the event loop's cached clock, which a busy loop leaves behind: it can
  // fire early by as much, so wait again for what is left.
  for (let left = until - performance.now(); left > 0; left = until - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
  }
  return false;
}
