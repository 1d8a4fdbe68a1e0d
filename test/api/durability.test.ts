import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { docx } from '../helpers/hostile.js';
import { startServer, tempDir } from '../helpers/server.js';
import { client } from '../helpers/http.js';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { createTestDatabase } from '../helpers/postgres.js';

/** A small valid DOCX package with random content, so every upload has distinct bytes. */
function randomDocx(): Buffer {
  return docx(`<w:p><w:r><w:t>${randomBytes(8).toString('hex')}</w:t></w:r></w:p>`, {
    parts: { 'word/filler.bin': randomBytes(20_000 + Math.floor(Math.random() * 50_000)) },
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function killDuringUploads(env: Record<string, string>, setup: { dataDir: string; databaseUrl?: string }) {
  const admin = await adminServices(setup);
  const account = await makeAccount(admin, 'writer', { maxTemplates: 100_000 });
  await admin.store.close();
  const server = await startServer(env);
  const c = client(server.url, { basic: [account.user, account.password] });
  const acknowledged = new Map<string, string>();
  let stop = false;
  let n = 0;
  const writer = async () => {
    while (!stop) {
      const name = `t${n++}.docx`;
      const data = randomDocx();
      try {
        const reply = await c.upload(name, data);
        if (reply.status === 201) acknowledged.set(name, sha(data));
      } catch {
        return; // the connection died with the server
      }
    }
  };
  const writers = Array.from({ length: 4 }, writer);
  // Killed once enough uploads are acknowledged (a condition, not a time: CI machines are busy).
  const deadline = Date.now() + 120_000;
  while (acknowledged.size <= 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await server.kill();
  stop = true;
  await Promise.all(writers);
  assert.ok(acknowledged.size > 10, `only ${acknowledged.size} uploads were acknowledged`);

  const restarted = await startServer(env);
  try {
    const c2 = client(restarted.url, { basic: [account.user, account.password] });
    for (const [name, digest] of acknowledged) {
      const reply = await c2.get(`/v1/templates/download?templateName=${name}`);
      assert.equal(reply.status, 200, `${name} was acknowledged but is gone`);
      assert.equal(sha(Buffer.from(reply.json() as string, 'base64')), digest, `${name} changed`);
    }
    const list = (await c2.get('/v1/templates/list')).json() as unknown[];
    assert.ok(list.length >= acknowledged.size);
  } finally {
    await restarted.stop();
  }
}

describe('a kill -9 during uploads loses no acknowledged template', () => {
  it('with the embedded SQLite store', async () => {
    const dataDir = tempDir();
    await killDuringUploads({ DOCSMITH_DATA_DIR: dataDir }, { dataDir });
  });

  it('with PostgreSQL', async () => {
    const db = await createTestDatabase();
    try {
      const dataDir = tempDir();
      await killDuringUploads({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_DATABASE_URL: db.url }, { dataDir, databaseUrl: db.url });
    } finally {
      await db.drop();
    }
  });
});
