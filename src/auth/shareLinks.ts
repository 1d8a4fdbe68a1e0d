import { createHash, randomBytes } from 'node:crypto';
import type { Account, ShareLinkRecord, Store } from '../store/types.js';
import { InputError } from '../errors.js';

export interface ShareLimits {
  /** Lifetime of a link when the request names none. */
  defaultDays: number;
  /** Longest lifetime a request may ask for. */
  maxDays: number;
}

/** 32 random bytes, base64url: nothing in a token says whose it is or what it opens. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Read-only preview links to stored templates. A token is opaque and random; only its hash is
 * stored, with the account, the template name and an expiry. A link ends when it expires, when
 * its owner revokes it, or when the template is replaced or deleted (uploading the same bytes
 * again does not bring it back).
 */
export class ShareLinks {
  constructor(
    private readonly store: Store,
    private readonly limits: ShareLimits,
  ) {}

  async create(account: Account, templateName: string, days = this.limits.defaultDays): Promise<{ token: string; link: ShareLinkRecord }> {
    if (!Number.isInteger(days) || days < 1 || days > this.limits.maxDays) {
      throw new InputError(`expiresInDays must be a whole number from 1 to ${this.limits.maxDays}.`);
    }
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    const link: ShareLinkRecord = {
      id: randomBytes(9).toString('base64url'),
      accountId: account.id,
      templateName,
      createdAt: now,
      expiresAt: new Date(now.getTime() + days * 86_400_000),
    };
    await this.store.shareLinks.add({ ...link, tokenHash: hashOf(token) });
    return { token, link };
  }

  /** The live link a token opens, or null (malformed, unknown, expired or revoked). */
  async resolve(token: string): Promise<ShareLinkRecord | null> {
    if (!TOKEN.test(token)) return null;
    return this.store.shareLinks.byTokenHash(hashOf(token), new Date());
  }

  list(account: Account): Promise<ShareLinkRecord[]> {
    return this.store.shareLinks.list(account.id, new Date());
  }

  async revoke(account: Account, id: string): Promise<void> {
    if (!(await this.store.shareLinks.revoke(account.id, id)))
      throw new InputError(`There is no share link with the id "${id}" in this account.`);
  }
}
