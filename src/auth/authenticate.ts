import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account, Store } from '../store/types.js';
import { hashApiKey } from './apikeys.js';
import { verifyAgainstNothing, verifyPassword } from './passwords.js';

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

  constructor(
    private readonly store: Store,
    private readonly options: { cacheTtlMs: number; cacheSize: number } = { cacheTtlMs: 60_000, cacheSize: 1000 },
  ) {}

  async authenticate(header: string | undefined): Promise<Account | null> {
    if (!header) return null;
    const space = header.indexOf(' ');
    if (space <= 0) return null;
    const scheme = header.slice(0, space).toLowerCase();
    const credentials = header.slice(space + 1).trim();
    if (!credentials) return null;
    if (API_KEY_SCHEMES.includes(scheme)) return this.byApiKey(credentials);
    if (scheme === 'basic') return this.byPassword(credentials);
    return null;
  }

  private async byApiKey(key: string): Promise<Account | null> {
    if (key.length > 200) return null;
    const record = await this.store.apiKeys.byHash(hashApiKey(key));
    if (!record || !record.active) return null;
    return this.store.accounts.byId(record.accountId);
  }

  private async byPassword(encoded: string): Promise<Account | null> {
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

    const account = await this.store.accounts.byUsername(username);
    if (!account) return verifyAgainstNothing(password).then(() => null);
    if (!(await verifyPassword(password, account.passwordHash))) return null;
    this.remember(digest, { accountId: account.id, passwordHash: account.passwordHash, expires: Date.now() + this.options.cacheTtlMs });
    return account;
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
