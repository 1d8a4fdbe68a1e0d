import type { Store } from '../store/types.js';
import { PayloadTooLargeError } from '../errors.js';

/**
 * What one account may keep stored: its templates and its background jobs (requests waiting,
 * results kept) together. Deleting either gives the room back.
 */
export class StorageQuota {
  constructor(
    private readonly store: Store,
    readonly limitBytes: number,
  ) {}

  /** Bytes the account stores now. */
  used(accountId: number): Promise<number> {
    return this.store.accounts.storageBytes(accountId);
  }

  /** 413 unless `adding` bytes more (in place of `replacing` bytes stored now) fit the account's storage. */
  async check(accountId: number, adding: number, replacing = 0): Promise<void> {
    const used = await this.store.accounts.storageBytes(accountId);
    if (used - replacing + adding <= this.limitBytes) return;
    const mb = (bytes: number) => Math.ceil(bytes / 1024 / 1024);
    throw new PayloadTooLargeError(
      `This account stores ${mb(used)} MB in templates and job results; ${mb(adding)} MB more would pass its limit of ${mb(this.limitBytes)} MB (DOCSMITH_ACCOUNT_STORAGE_MB). Delete templates or finished jobs first.`,
    );
  }
}
