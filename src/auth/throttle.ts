import type { Store } from '../store/types.js';
import { DocsmithError } from '../errors.js';

export interface ThrottleLimits {
  /** Failed attempts are counted over this window. */
  windowMs: number;
  /** Failed password sign-ins for one user name within the window; more answer 429 (its API keys keep working). */
  maxPerUser: number;
  /** Failed sign-ins (passwords or keys) from one client address within the window. */
  maxPerAddress: number;
}

/** Too many failed sign-ins: 429 with the seconds until the next attempt may be made. */
export class TooManyAttemptsError extends DocsmithError {
  constructor(retryAfterSeconds: number) {
    super(429, `Too many failed sign-in attempts; try again in ${retryAfterSeconds} s.`, { 'retry-after': String(retryAfterSeconds) });
  }
}

export const addressKey = (address: string) => `addr:${address}`;
export const userKey = (username: string) => `user:${username.normalize('NFC').toLowerCase()}`;

/**
 * Brute-force protection for sign-ins, counted in the store so that every instance on one
 * PostgreSQL sees the same attempts. A blocked key is remembered locally until it is free
 * again, so an attack costs the database one read per key, not one per request.
 */
export class AuthThrottle {
  private readonly blockedUntil = new Map<string, number>();
  private recorded = 0;

  constructor(private readonly store: Store, private readonly limits: ThrottleLimits) {}

  private limitOf(key: string): number {
    return key.startsWith('user:') ? this.limits.maxPerUser : this.limits.maxPerAddress;
  }

  /** Throws 429 when any of the keys has used up its failed attempts. */
  async check(keys: string[]): Promise<void> {
    const now = Date.now();
    for (const key of keys) {
      const until = this.blockedUntil.get(key);
      if (until !== undefined && until > now) throw new TooManyAttemptsError(Math.ceil((until - now) / 1000));
      if (until !== undefined) this.blockedUntil.delete(key);
    }
    const counts = await this.store.authFailures.since(keys, now - this.limits.windowMs);
    counts.forEach(({ count, oldest }, i) => {
      if (count < this.limitOf(keys[i]!) || oldest === null) return;
      const until = oldest + this.limits.windowMs;
      if (this.blockedUntil.size > 10_000) this.blockedUntil.clear();
      this.blockedUntil.set(keys[i]!, until);
      throw new TooManyAttemptsError(Math.max(1, Math.ceil((until - now) / 1000)));
    });
  }

  async fail(keys: string[]): Promise<void> {
    await this.store.authFailures.record(keys, Date.now());
    if (++this.recorded % 100 === 0) await this.store.authFailures.prune(Date.now() - this.limits.windowMs);
  }

  async succeed(key: string): Promise<void> {
    await this.store.authFailures.clear(key);
  }
}
