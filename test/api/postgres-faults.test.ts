import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { accountIn, adminServices, makeAccount } from '../helpers/accounts.js';
import { startServer, tempDir } from '../helpers/server.js';
import { client, request } from '../helpers/http.js';
import { heldAtGate, openGate } from '../helpers/gates.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

describe("PostgreSQL ends the server's connections", () => {
  it('does not end the process, even for a connection holding a merge slot; requests answer 200 or 503, never 500, and it serves again', async () => {
    const db = await createTestDatabase();
    const dataDir = tempDir();
    const account = await accountIn({ dataDir, databaseUrl: db.url }, 'ann', { licence: 'SN-PGF' });
    const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_DATABASE_URL: db.url });
    try {
      const c = client(server.url, { basic: [account.user, account.password] });
      // Both merge slots held until the gate opens: their connections are checked out of the pool while the work runs.
      const held = [c.post('/v1/_test/operation?merge=1&gate=pgf'), c.post('/v1/_test/operation?merge=1&gate=pgf')];
      // Seen at the gate, not by sending merges that would compete for the slots.
      await heldAtGate([server.url], 'pgf', 2);
      assert.equal((await c.post('/v1/_test/operation?merge=1')).status, 403, 'both merge slots held');

      const killer = new pg.Client({ connectionString: db.url });
      await killer.connect();
      const { rows } = await killer.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      await killer.end();
      assert.ok(rows.length >= 2, `${rows.length} connections ended`);
      await openGate([server.url], 'pgf');

      for (const answer of await Promise.all(held)) assert.ok([200, 503].includes(answer.status), `${answer.status} ${answer.text}`);
      const during = await Promise.all(Array.from({ length: 10 }, () => c.post('/v1/_test/operation')));
      for (const answer of during) assert.ok([200, 503].includes(answer.status), `${answer.status} ${answer.text}`);
      assert.equal(server.child.exitCode, null, 'the server is still running');
      assert.equal((await request(server.url, 'GET', '/healthz')).status, 200);
      await until('merges served again', async () => (await c.post('/v1/_test/operation?merge=1')).status === 200);
      assert.equal((await request(server.url, 'GET', '/readyz')).status, 200);
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('12 accounts merging twice at once on one instance (more slots than pooled connections) all get served, and /readyz answers throughout', async () => {
    const db = await createTestDatabase();
    const dataDir = tempDir();
    const admin = await adminServices({ dataDir, databaseUrl: db.url });
    const accounts = await Promise.all(Array.from({ length: 12 }, (_, i) => makeAccount(admin, `acct${i}`, { licence: `SN-POOL${i}` })));
    await admin.store.close();
    const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_DATABASE_URL: db.url, DOCSMITH_DATABASE_POOL: '4' });
    try {
      const clients = accounts.map((a) => client(server.url, { basic: [a.user, a.password] }));
      // Signed in first (sign-ins are hashed a few at a time), so the merges below arrive together.
      for (const c of clients) assert.equal((await c.get('/v1/account/settings')).status, 200);
      const merges = clients.flatMap((c) => [
        c.post('/v1/_test/operation?merge=1&holdMs=2000'),
        c.post('/v1/_test/operation?merge=1&holdMs=2000'),
      ]);
      const ready = await request(server.url, 'GET', '/readyz');
      const answers = await Promise.all(merges);
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 200),
        answers
          .map((a) => a.text)
          .filter((t) => t !== 'true')
          .join('\n'),
      );
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});
