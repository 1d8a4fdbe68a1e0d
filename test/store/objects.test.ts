import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { openObjectStorage, type ObjectStorage } from '../../src/store/objects.js';
import { withObjectStorage, type ObjectBackedStore } from '../../src/store/objectBacked.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { postgresBackend, sqliteBackend } from '../helpers/stores.js';
import fs from 'node:fs';

const template = (name: string, data: Buffer) => ({ name, format: 'docx', sha256: createHash('sha256').update(data).digest('hex'), data });

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe(`templates and job results in object storage (${backend.name})`, () => {
    let s3: TestS3;
    let objects: ObjectStorage;
    let store: ObjectBackedStore;
    let accountId: number;
    const keys = async () => (await objects.list()).map((o) => o.key).sort();

    before(async () => {
      s3 = await startS3();
      objects = await openObjectStorage({ ...s3.config, prefix: `t-${backend.name}/` });
      store = withObjectStorage(await backend.open(), objects);
      accountId = (
        await store.accounts.create({
          username: 'ann',
          passwordHash: 'scrypt$x',
          licence: 'TRIAL',
          maxDocuments: 100,
          maxTemplates: 2,
          maxProofingTransactions: 10,
          validUntil: null,
        })
      ).id;
    });
    after(async () => {
      await store?.close();
      await backend.cleanup();
      await s3?.close();
    });

    it('keeps the bytes in the bucket and a pointer in the database; versions, sizes and quotas as before', async () => {
      const v1 = randomBytes(50_000);
      const v2 = randomBytes(60_000);
      assert.equal(await store.templates.put(accountId, template('a.docx', v1), 2, 10), 'created');
      assert.equal(await store.templates.put(accountId, template('a.docx', v2), 2, 10), 'replaced');
      const sql =
        backend.name === 'sqlite'
          ? 'SELECT data FROM templates WHERE account_id = ? AND name = ?'
          : 'SELECT data FROM templates WHERE account_id = $1 AND name = $2';
      const raw = Buffer.from((await backend.query<{ data: Uint8Array }>(sql, [accountId, 'a.docx']))[0]!.data);
      assert.ok(raw.length < 200, `the database holds ${raw.length} bytes`);
      assert.match(raw.toString(), /^docsmith-object:t-\w+\/templates\/\d+\/[0-9a-f-]{36}$/);
      assert.deepEqual((await store.templates.get(accountId, 'a.docx'))!.data, v2);
      assert.deepEqual((await store.templates.getVersion(accountId, 'a.docx', 1))!.data, v1);
      assert.equal((await store.templates.meta(accountId, 'a.docx'))!.size, 60_000);
      assert.equal(await store.accounts.storageBytes(accountId), 110_000, 'the quota counts the templates, not the pointers');
      assert.equal((await keys()).length, 2);

      // Beyond the account's templates: refused, and nothing left in the bucket.
      assert.equal(await store.templates.put(accountId, template('b.docx', randomBytes(10)), 2, 10), 'created');
      assert.equal(await store.templates.put(accountId, template('c.docx', randomBytes(10)), 2, 10), 'limit');
      assert.equal((await keys()).length, 3);

      // Deleting a template removes its objects, every version's.
      assert.ok(await store.templates.delete(accountId, 'a.docx'));
      assert.equal((await keys()).length, 1);
      assert.ok(await store.templates.delete(accountId, 'b.docx'));
      assert.deepEqual(await keys(), []);
    });

    it('keeps job results in the bucket; deleting the job removes it', async () => {
      await store.jobs.add({ id: `job-${backend.name}`, accountId, kind: 'merge', request: Buffer.from('{}'), callbackUrl: null }, 5);
      const claimed = (await store.jobs.claim(60_000))!;
      const result = randomBytes(30_000);
      assert.ok(await store.jobs.finish(claimed.job.id, claimed.holder, { result }, 60_000));
      assert.deepEqual(await store.jobs.result(accountId, claimed.job.id), result);
      assert.equal((await keys()).filter((k) => k.includes('/jobs/')).length, 1);
      assert.ok(await store.jobs.delete(accountId, claimed.job.id));
      assert.deepEqual(await keys(), []);
    });

    it('sweeps objects no row points to once they are older than the grace period, and never one a row points to', async () => {
      assert.equal(await store.templates.put(accountId, template('kept.docx', randomBytes(100)), 2, 0), 'created');
      await objects.put(`t-${backend.name}/templates/${accountId}/orphan`, randomBytes(10));
      assert.equal(await store.sweep(60 * 60_000), 0, 'young objects stay (a write may be on its way to the database)');
      assert.equal(await store.sweep(-1), 1);
      assert.equal((await keys()).length, 1);
      assert.ok((await store.templates.get(accountId, 'kept.docx'))!.data.length === 100);
    });

    it('answers 503 naming the object storage when the bucket is gone, and the store says so when pinged, not when its schema is asked', async () => {
      await s3.close();
      await assert.rejects(
        () => store.templates.get(accountId, 'kept.docx'),
        (error: Error & { status?: number }) => error.status === 503 && /object storage is not reachable/.test(error.message),
      );
      await assert.rejects(() => store.ping(), /object storage/);
      assert.deepEqual(
        Object.keys(await store.schema()),
        ['schema'],
        'the database alone still answers (the job runner asks it every poll)',
      );
      assert.ok(fs.existsSync(s3.dir), 'the bucket files stay for a restart');
    });
  });
}
