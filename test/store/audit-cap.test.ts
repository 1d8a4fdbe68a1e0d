import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog, FAILURES_LISTED_PER_HOUR } from '../../src/accounts/audit.js';
import { sqliteBackend } from '../helpers/stores.js';
import type { Store } from '../../src/store/types.js';

describe('the audit log under a flood of failed sign-ins', () => {
  const backend = sqliteBackend();
  let store: Store;
  after(async () => {
    await store?.close();
    await backend.cleanup();
  });

  it('lists at most a cap an hour per account and counts the rest in one entry', async () => {
    store = await backend.open();
    const account = await store.accounts.create({
      username: 'ann',
      passwordHash: 'x',
      licence: 'TRIAL',
      maxDocuments: 1,
      maxTemplates: 1,
      maxProofingTransactions: 1,
      validUntil: null,
    });
    const audit = new AuditLog(store, 90);
    const start = Date.now();
    for (let i = 0; i < 500; i++)
      await audit.signInFailed(account.id, { actor: 'password', address: `10.0.${i >> 8}.${i & 255}` }, 'wrong password', start + i);
    assert.equal((await audit.list(account.id, 1000)).length, FAILURES_LISTED_PER_HOUR, 'the rest only counted while the hour lasts');
    await audit.flushFailures(start + 3_600_000);
    const events = await audit.list(account.id, 1000);
    assert.equal(events.length, FAILURES_LISTED_PER_HOUR + 1);
    assert.match(
      events[0]!.detail,
      new RegExp(`^${500 - FAILURES_LISTED_PER_HOUR} more failed sign-ins in the hour from .*, counted, not listed`),
    );
    // A new hour lists again.
    await audit.signInFailed(account.id, { actor: 'password', address: '10.9.9.9' }, 'wrong password', start + 3_700_000);
    assert.equal((await audit.list(account.id, 1000)).length, FAILURES_LISTED_PER_HOUR + 2);
  });
});
