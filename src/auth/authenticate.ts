import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account, Store } from '../store/types.js';
import { hashApiKey } from './apikeys.js';
import { verifyAgainstNothing, verifyPassword } from './passwords.js';
import { addressKey, pairKey, userKey, type AuthThrottle } from './throttle.js';
import { isScope, type Scope } from './scopes.js';

/** The API key a request signed in with: for its scope and for the audit log. */
export interface KeyIdentity {
  id: number;
  name: string;
  scope: Scope;
}

/** Who a request is: the account, and the key when it signed in with one (null: Basic). */
export interface SignedIn {
  account: Account;
  key: KeyIdentity | null;
}

const TOUCH_EVERY_MS = 60_000;

/** Scheme names clients send for API keys (compared case-insensitively). */
const API_KEY_SCHEMES = ['reportingcloud-apikey', 'service-apikey'];

interface CachedLogin {
  accountId: number;
  passwordHash: string;
  expires: number;
}

/**
 * Resolves an Authorization header to an account, or null. Basic logins are verified with
 * scrypt once and then remembered briefly under a keyed digest of the credentials, so SDKs
 * that send Basic on every call do not pay for a hash each time.
 */
export class Authenticator {
  private readonly cacheKey = randomBytes(32);
  private readonly logins = new Map<string, CachedLogin>();
  /** When this instance last recorded each key's use. */
  private readonly touched = new Map<string, number>();
  /** A key's id, name and scope by its hash, briefly: the scope never changes, a new name shows within a minute. */
  private readonly identities = new Map<string, { identity: KeyIdentity; expires: number }>();

  constructor(
    private readonly store: Store,
    private readonly throttle?: AuthThrottle,
    private readonly options: { cacheTtlMs: number; cacheSize: number } = { cacheTtlMs: 60_000, cacheSize: 1000 },
    /** A wrong password for an existing account (its audit log). */
    private readonly onWrongPassword?: (account: Account, address: string) => Promise<void>,
  ) {}

  /**
   * The account the header signs in as, or null. `address` is the client's: failed attempts
   * count against it and against the user name from it, and past their limits the answer is 429
   * there; the user's failures from everywhere slow its sign-ins down (see AuthThrottle). A valid
   * API key always works, so guessing an account's password never locks out its keys.
   */
  async authenticate(header: string | undefined, address = 'unknown'): Promise<Account | null> {
    return (await this.signIn(header, address))?.account ?? null;
  }

  /** As authenticate, with the key the request signed in with. */
  async signIn(header: string | undefined, address = 'unknown'): Promise<SignedIn | null> {
    if (!header) return null;
    const space = header.indexOf(' ');
    if (space <= 0) return null;
    const scheme = header.slice(0, space).toLowerCase();
    const credentials = header.slice(space + 1).trim();
    if (!credentials) return null;
    if (API_KEY_SCHEMES.includes(scheme)) return this.byApiKey(credentials, address);
    if (scheme === 'basic') {
      const account = await this.byPassword(credentials, address);
      return account && { account, key: null };
    }
    return null;
  }

  /**
   * Whether the header carries the operator's token (`Authorization: Bearer <token>`), compared by
   * digest in constant time; wrong tokens count against the address as failed sign-ins do.
   */
  async operator(header: string | undefined, tokenHash: Buffer, address = 'unknown'): Promise<boolean> {
    const match = /^bearer\s+(\S{1,1024})\s*$/i.exec(header ?? '');
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    const check = async () => match !== null && timingSafeEqual(given, tokenHash);
    return this.throttle ? this.throttle.attempt([addressKey(address)], undefined, check) : check();
  }

  private async byApiKey(key: string, address: string): Promise<SignedIn | null> {
    const hash = key.length > 200 ? '' : hashApiKey(key);
    const account = hash ? await this.store.accounts.byApiKey(hash) : null;
    if (account) {
      await this.used(hash);
      const identity = await this.identity(hash);
      return identity && { account, key: identity };
    }
    await this.throttle?.attempt([addressKey(address)], undefined, async () => false);
    return null;
  }

  private async byPassword(encoded: string, address: string): Promise<Account | null> {
    if (encoded.length > 4096) return null;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);

    const digest = createHmac('sha256', this.cacheKey).update(username).update('\0').update(password).digest('base64');
    const cached = this.logins.get(digest);
    if (cached && cached.expires > Date.now()) {
      const account = await this.store.accounts.byId(cached.accountId);
      // A changed password (or a deleted account) ends the cached login.
      if (account && sameText(account.passwordHash, cached.passwordHash)) return account;
      this.logins.delete(digest);
    }

    const found: { account: Account | null } = { account: null };
    const check = async () => {
      found.account = await this.store.accounts.byUsername(username);
      return found.account ? verifyPassword(password, found.account.passwordHash) : verifyAgainstNothing(password);
    };
    const valid = this.throttle
      ? await this.throttle.attempt([addressKey(address), pairKey(username, address)], userKey(username), check)
      : await check();
    const account = found.account;
    if (account && !valid) await this.onWrongPassword?.(account, address);
    if (!account || !valid) return null;
    this.remember(digest, { accountId: account.id, passwordHash: account.passwordHash, expires: Date.now() + this.options.cacheTtlMs });
    return account;
  }

  private async identity(keyHash: string): Promise<KeyIdentity | null> {
    const cached = this.identities.get(keyHash);
    if (cached && cached.expires > Date.now()) return cached.identity;
    const record = await this.store.apiKeys.byHash(keyHash);
    if (!record) return null; // revoked between the two reads
    const identity = { id: record.id, name: record.name, scope: isScope(record.scope) ? record.scope : 'read' };
    if (this.identities.size >= this.options.cacheSize) {
      const oldest = this.identities.keys().next().value;
      if (oldest !== undefined) this.identities.delete(oldest);
    }
    this.identities.set(keyHash, { identity, expires: Date.now() + TOUCH_EVERY_MS });
    return identity;
  }

  /** Records a key's use, at most once a minute per key and instance: "last used" is to the minute. */
  private async used(keyHash: string): Promise<void> {
    const now = Date.now();
    if (now - (this.touched.get(keyHash) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.delete(keyHash);
    if (this.touched.size >= this.options.cacheSize) {
      const oldest = this.touched.keys().next().value;
      if (oldest !== undefined) this.touched.delete(oldest);
    }
    this.touched.set(keyHash, now);
    await this.store.apiKeys.touch(keyHash, new Date(now));
  }

  private remember(digest: string, login: CachedLogin): void {
    if (this.logins.size >= this.options.cacheSize) {
      const oldest = this.logins.keys().next().value;
      if (oldest !== undefined) this.logins.delete(oldest);
    }
    this.logins.set(digest, login);
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
