import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Store, NewAccount } from '../../src/store/types.js';
import { DuplicateError } from '../../src/store/types.js';
import { postgresBackend, sqliteBackend } from '../helpers/stores.js';

const newAccount = (username: string, over: Partial<NewAccount> = {}): NewAccount => ({
  username,
  passwordHash: 'scrypt$x',
  licence: 'TRIAL',
  maxDocuments: 100,
  maxTemplates: 5,
  maxProofingTransactions: 10,
  validUntil: new Date('2030-01-02T03:04:05Z'),
  ...over,
});

const template = (name: string, data = randomBytes(64)) => ({ name, format: 'docx', sha256: 'h'.repeat(64), data });

for (const make of [sqliteBackend, postgresBackend]) {
  const backend = make();
  describe(`store contract: ${backend.name}`, () => {
    let store: Store;
    let second: Store;
    before(async () => {
      store = await backend.open();
      second = await backend.open(); // a second instance on the same data; migrations run again harmlessly
    });
    after(async () => {
      await second.close();
      await store.close();
      await backend.cleanup();
    });

    it('creates, finds, updates and deletes accounts', async () => {
      const a = await store.accounts.create(newAccount('ann'));
      assert.equal(a.username, 'ann');
      assert.equal(a.createdDocuments, 0);
      assert.equal(a.validUntil?.toISOString(), '2030-01-02T03:04:05.000Z');
      assert.deepEqual(await store.accounts.byUsername('ann'), a);
      assert.deepEqual(await second.accounts.byId(a.id), a);
      await assert.rejects(store.accounts.create(newAccount('ann')), DuplicateError);
      assert.equal(await store.accounts.createIfMissing(newAccount('ann')), false);
      assert.equal(await store.accounts.createIfMissing(newAccount('bob')), true);
      const updated = await store.accounts.update(a.id, { maxDocuments: 7, validUntil: null, licence: 'ABC-123' });
      assert.equal(updated?.maxDocuments, 7);
      assert.equal(updated?.validUntil, null);
      assert.equal(updated?.licence, 'ABC-123');
      assert.equal(updated?.maxTemplates, 5);
      assert.deepEqual(
        (await store.accounts.list()).map((x) => x.username),
        ['ann', 'bob'],
      );
    });

    it('deleting an account removes its keys and templates', async () => {
      const a = await store.accounts.create(newAccount('gone'));
      await store.apiKeys.add(a.id, { keyHash: 'gone-hash', keySealed: 's' }, 10);
      await store.templates.put(a.id, template('t.docx'), 5);
      assert.equal(await store.accounts.delete(a.id), true);
      assert.equal(await store.apiKeys.byHash('gone-hash'), null);
      assert.equal(await store.templates.count(a.id), 0);
      assert.equal(await store.accounts.delete(a.id), false);
    });

    it('keeps at most maxKeys API keys even when added in parallel from two instances', async () => {
      const a = await store.accounts.create(newAccount('keys'));
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => (i % 2 ? second : store).apiKeys.add(a.id, { keyHash: `k-${i}`, keySealed: `s-${i}` }, 10)),
      );
      assert.equal(results.filter((r) => r === 'added').length, 10);
      assert.equal((await store.apiKeys.list(a.id)).length, 10);
      // Which 10 of the 16 win the race differs from run to run.
      const kept = `k-${results.indexOf('added')}`;
      const found = await store.apiKeys.byHash(kept);
      assert.equal(found?.accountId, a.id);
      assert.equal(found?.active, true);
      assert.equal(await store.apiKeys.delete(a.id + 1000, kept), false, 'another account cannot delete it');
      assert.equal(await store.apiKeys.delete(a.id, kept), true);
      assert.equal(await store.apiKeys.byHash(kept), null);
    });

    it("keeps an API key's label and its latest use, for its own account only", async () => {
      const a = await store.accounts.create(newAccount('labels'));
      await store.apiKeys.add(a.id, { keyHash: 'lab-1', keySealed: 's', name: 'Invoices (production)' }, 10);
      await store.apiKeys.add(a.id, { keyHash: 'lab-2', keySealed: 's' }, 10);
      const [first, second_] = await store.apiKeys.list(a.id);
      assert.equal(first?.name, 'Invoices (production)');
      assert.equal(second_?.name, '');
      assert.equal(first?.lastUsedAt, null);
      assert.equal(await store.apiKeys.rename(a.id + 1000, first!.id, 'x'), false, 'another account cannot label it');
      assert.equal(await second.apiKeys.rename(a.id, second_!.id, 'CI'), true);
      assert.equal((await store.apiKeys.byHash('lab-2'))?.name, 'CI');
      const later = new Date('2026-11-26T10:05:00Z');
      await store.apiKeys.touch('lab-1', later);
      await second.apiKeys.touch('lab-1', new Date('2026-11-26T10:01:00Z')); // an instance a little behind
      assert.deepEqual((await store.apiKeys.byHash('lab-1'))?.lastUsedAt, later);
      assert.equal((await store.apiKeys.byHash('lab-2'))?.lastUsedAt, null);
    });

    it("keeps each account's audit log apart, newest first, pages it by id, prunes by age and drops it with the account", async () => {
      const a = await store.accounts.create(newAccount('audited'));
      const b = await store.accounts.create(newAccount('audited-too'));
      const old = new Date(Date.now() - 100 * 86_400_000);
      await store.audit.add({
        accountId: a.id,
        action: 'key created',
        actor: 'password',
        address: '10.0.0.1',
        detail: 'abcd…wxyz',
        at: old,
      });
      for (const n of [1, 2, 3])
        await (n % 2 ? store : second).audit.add({
          accountId: a.id,
          action: 'template uploaded',
          actor: 'key 1',
          address: null,
          detail: `t${n}.docx`,
        });
      await store.audit.add({ accountId: b.id, action: 'sign-in failed', actor: 'password', address: '10.0.0.2', detail: '' });
      const all = await store.audit.list(a.id, { limit: 10 });
      assert.deepEqual(
        all.map((e) => e.detail),
        ['t3.docx', 't2.docx', 't1.docx', 'abcd…wxyz'],
      );
      assert.equal(all[3]!.address, '10.0.0.1');
      assert.deepEqual(all[3]!.at, old);
      assert.deepEqual(
        (await second.audit.list(a.id, { limit: 2, before: all[1]!.id })).map((e) => e.detail),
        ['t1.docx', 'abcd…wxyz'],
      );
      assert.ok((await store.audit.prune(new Date(Date.now() - 90 * 86_400_000))) >= 1);
      assert.equal((await store.audit.list(a.id, { limit: 10 })).length, 3);
      assert.equal((await store.audit.list(b.id, { limit: 10 })).length, 1);
      await store.accounts.delete(b.id);
      assert.deepEqual(await store.audit.list(b.id, { limit: 10 }), []);
    });

    it('keeps the chosen number of earlier template versions, numbered on, and removes them with the template', async () => {
      const a = await store.accounts.create(newAccount('kept-versions'));
      const bytes = (n: number) => Buffer.from(`version ${n} `.repeat(50));
      for (let n = 1; n <= 5; n++) await (n % 2 ? store : second).templates.put(a.id, template('v.docx', bytes(n)), 5, 3);
      const versions = await store.templates.versions(a.id, 'v.docx');
      assert.deepEqual(
        versions.map((v) => [v.version, v.current]),
        [
          [5, true],
          [4, false],
          [3, false],
          [2, false],
        ],
        'the current one and the 3 before it',
      );
      assert.equal((await store.templates.meta(a.id, 'v.docx'))?.version, 5);
      assert.deepEqual((await second.templates.getVersion(a.id, 'v.docx', 3))?.data, bytes(3));
      assert.deepEqual((await store.templates.getVersion(a.id, 'v.docx', 5))?.data, bytes(5));
      assert.equal(await store.templates.getVersion(a.id, 'v.docx', 1), null, 'past the retention');
      assert.equal(await store.templates.getVersion(a.id + 1000, 'v.docx', 4), null, 'another account sees none');
      assert.equal(await store.templates.count(a.id), 1, 'versions do not count as templates');
      assert.ok((await store.accounts.storageBytes(a.id)) >= 4 * bytes(1).length, 'but they count as stored bytes');
      // Keeping none (the vendor's behaviour) drops the earlier ones at the next replacement.
      await store.templates.put(a.id, template('v.docx', bytes(6)), 5, 0);
      assert.deepEqual(
        (await store.templates.versions(a.id, 'v.docx')).map((v) => v.version),
        [6],
      );
      await store.templates.put(a.id, template('v.docx', bytes(7)), 5, 2);
      assert.equal(await store.templates.delete(a.id, 'v.docx'), true);
      assert.deepEqual(await store.templates.versions(a.id, 'v.docx'), []);
      await store.templates.put(a.id, template('v.docx', bytes(1)), 5, 2);
      assert.deepEqual(
        (await store.templates.versions(a.id, 'v.docx')).map((v) => v.version),
        [1],
        'a new template starts again at 1',
      );
    });

    it("keeps each version's template syntax: Word's merge fields unless one was given", async () => {
      const a = await store.accounts.create(newAccount('syntax'));
      const bytes = (n: number) => Buffer.from(`syntax ${n}`);
      await store.templates.put(a.id, template('s.docx', bytes(1)), 5, 3);
      assert.equal((await second.templates.meta(a.id, 's.docx'))?.syntax, 'word');
      await store.templates.put(a.id, { ...template('s.docx', bytes(2)), syntax: 'docxtemplater' }, 5, 3);
      assert.equal((await second.templates.get(a.id, 's.docx'))?.syntax, 'docxtemplater');
      assert.deepEqual(
        (await store.templates.versions(a.id, 's.docx')).map((v) => [v.version, v.syntax]),
        [
          [2, 'docxtemplater'],
          [1, 'word'],
        ],
      );
      assert.equal((await store.templates.getVersion(a.id, 's.docx', 1))?.syntax, 'word');
      assert.deepEqual(
        (await second.templates.list(a.id)).map((t) => t.syntax),
        ['docxtemplater'],
      );
    });

    it('stores templates byte for byte, replaces by name and enforces the template quota under concurrency', async () => {
      const a = await store.accounts.create(newAccount('tpl'));
      const data = randomBytes(300_000);
      assert.equal(await store.templates.put(a.id, template('a.docx', data), 5), 'created');
      const got = await second.templates.get(a.id, 'a.docx');
      assert.ok(got && Buffer.compare(got.data, data) === 0);
      assert.equal(got.size, data.length);
      const replacement = randomBytes(10);
      assert.equal(await store.templates.put(a.id, template('a.docx', replacement), 5), 'replaced');
      assert.deepEqual((await store.templates.get(a.id, 'a.docx'))?.data, replacement);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? second : store).templates.put(a.id, template(`n${i}.docx`), 5)),
      );
      assert.equal(results.filter((r) => r === 'created').length, 4);
      assert.equal(await store.templates.count(a.id), 5);
      assert.equal(await store.templates.put(a.id, template('a.docx'), 5), 'replaced', 'replacing works at the quota');
      const list = await store.templates.list(a.id);
      assert.equal(list.length, 5);
      assert.ok(list.every((t) => t.modifiedAt instanceof Date && t.size > 0));
      assert.equal(await store.templates.get(a.id + 1000, 'a.docx'), null, 'other accounts see nothing');
      assert.equal(await store.templates.delete(a.id, 'a.docx'), true);
      assert.equal(await store.templates.delete(a.id, 'a.docx'), false);
      assert.equal(await store.templates.meta(a.id, 'a.docx'), null);
    });

    it('counts documents exactly under parallel reservations from two instances and stops at the quota', async () => {
      const a = await store.accounts.create(newAccount('quota', { maxDocuments: 1000 }));
      const first = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? second : store).usage.reserveDocument(a.id, 60_000)));
      await Promise.all(first.map((r) => r!.commit()));
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 60);
      await store.accounts.update(a.id, { maxDocuments: 70 });
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? second : store).usage.reserveDocument(a.id, 60_000)));
      assert.equal(results.filter(Boolean).length, 10);
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 70);
      await results.find(Boolean)!.refund();
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 69);
    });

    it('takes back reservations whose instance died, never settled ones', async () => {
      const a = await store.accounts.create(newAccount('orphans', { maxDocuments: 100 }));
      const committed = await store.usage.reserveDocument(a.id, 1);
      await committed!.commit();
      const refunded = await store.usage.reserveDocument(a.id, 1);
      await refunded!.refund();
      await store.usage.reserveDocument(a.id, 1); // its instance "dies": never settled
      await second.usage.reserveDocument(a.id, 60_000); // still running elsewhere
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 3);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await second.usage.refundExpired(), 1);
      assert.equal(await store.usage.refundExpired(), 0);
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 2);
      await refunded!.refund(); // settling twice changes nothing
      assert.equal((await store.accounts.byId(a.id))?.createdDocuments, 2);
    });

    it('shares failed sign-in attempts between instances, by key and time', async () => {
      const now = Date.now();
      await store.authFailures.record(['addr:1.2.3.4', 'user:eve'], now - 5000);
      await second.authFailures.record(['addr:1.2.3.4'], now);
      assert.deepEqual(await second.authFailures.since(['addr:1.2.3.4', 'user:eve', 'user:nobody'], now - 10_000), [
        { count: 2, oldest: now - 5000 },
        { count: 1, oldest: now - 5000 },
        { count: 0, oldest: null },
      ]);
      assert.deepEqual(await store.authFailures.since(['addr:1.2.3.4'], now - 1000), [{ count: 1, oldest: now }]);
      await store.authFailures.clear('user:eve');
      await second.authFailures.prune(now - 1000);
      assert.deepEqual(await store.authFailures.since(['addr:1.2.3.4', 'user:eve'], 0), [
        { count: 1, oldest: now },
        { count: 0, oldest: null },
      ]);
    });

    it('counts proofing transactions up to the limit', async () => {
      const a = await store.accounts.create(newAccount('proof', { maxProofingTransactions: 5 }));
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? second : store).usage.reserveProofing(a.id)));
      assert.equal(results.filter(Boolean).length, 5);
      assert.equal((await store.accounts.byId(a.id))?.proofingTransactions, 5);
    });

    it('counts documents and proofing per calendar month: a new month starts from zero', async () => {
      const a = await store.accounts.create(newAccount('monthly', { maxDocuments: 3, maxProofingTransactions: 2 }));
      for (let i = 0; i < 3; i++) await (await store.usage.reserveDocument(a.id, 60_000))!.commit();
      assert.equal(await store.usage.reserveDocument(a.id, 60_000), null, 'the quota is used up this month');
      assert.equal(await store.usage.reserveProofing(a.id), true);
      await backend.query(`UPDATE accounts SET usage_month = '2001-01' WHERE id = ${a.id}`);
      const aged = await store.accounts.byId(a.id);
      assert.equal(aged?.createdDocuments, 0, "last month's documents do not count");
      assert.equal(aged?.proofingTransactions, 0);
      const again = await second.usage.reserveDocument(a.id, 60_000);
      assert.ok(again, 'a new month has the whole quota');
      await again.commit();
      assert.equal(await store.usage.reserveProofing(a.id), true);
      const now = await store.accounts.byId(a.id);
      assert.equal(now?.createdDocuments, 1);
      assert.equal(now?.proofingTransactions, 1);
    });

    it('grants at most `limit` slots per account across instances and frees them on release', async () => {
      const a = await store.accounts.create(newAccount('slots'));
      const b = await store.accounts.create(newAccount('slots-b'));
      const leases = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? second : store).usage.acquireSlot(a.id, 2, 60_000)));
      const held = leases.filter((l) => l !== null);
      assert.equal(held.length, 2);
      assert.ok(await store.usage.acquireSlot(b.id, 2, 60_000), 'another account has its own slots');
      await held[0]!.release();
      await held[0]!.release(); // idempotent
      const again = await second.usage.acquireSlot(a.id, 2, 60_000);
      assert.ok(again);
      assert.equal(await store.usage.acquireSlot(a.id, 2, 60_000), null);
      await again.release();
      await held[1]!.release();
    });

    it("frees a claim's merge slot as soon as its work is done, and settles its document after delivery", async () => {
      const a = await store.accounts.create(newAccount('early-slots'));
      const documents = async () => (await store.accounts.byId(a.id))?.createdDocuments;
      const both = { slot: { limit: 1, leaseMs: 60_000 }, documentLeaseMs: 60_000 };
      const first = await store.usage.claim(a.id, both);
      assert.ok('granted' in first);
      assert.deepEqual(await second.usage.claim(a.id, both), { refused: 'slots' });
      await first.granted.releaseSlot(); // the work is done; its answer is still on its way
      await first.granted.releaseSlot(); // twice changes nothing
      const next = await store.usage.claim(a.id, both);
      assert.ok('granted' in next, 'the next merge runs while the first answer is delivered');
      await first.granted.settle(true); // delivered: counted, and the slot the next one holds stays held
      assert.deepEqual(await second.usage.claim(a.id, both), { refused: 'slots' });
      await next.granted.releaseSlot();
      // Another instance: at once on PostgreSQL. SQLite writes a freed slot with the instance's next
      // claim or on its own within milliseconds (one write transaction per merge request fewer).
      let fromOther = await second.usage.claim(a.id, both);
      while (backend.name === 'sqlite' && !('granted' in fromOther)) {
        await new Promise((resolve) => setImmediate(resolve));
        fromOther = await second.usage.claim(a.id, both);
      }
      assert.ok('granted' in fromOther, 'another instance sees the slot free');
      await next.granted.settle(false);
      await fromOther.granted.settle(false);
      assert.equal(await documents(), 1);
    });

    it('claims a slot and a document together, refuses without holding anything, and settles once', async () => {
      const a = await store.accounts.create(newAccount('claims', { maxDocuments: 3 }));
      const documents = async () => (await store.accounts.byId(a.id))?.createdDocuments;
      const both = { slot: { limit: 2, leaseMs: 60_000 }, documentLeaseMs: 60_000 };
      const first = await store.usage.claim(a.id, both);
      const second2 = await second.usage.claim(a.id, both);
      assert.ok('granted' in first && 'granted' in second2);
      assert.deepEqual(await store.usage.claim(a.id, both), { refused: 'slots' });
      assert.equal(await documents(), 2, 'a refused claim counts nothing');
      await first.granted.settle(false); // failed work: the document is taken back, the slot freed
      await first.granted.settle(true); // settling twice changes nothing
      assert.equal(await documents(), 1);
      const third = await store.usage.claim(a.id, both);
      assert.ok('granted' in third);
      await third.granted.settle(true);
      await second2.granted.settle(true);
      assert.equal(await documents(), 2);
      const last = await store.usage.claim(a.id, both);
      assert.ok('granted' in last);
      await last.granted.settle(true);
      assert.equal(await documents(), 3);
      // The quota is used up: refused, and the slot it would have taken is free again.
      assert.deepEqual(await store.usage.claim(a.id, both), { refused: 'documents' });
      const slots = await Promise.all([store.usage.claim(a.id, { slot: both.slot }), second.usage.claim(a.id, { slot: both.slot })]);
      assert.ok(
        slots.every((c) => 'granted' in c),
        'both slots are free',
      );
      for (const c of slots) if ('granted' in c) await c.granted.settle(true);
      assert.equal(await documents(), 3, 'slot-only claims (test runs) count nothing');
      const nothing = await store.usage.claim(a.id, {});
      assert.ok('granted' in nothing);
      await nothing.granted.settle(true);
      // Claims racing for the same free slot: the loser takes the next one; never more than the limit.
      for (let round = 0; round < 10; round++) {
        const racing = await Promise.all(
          Array.from({ length: 4 }, (_, i) => (i % 2 ? second : store).usage.claim(a.id, { slot: both.slot })),
        );
        assert.equal(racing.filter((c) => 'granted' in c).length, 2, `round ${round}`);
        for (const c of racing) if ('granted' in c) await c.granted.settle(true);
      }
    });

    it('frees the slots of an instance that goes away', async () => {
      const a = await store.accounts.create(newAccount('crash'));
      const third = await backend.open();
      assert.ok(await third.usage.acquireSlot(a.id, 1, backend.name === 'sqlite' ? 200 : 60_000));
      if (backend.name === 'postgres') {
        await third.close(); // its connections end, and PostgreSQL drops their locks
      } else {
        await new Promise((r) => setTimeout(r, 250)); // the lease expires
        await third.close();
      }
      // PostgreSQL frees the locks once the server notices the connection is gone: soon, not at once.
      let lease = await store.usage.acquireSlot(a.id, 1, 60_000);
      for (let i = 0; i < 100 && !lease; i++) {
        await new Promise((r) => setTimeout(r, 50));
        lease = await store.usage.acquireSlot(a.id, 1, 60_000);
      }
      assert.ok(lease);
      await lease.release();
    });

    it('counts the bytes an account stores: templates, job requests and results, and frees them with the deletes', async () => {
      const a = await store.accounts.create(newAccount('space'));
      const other = await store.accounts.create(newAccount('space-other'));
      assert.equal(await store.accounts.storageBytes(a.id), 0);
      await store.templates.put(a.id, template('a.docx', randomBytes(1000)), 5);
      await store.templates.put(other.id, template('a.docx', randomBytes(5000)), 5);
      assert.equal(await second.accounts.storageBytes(a.id), 1000);
      await store.jobs.add({ id: 'space-j1', accountId: a.id, kind: 'merge', request: Buffer.alloc(300), callbackUrl: null }, 5);
      assert.equal(await store.accounts.storageBytes(a.id), 1300, 'a waiting request counts');
      const claimed = (await store.jobs.claim(60_000))!;
      assert.ok(await store.jobs.finish(claimed.job.id, claimed.holder, { result: Buffer.alloc(2000) }, 60_000));
      assert.equal(await store.accounts.storageBytes(a.id), 3000, 'the result replaces the request');
      assert.ok(await store.jobs.delete(a.id, 'space-j1'));
      assert.ok(await store.templates.delete(a.id, 'a.docx'));
      assert.equal(await store.accounts.storageBytes(a.id), 0);
      assert.equal(await store.accounts.storageBytes(other.id), 5000);
    });

    it('queues jobs, hands each to one instance, and takes over a job whose lease ran out', async () => {
      const a = await store.accounts.create(newAccount('jobs'));
      const other = await store.accounts.create(newAccount('jobs-other'));
      const job = (id: string, callbackUrl: string | null = null) => ({
        id,
        accountId: a.id,
        kind: 'merge' as const,
        request: Buffer.from(`{"id":"${id}"}`),
        callbackUrl,
      });
      assert.equal(await store.jobs.add(job('j1', 'https://hooks.example/cb'), 2), 'added');
      assert.equal(await second.jobs.add(job('j2'), 2), 'added');
      assert.equal(await store.jobs.add(job('j3'), 2), 'limit', 'two waiting jobs are the limit');
      // A submission sent again with its idempotency key names the job it made (before the limit counts).
      const keyed = await store.accounts.create(newAccount('keyed'));
      const submission = (id: string, accountId = keyed.id) => ({
        id,
        accountId,
        kind: 'merge' as const,
        request: Buffer.from('{}'),
        callbackUrl: null,
        idempotencyKey: 'order-42',
      });
      assert.equal(await store.jobs.add(submission('k-first'), 1), 'added');
      assert.deepEqual(await second.jobs.add(submission('k-again'), 1), { existing: 'k-first' });
      assert.equal(await second.jobs.get(keyed.id, 'k-again'), null);
      assert.equal(await store.jobs.add(submission('k-other', other.id), 5), 'added', 'keys are per account');
      await store.jobs.delete(other.id, 'k-other');
      await store.accounts.delete(keyed.id);
      const queue = await second.jobs.queueStats();
      assert.equal(queue.waiting, 2);
      assert.ok(queue.oldestQueuedAt && queue.oldestQueuedAt.getTime() <= Date.now());
      assert.equal((await store.jobs.get(a.id, 'j1'))?.state, 'queued');
      assert.equal(await store.jobs.get(other.id, 'j1'), null, 'no job is visible to another account');

      // Two instances claiming at once get different jobs, oldest first.
      const [c1, c2] = await Promise.all([store.jobs.claim(60_000), second.jobs.claim(60_000)]);
      assert.deepEqual(new Set([c1?.job.id, c2?.job.id]), new Set(['j1', 'j2']));
      assert.equal(await store.jobs.claim(60_000), null);
      const first = c1!.job.id === 'j1' ? c1! : c2!;
      assert.equal(first.request.toString(), '{"id":"j1"}');
      assert.equal(first.job.attempts, 1);

      assert.ok(await store.jobs.renew('j1', first.holder, 60_000, { stage: 'converting', done: 1, total: 3 }));
      assert.deepEqual((await second.jobs.get(a.id, 'j1'))?.progress, { stage: 'converting', done: 1, total: 3 });
      assert.equal(await store.jobs.renew('j1', 'someone-else', 60_000), false);
      assert.ok(await store.jobs.finish('j1', first.holder, { result: Buffer.from('["ok"]') }, 60_000));
      const done = (await store.jobs.get(a.id, 'j1'))!;
      assert.equal(done.state, 'done');
      assert.ok(done.finishedAt && done.expiresAt && done.expiresAt > done.finishedAt);
      assert.deepEqual(done.callback, { url: 'https://hooks.example/cb', state: 'pending', attempts: 0, lastError: null });
      assert.equal((await second.jobs.result(a.id, 'j1'))?.toString(), '["ok"]');
      assert.equal(await store.jobs.result(other.id, 'j1'), null);

      // The callback: one instance takes the delivery; a failure comes due again; then delivered.
      const [d1, d2] = await Promise.all([store.jobs.claimCallbacks(60_000, 10), second.jobs.claimCallbacks(60_000, 10)]);
      assert.equal(d1.length + d2.length, 1);
      await store.jobs.callbackAttempted('j1', { delivered: false, error: 'HTTP 500', retryInMs: 0 });
      assert.deepEqual((await store.jobs.get(a.id, 'j1'))?.callback, {
        url: 'https://hooks.example/cb',
        state: 'pending',
        attempts: 1,
        lastError: 'HTTP 500',
      });
      // An account with enough deliveries under way is skipped; others are not.
      assert.deepEqual(await second.jobs.claimCallbacks(60_000, 10, [a.id]), []);
      const [taken] = await second.jobs.claimCallbacks(1, 10, [other.id]);
      assert.equal(taken?.callback?.attempts, 2, 'an attempt counts when it is taken up');
      // Its instance dies before recording it: taken up again once the lease runs out, as attempt 3.
      await new Promise((r) => setTimeout(r, 20));
      const [retaken] = await store.jobs.claimCallbacks(60_000, 10);
      assert.equal(retaken?.callback?.attempts, 3);
      await store.jobs.callbackAttempted('j1', { delivered: false, error: 'HTTP 500', retryInMs: 0 });
      assert.equal((await second.jobs.claimCallbacks(60_000, 10))[0]?.callback?.attempts, 4);
      await second.jobs.callbackAttempted('j1', { delivered: true });
      assert.equal((await store.jobs.get(a.id, 'j1'))?.callback?.attempts, 4);
      assert.equal((await store.jobs.get(a.id, 'j1'))?.callback?.state, 'delivered');
      assert.deepEqual(await store.jobs.claimCallbacks(60_000, 10), []);

      // The instance holding j2 dies: once its lease runs out another takes j2 up again.
      const holder2 = (c1!.job.id === 'j2' ? c1! : c2!).holder;
      assert.ok(await store.jobs.renew('j2', holder2, 1));
      await new Promise((r) => setTimeout(r, 20));
      const again = await second.jobs.claim(60_000);
      assert.equal(again?.job.id, 'j2');
      assert.equal(again?.job.attempts, 2);
      assert.equal(await store.jobs.finish('j2', holder2, { result: Buffer.from('x') }, 1), false, 'the old holder cannot finish it');
      await second.jobs.requeue('j2', again!.holder, 0);
      const third = await store.jobs.claim(60_000);
      assert.equal(third?.job.id, 'j2');
      assert.ok(await store.jobs.finish('j2', third!.holder, { error: { status: 504, message: 'too long' } }, 1));
      assert.deepEqual((await store.jobs.get(a.id, 'j2'))?.error, { status: 504, message: 'too long' });
      assert.equal(await store.jobs.result(a.id, 'j2'), null);

      // Retention: j2 (kept 1 ms) goes; j1 (kept a minute) stays; deleting is per account.
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await store.jobs.deleteExpired(), 1);
      assert.deepEqual(
        (await store.jobs.list(a.id, 10)).map((j) => j.id),
        ['j1'],
      );
      const listed = await second.jobs.list(a.id, 10);
      assert.deepEqual(
        await store.jobs.list(a.id, 10, { createdAt: listed[0]!.createdAt, id: listed[0]!.id }),
        [],
        'nothing after the last',
      );
      assert.deepEqual(
        (await store.jobs.list(a.id, 10, { createdAt: new Date(listed[0]!.createdAt.getTime() + 1), id: '' })).map((j) => j.id),
        ['j1'],
      );
      assert.equal(await store.jobs.delete(other.id, 'j1'), false);
      assert.equal(await store.jobs.delete(a.id, 'j1'), true);
      assert.deepEqual(await store.jobs.list(a.id, 10), []);
      // An account's removal takes its jobs with it.
      assert.equal(await store.jobs.add(job('j4'), 2), 'added');
      await store.accounts.delete(a.id);
      assert.equal(await store.jobs.claim(60_000), null);
    });

    it("counts a job's document once however often it is taken up, and settles it with the job's outcome", async () => {
      const a = await store.accounts.create(newAccount('once', { maxDocuments: 10 }));
      const documents = async () => (await second.accounts.byId(a.id))?.createdDocuments;
      const job = (id: string) => ({ id, accountId: a.id, kind: 'merge' as const, request: Buffer.from('{}'), callbackUrl: null });
      const claim = { slot: { limit: 2, leaseMs: 60_000 }, documentLeaseMs: 60_000, workKey: 'once-1' };
      assert.equal(await store.jobs.add(job('once-1'), 5), 'added');
      const taken = (await store.jobs.claim(60_000))!;
      const first = await store.usage.claim(a.id, claim);
      assert.ok('granted' in first);
      assert.equal(await documents(), 1);
      // Its instance dies after the work, before the outcome is written: another takes the job up.
      assert.ok(await store.jobs.renew('once-1', taken.holder, 1));
      await new Promise((r) => setTimeout(r, 20));
      const retaken = (await second.jobs.claim(60_000))!;
      assert.equal(retaken.job.attempts, 2);
      const again = await second.usage.claim(a.id, claim);
      assert.ok('granted' in again);
      assert.equal(await documents(), 1, "the earlier attempt's reservation is taken over, not counted again");
      await again.granted.settle(true);
      assert.equal(await documents(), 1);
      assert.ok(await second.jobs.finish('once-1', retaken.holder, { result: Buffer.from('["x"]') }, 60_000));
      await new Promise((r) => setTimeout(r, 20));
      await store.usage.refundExpired();
      assert.equal(await documents(), 1, 'committed with the result: the sweep leaves it');

      // A job given up with an error takes back what an attempt reserved.
      assert.equal(await store.jobs.add(job('once-2'), 5), 'added');
      const failing = (await second.jobs.claim(60_000))!;
      assert.ok('granted' in (await second.usage.claim(a.id, { documentLeaseMs: 60_000, workKey: 'once-2' })));
      assert.equal(await documents(), 2);
      assert.ok(await store.jobs.finish('once-2', failing.holder, { error: { status: 500, message: 'given up' } }, 60_000));
      assert.equal(await documents(), 1);

      // A job whose reservation the sweep took back while it ran still counts its result, once.
      assert.equal(await store.jobs.add(job('once-3'), 5), 'added');
      const slow = (await store.jobs.claim(60_000))!;
      assert.ok('granted' in (await store.usage.claim(a.id, { documentLeaseMs: 1, workKey: 'once-3' })));
      await new Promise((r) => setTimeout(r, 20));
      await second.usage.refundExpired();
      assert.equal(await documents(), 1);
      assert.ok(await second.jobs.finish('once-3', slow.holder, { result: Buffer.from('["x"]') }, 60_000));
      assert.equal(await documents(), 2);
    });

    it("reads the template's version with the claim, and an account by its API key, each in one go", async () => {
      const a = await store.accounts.create(newAccount('versions'));
      await store.templates.put(a.id, { ...template('v.docx'), sha256: 'a'.repeat(64) }, 5);
      const withSlot = await second.usage.claim(a.id, { slot: { limit: 2, leaseMs: 60_000 }, documentLeaseMs: 60_000, template: 'v.docx' });
      assert.ok('granted' in withSlot);
      assert.equal(withSlot.template?.sha256, 'a'.repeat(64));
      assert.equal(withSlot.template?.name, 'v.docx');
      await withSlot.granted.settle(true);
      const missing = await store.usage.claim(a.id, { documentLeaseMs: 60_000, template: 'none.docx' });
      assert.ok('granted' in missing && missing.template === null);
      await missing.granted.settle(false);
      const unasked = await store.usage.claim(a.id, { slot: { limit: 2, leaseMs: 60_000 } });
      assert.ok('granted' in unasked && unasked.template === null);
      await unasked.granted.settle(true);

      assert.equal(await store.apiKeys.add(a.id, { keyHash: 'kh-versions', keySealed: 'sealed' }, 5), 'added');
      assert.deepEqual(await second.accounts.byApiKey('kh-versions'), await store.accounts.byId(a.id));
      assert.equal(await second.accounts.byApiKey('kh-none'), null);
      await store.apiKeys.delete(a.id, 'kh-versions');
      assert.equal(await second.accounts.byApiKey('kh-versions'), null);
    });

    it('counts a document again when its answer is delivered after the sweep took it back', async () => {
      const a = await store.accounts.create(newAccount('late', { maxDocuments: 10 }));
      const documents = async () => (await store.accounts.byId(a.id))?.createdDocuments;
      const slow = await store.usage.claim(a.id, { slot: { limit: 2, leaseMs: 60_000 }, documentLeaseMs: 1 });
      assert.ok('granted' in slow);
      await new Promise((r) => setTimeout(r, 20));
      await second.usage.refundExpired();
      assert.equal(await documents(), 0);
      await slow.granted.settle(true);
      assert.equal(await documents(), 1);
      const retried = await store.usage.reserveDocument(a.id, 60_000);
      await retried!.commit();
      await retried!.commit(); // a commit tried again (its first answer was lost) counts nothing more
      assert.equal(await documents(), 2);
      const freed = await Promise.all([store.usage.acquireSlot(a.id, 2, 60_000), store.usage.acquireSlot(a.id, 2, 60_000)]);
      assert.ok(freed.every(Boolean), 'its slot was freed too');
      for (const lease of freed) await lease!.release();
      const refunded = await store.usage.reserveDocument(a.id, 1);
      await new Promise((r) => setTimeout(r, 20));
      await second.usage.refundExpired();
      await refunded!.refund(); // the sweep took it back already: not twice
      assert.equal(await documents(), 2);
    });
  });
}
