import ipaddr from 'ipaddr.js';
import type { Store } from '../store/types.js';
import { DocsmithError } from '../errors.js';

export interface ThrottleLimits {
  /** Failed attempts are counted over this window. */
  windowMs: number;
  /**
   * Failed password sign-ins for one user name from one client address (group) within the
   * window; more from there answer 429. The same user elsewhere is slowed, never locked out.
   */
  maxPerUser: number;
  /** Failed sign-ins (passwords or keys) from one client address (group) within the window. */
  maxPerAddress: number;
}

/** Too many failed sign-ins: 429 with the seconds until the next attempt may be made. */
export class TooManyAttemptsError extends DocsmithError {
  constructor(retryAfterSeconds: number) {
    super(429, `Too many failed sign-in attempts; try again in ${retryAfterSeconds} s.`, { 'retry-after': String(retryAfterSeconds) });
  }
}

/**
 * The client address as attempts are counted: an IPv6 client usually holds a whole /64, so its
 * attempts count together; IPv4 (also IPv4-mapped IPv6) per address.
 */
export function addressGroup(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

export const addressKey = (address: string) => `addr:${addressGroup(address)}`;
export const userKey = (username: string) => `user:${username.normalize('NFC').toLowerCase()}`;
export const pairKey = (username: string, address: string) => `pair:${username.normalize('NFC').toLowerCase()}|${addressGroup(address)}`;

/**
 * How long a sign-in for a user waits once the user has `failures` failed attempts in the
 * window from all addresses together: nothing up to `limit`, then 250 ms doubling with every
 * further `limit` failures, at most 8 s: an attacker with many addresses gets slower and
 * slower, while the owner still signs in (from an address that has not failed too often).
 */
export function userDelayMs(failures: number, limit: number): number {
  if (failures < limit) return 0;
  return Math.min(8000, 250 * 2 ** Math.floor((failures - limit) / limit));
}

/**
 * Brute-force protection for sign-ins, counted in the store so that every instance on one
 * PostgreSQL sees the same attempts. A blocked key is remembered locally until it is free
 * again, so an attack costs the database one read per key, not one per request.
 *
 * Admission is exact on one instance: attempts are admitted to a limited key one at a time, and
 * attempts still being checked count as possible failures; when they could reach the limit, the
 * next attempt waits for one of them to end instead of being refused (a client's own parallel
 * first requests all get in; concurrent guesses check no more than the limit's worth).
 */
export class AuthThrottle {
  private readonly blockedUntil = new Map<string, number>();
  /** Attempts admitted and not yet finished, per key. */
  private readonly admitted = new Map<string, number>();
  /** Who waits for an admitted attempt of a key to finish. */
  private readonly finished = new Map<string, (() => void)[]>();
  /** The tail of each key's line of admissions. */
  private readonly admissions = new Map<string, Promise<void>>();
  private recorded = 0;

  constructor(
    private readonly store: Store,
    private readonly limits: ThrottleLimits,
  ) {}

  private limitOf(key: string): number {
    if (key.startsWith('user:')) return Number.POSITIVE_INFINITY; // slowed, never blocked
    return key.startsWith('pair:') ? this.limits.maxPerUser : this.limits.maxPerAddress;
  }

  /**
   * Runs one sign-in attempt: refuses with 429 when a key has used up its failures, waits the
   * user's delay, runs `attempt` (true: it succeeded) and records the outcome. `user` is the
   * user name key, when the attempt names one.
   */
  async attempt(keys: string[], user: string | undefined, attempt: () => Promise<boolean>): Promise<boolean> {
    const all = user ? [...keys, user] : keys;
    const counts = await this.admit(all);
    try {
      if (user) {
        const delay = userDelayMs(counts[counts.length - 1]!, this.limits.maxPerUser);
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      }
      const ok = await attempt();
      if (ok) {
        for (const key of keys) if (key.startsWith('pair:')) await this.store.authFailures.clear(key);
      } else {
        await this.store.authFailures.record(all, Date.now());
        if (++this.recorded % 100 === 0) await this.store.authFailures.prune(Date.now() - this.limits.windowMs);
      }
      return ok;
    } finally {
      for (const key of all) this.finish(key);
    }
  }

  /** Admits an attempt under every key, or throws 429; the failures counted per key. */
  private async admit(keys: string[]): Promise<number[]> {
    const now = Date.now();
    for (const key of keys) {
      const until = this.blockedUntil.get(key);
      if (until !== undefined && until > now) throw new TooManyAttemptsError(Math.ceil((until - now) / 1000));
      if (until !== undefined) this.blockedUntil.delete(key);
    }
    // In a fixed order, so two attempts sharing keys cannot wait on each other.
    const limited = keys.filter((key) => Number.isFinite(this.limitOf(key))).sort();
    const unlocks: (() => void)[] = [];
    try {
      for (const key of limited) unlocks.push(await this.lineUp(key));
      for (;;) {
        const counts = await this.store.authFailures.since(keys, Date.now() - this.limits.windowMs);
        let busy: string | undefined;
        counts.forEach(({ count, oldest }, i) => {
          const key = keys[i]!;
          const limit = this.limitOf(key);
          if (count >= limit) {
            const until = (oldest ?? now) + this.limits.windowMs;
            if (this.blockedUntil.size > 10_000) this.blockedUntil.clear();
            this.blockedUntil.set(key, until);
            throw new TooManyAttemptsError(Math.max(1, Math.ceil((until - Date.now()) / 1000)));
          }
          if (count + (this.admitted.get(key) ?? 0) >= limit) busy = key;
        });
        if (busy === undefined) {
          for (const key of keys) this.admitted.set(key, (this.admitted.get(key) ?? 0) + 1);
          return counts.map(({ count }) => count);
        }
        // Attempts in progress could use up the limit: see how they end first.
        await new Promise<void>((resolve) => this.finished.set(busy!, [...(this.finished.get(busy!) ?? []), resolve]));
      }
    } finally {
      for (const unlock of unlocks.reverse()) unlock();
    }
  }

  /** Waits for the key's earlier admissions; returns the unlock for the next one. */
  private async lineUp(key: string): Promise<() => void> {
    const previous = this.admissions.get(key) ?? Promise.resolve();
    let unlock!: () => void;
    const mine = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const tail = previous.then(() => mine);
    this.admissions.set(key, tail);
    await previous;
    return () => {
      unlock();
      if (this.admissions.get(key) === tail) this.admissions.delete(key);
    };
  }

  private finish(key: string): void {
    const left = (this.admitted.get(key) ?? 1) - 1;
    if (left > 0) this.admitted.set(key, left);
    else this.admitted.delete(key);
    const waiting = this.finished.get(key);
    if (waiting) {
      this.finished.delete(key);
      for (const wake of waiting) wake();
    }
  }
}
