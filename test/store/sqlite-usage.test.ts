import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sqliteBackend } from '../helpers/stores.js';

const account = {
  passwordHash: 'scrypt$x',
  licence: 'TRIAL',
  maxDocuments: 100,
  maxTemplates: 5,
  maxProofingTransactions: 10,
  validUntil: null,
};
const both = { slot: { limit: 2, leaseMs: 60_000 }, documentLeaseMs: 60_000 };

describe('SQLite usage: a delivered document is committed with the next write', () => {
  it('commits it with the next claim, on its own within moments, and before the store closes', async () => {
    const backend = sqliteBackend();
    const reservations = async () => (await backend.query<{ n: number }>('SELECT COUNT(*) AS n FROM document_reservations'))[0]!.n;
    const store = await backend.open();
    const a = await store.accounts.create({ username: 'soon', ...account });

    // With the next claim: the delivered document's reservation goes in the claim's own transaction.
    const first = await store.usage.claim(a.id, both);
    assert.ok('granted' in first);
    await first.granted.releaseSlot();
    let settled = false;
    const settling = first.granted.settle(true).then(() => (settled = true));
    assert.equal(await reservations(), 1, 'not written yet');
    const next = await store.usage.claim(a.id, both);
    assert.ok('granted' in next);
    await settling;
    assert.ok(settled);
    assert.equal(await reservations(), 1, "the first one's commit went with the second claim");

    // On its own: no other write comes.
    await next.granted.releaseSlot();
    await next.granted.settle(true);
    assert.equal(await reservations(), 0);

    // Before the store closes.
    const last = await store.usage.claim(a.id, both);
    assert.ok('granted' in last);
    await last.granted.releaseSlot();
    const closing = last.granted.settle(true);
    await store.close();
    await closing;
    assert.equal(await reservations(), 0);
    const again = await backend.open();
    try {
      assert.equal((await again.accounts.byId(a.id))?.createdDocuments, 3);
      await again.usage.refundExpired();
      assert.equal((await again.accounts.byId(a.id))?.createdDocuments, 3, 'nothing left for the sweep to take back');
    } finally {
      await again.close();
    }
  });

  it('still settles failed work, and work that holds its slot, at once', async () => {
    const backend = sqliteBackend();
    const reservations = async () => (await backend.query<{ n: number }>('SELECT COUNT(*) AS n FROM document_reservations'))[0]!.n;
    const store = await backend.open();
    try {
      const a = await store.accounts.create({ username: 'now', ...account });
      const failed = await store.usage.claim(a.id, both);
      assert.ok('granted' in failed);
      await failed.granted.releaseSlot();
      await failed.granted.settle(false);
      assert.equal(await reservations(), 0);
      const held = await store.usage.claim(a.id, both);
      assert.ok('granted' in held);
      await held.granted.settle(true); // its slot goes with it, in one transaction
      assert.equal(await reservations(), 0);
      assert.equal((await backend.query<{ n: number }>('SELECT COUNT(*) AS n FROM merge_slots'))[0]!.n, 0);
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 1);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite usage: a freed slot is written with the next write', () => {
  it("is free at once for this instance's claims, for another instance within moments, and in the file after closing", async () => {
    const backend = sqliteBackend();
    const slots = async () => (await backend.query<{ n: number }>('SELECT COUNT(*) AS n FROM merge_slots'))[0]!.n;
    const store = await backend.open();
    const other = await backend.open();
    try {
      const a = await store.accounts.create({ username: 'slots', ...account });
      const first = await store.usage.claim(a.id, both);
      const second = await store.usage.claim(a.id, both);
      assert.ok('granted' in first && 'granted' in second);
      assert.deepEqual(await store.usage.claim(a.id, both), { refused: 'slots' }, 'both slots are held');

      // This instance: its next claim writes the release first.
      await first.granted.releaseSlot();
      assert.equal(await slots(), 2, 'not written yet');
      const third = await store.usage.claim(a.id, both);
      assert.ok('granted' in third, 'the freed slot is taken at once');
      assert.equal(await slots(), 2);

      // Another instance on the same file: it sees the slot free once the release is written on its own.
      await second.granted.releaseSlot();
      let fromOther = await other.usage.claim(a.id, both);
      while (!('granted' in fromOther)) {
        assert.deepEqual(fromOther, { refused: 'slots' });
        await new Promise((resolve) => setImmediate(resolve));
        fromOther = await other.usage.claim(a.id, both);
      }
      await fromOther.granted.settle(true);

      // Before the store closes.
      await third.granted.releaseSlot();
      await store.close();
      assert.equal(await slots(), 0, 'every slot is free in the file');
      await Promise.all([first, second, third].map((c) => ('granted' in c ? c.granted.settle(true) : undefined)));
    } finally {
      await store.close();
      await other.close();
    }
  });
});

describe('SQLite usage: claims asked for in one turn of the event loop', () => {
  it('are written together, each answered as if alone, and one that fails fails alone', async () => {
    const backend = sqliteBackend();
    const count = async (table: string) => (await backend.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n;
    const store = await backend.open();
    try {
      const a = await store.accounts.create({ username: 'together', ...account, maxDocuments: 3 });
      const b = await store.accounts.create({ username: 'faulty', ...account });
      // Three claims at once on two slots: the third sees the first two's slots.
      const [first, second, third] = await Promise.all([0, 1, 2].map(() => store.usage.claim(a.id, both)));
      assert.ok(first && 'granted' in first && second && 'granted' in second);
      assert.deepEqual(third, { refused: 'slots' });
      assert.equal(await count('merge_slots'), 2);
      for (const c of [first, second]) {
        await c.granted.releaseSlot();
        await c.granted.settle(true);
      }
      // A quota of three with two used: of two claims at once, one is counted.
      const counted = await Promise.all([0, 1].map(() => store.usage.claim(a.id, { documentLeaseMs: 60_000 })));
      assert.deepEqual(
        counted.map((c) => ('granted' in c ? 'granted' : c.refused)),
        ['granted', 'documents'],
      );
      for (const c of counted) if ('granted' in c) await c.granted.settle(true);
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 3);

      // A claim the database refuses (a trigger stands in for any error) fails alone; the others are written.
      await backend.query(
        `CREATE TRIGGER refuse_faulty BEFORE INSERT ON merge_slots WHEN NEW.account_id = ${b.id} BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`,
      );
      const c = await store.accounts.create({ username: 'fine', ...account });
      const [fine, faulty, alsoFine] = await Promise.allSettled([
        store.usage.claim(c.id, both),
        store.usage.claim(b.id, both),
        store.usage.claim(c.id, both),
      ]);
      assert.equal(faulty?.status, 'rejected');
      assert.match(String((faulty as PromiseRejectedResult).reason), /refused for the test/);
      assert.ok(fine?.status === 'fulfilled' && 'granted' in fine.value && alsoFine?.status === 'fulfilled' && 'granted' in alsoFine.value);
      assert.equal(await count('merge_slots'), 2, "the two good claims' slots are held");
      assert.equal(await count('document_reservations'), 2, 'their documents are reserved, and nothing of the failed one');
      assert.equal((await store.accounts.byId(b.id))?.createdDocuments, 0);
      for (const r of [fine.value, alsoFine.value]) if ('granted' in r) await r.granted.settle(true);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite usage: closing the store', () => {
  it('leaves no timer behind when the last write fails (the process can exit)', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const backend = sqliteBackend();
    const store = await backend.open();
    try {
      const a = await store.accounts.create({ username: 'closing', ...account });
      const claim = await store.usage.claim(a.id, both);
      assert.ok('granted' in claim);
      await claim.granted.releaseSlot();
      // The counting connection refuses writes from now on: the release cannot be written.
      (store as unknown as { counters: { pragma(text: string): unknown } }).counters.pragma('query_only = ON');
      await store.close();
      assert.equal(timers(), before);
      void claim.granted.settle(true).catch(() => undefined);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite: the counting connection', () => {
  it('reads an account as it is now, whoever changed it last (this store, or another process on the file)', async () => {
    const backend = sqliteBackend();
    const store = await backend.open();
    try {
      const a = await store.accounts.create({ username: 'reader', ...account });
      assert.equal((await store.accounts.byId(a.id))?.username, 'reader', 'a new account is read at once');
      const claim = await store.usage.claim(a.id, both);
      assert.ok('granted' in claim);
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 1);
      await store.accounts.update(a.id, { passwordHash: 'scrypt$y' });
      assert.equal((await store.accounts.byId(a.id))?.passwordHash, 'scrypt$y', "this store's own change");
      // Another process (the account command) changes it between two of this store's writes.
      await claim.granted.releaseSlot();
      await backend.query('UPDATE accounts SET password_hash = ? WHERE id = ?', ['scrypt$z', a.id]);
      assert.equal((await store.accounts.byId(a.id))?.passwordHash, 'scrypt$z', "another process's change");
      await claim.granted.settle(true);
      await backend.query('DELETE FROM accounts WHERE id = ?', [a.id]);
      assert.equal(await store.accounts.byId(a.id), null, 'a deleted account is gone at once');
    } finally {
      await store.close();
    }
  });

  it('still checkpoints: the write-ahead log does not grow without bound', async () => {
    const backend = sqliteBackend();
    const store = await backend.open();
    try {
      const a = await store.accounts.create({ username: 'wal', ...account, maxDocuments: 1_000_000 });
      const wal = `${backend.file}-wal`;
      const settled: Promise<void>[] = [];
      // Each cycle writes several pages: together many times the 4,000 at which a checkpoint is due.
      for (let i = 0; i < 3000; i++) {
        const claim = await store.usage.claim(a.id, both);
        assert.ok('granted' in claim);
        await claim.granted.releaseSlot();
        settled.push(claim.granted.settle(true));
      }
      await Promise.all(settled);
      const frames = (fs.statSync(wal).size - 32) / (4096 + 24);
      assert.ok(frames > 1000 && frames <= 4100, `the log grew to ${frames} pages`);
    } finally {
      await store.close();
    }
  });
});
