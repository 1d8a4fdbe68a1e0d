// The usage guard (accounts/usage.ts) on a real SQLite store: what counts, what is refused, what is
// taken back, without HTTP in between (test/api/usage.test.ts drives the same over HTTP).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { UsageGuard } from '../../src/accounts/usage.js';
import { ForbiddenError, ProcessingTimeoutError } from '../../src/errors.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Account, Store } from '../../src/store/types.js';
import { tempDir } from '../helpers/server.js';

describe('the usage guard', () => {
  let store: Store;
  let guard: UsageGuard;
  const account = async (username: string, over: Partial<Account> = {}): Promise<Account> => ({
    ...(await store.accounts.create({
      username,
      passwordHash: 'scrypt$x',
      licence: 'SN-1',
      maxDocuments: 2,
      maxTemplates: 5,
      maxProofingTransactions: 10,
      validUntil: null,
    })),
    ...over,
  });
  const created = async (a: Account) => (await store.accounts.byId(a.id))!.createdDocuments;
  before(async () => {
    store = await openSqliteStore(path.join(tempDir(), 'usage.sqlite'));
    guard = new UsageGuard(store, { maxConcurrentMerges: 1, processingLimitMs: 60_000 });
  });
  after(() => store.close());

  it('counts delivered work once, refunds failed work, and refuses past the quota', async () => {
    const ann = await account('ann');
    assert.equal(await guard.run(ann, { test: false, merge: false }, async () => 'one'), 'one');
    await assert.rejects(
      guard.run(ann, { test: false, merge: false }, async () => {
        throw new Error('the work failed');
      }),
      /the work failed/,
    );
    assert.equal(await created(ann), 1, 'the failed work is not counted');
    await assert.rejects(
      guard.run(
        ann,
        { test: false, merge: false },
        async () => 'two',
        async () => {
          throw new Error('the client left');
        },
      ),
      /the client left/,
    );
    assert.equal(await created(ann), 1, 'work whose answer was not delivered is not counted');
    await guard.run(ann, { test: false, merge: false }, async () => 'two');
    await assert.rejects(
      guard.run(ann, { test: false, merge: false }, async () => 'three'),
      (error: Error) => error instanceof ForbiddenError && /quota of this account is used up \(2 documents\)/.test(error.message),
    );
    assert.equal(await guard.run(ann, { test: true, merge: false }, async () => 'a test run'), 'a test run', 'test runs are not counted');
  });

  it('holds merges to the slot limit, and gives the slot back', async () => {
    const bob = await account('bob', {});
    let release!: () => void;
    const held = guard.run(bob, { test: true, merge: true }, () => new Promise<void>((resolve) => (release = resolve)));
    await assert.rejects(
      guard.run(bob, { test: true, merge: true }, async () => undefined),
      (error: Error) => error instanceof ForbiddenError && /At most 1 merge requests may run at once/.test(error.message),
    );
    release();
    await held;
    await guard.run(bob, { test: true, merge: true }, async () => undefined);
  });

  it('stops work at its time limit with a 504, and refuses an expired account or a test run without a paid licence', async () => {
    const cy = await account('cy');
    await assert.rejects(
      guard.run(
        cy,
        { test: false, merge: false, timeLimitMs: 50 },
        (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      ),
      ProcessingTimeoutError,
    );
    assert.equal(await created(cy), 0);
    const expired = await account('di', { validUntil: new Date('2020-01-01T00:00:00Z') });
    assert.throws(() => guard.check(expired, { test: false }), /valid until/);
    const trial = await account('ed', { licence: 'TRIAL' });
    assert.throws(() => guard.check(trial, { test: true }), /Test runs \(test=true\) are not available with a TRIAL licence/);
  });
});
