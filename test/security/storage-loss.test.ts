import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../helpers/postgres.js';
import { startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { silenceableProxy, type SilenceableProxy } from '../helpers/proxy.js';
import { client, errorMessage as message, request, type Client } from '../helpers/http.js';

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('losing the database', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let c: Client;
  before(async () => {
    db = await createTestDatabase();
    const services = await adminServices({ dataDir: tempDir(), databaseUrl: db.url, secret: 'storage-loss-secret-0123456789abcdef' });
    const account = await makeAccount(services, 'ann', { licence: 'SN-1' });
    await services.store.close();
    server = await startServer({
      DOCSMITH_DATA_DIR: tempDir(),
      DOCSMITH_DATABASE_URL: db.url,
      DOCSMITH_SECRET: 'storage-loss-secret-0123456789abcdef',
    });
    c = client(server.url, { basic: [account.user, account.password] });
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('answers 503 with Retry-After while the database is gone, and readiness says why', async () => {
    assert.equal((await c.get('/v1/account/settings')).status, 200);
    const name = new URL(db.url).pathname.slice(1);
    await admin(`DROP DATABASE ${name} WITH (FORCE)`);
    for (const path of ['/v1/account/settings', '/v1/templates/list']) {
      const reply = await c.get(path);
      assert.equal(reply.status, 503, `${path}: ${reply.text}`);
      assert.ok(Number(reply.headers['retry-after']) > 0);
      assert.match(message(reply), /storage is not available/);
      assert.ok(!reply.text.includes(name), 'the database name is not told to callers');
    }
    const down = await request(server.url, 'GET', '/readyz');
    assert.equal(down.status, 503);
    assert.ok(
      !down.text.includes(name) && !/3D000|does not exist/.test(down.text),
      `readiness tells anonymous callers no database details: ${down.text}`,
    );

    // Re-created empty: reachable, but without the schema nothing can be served.
    await admin(`CREATE DATABASE ${name}`);
    const ready = await request(server.url, 'GET', '/readyz');
    assert.equal(ready.status, 503, ready.text);
    assert.match(message(ready), /no docsmith schema/);
    const reply = await c.get('/v1/account/settings');
    assert.equal(reply.status, 503, reply.text);
  });
});

describe('a database that stops answering (connections taken, nothing said)', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let proxy: SilenceableProxy;
  let c: Client;
  before(async () => {
    db = await createTestDatabase();
    const target = new URL(db.url);
    proxy = await silenceableProxy(target.hostname, Number(target.port || 5432));
    const via = new URL(db.url);
    via.hostname = '127.0.0.1';
    via.port = String(proxy.port);
    const services = await adminServices({ dataDir: tempDir(), databaseUrl: db.url, secret: 'storage-stall-secret-0123456789abcdef' });
    const account = await makeAccount(services, 'ann', { licence: 'SN-1' });
    await services.store.close();
    server = await startServer({
      DOCSMITH_DATA_DIR: tempDir(),
      DOCSMITH_DATABASE_URL: via.href,
      DOCSMITH_SECRET: 'storage-stall-secret-0123456789abcdef',
      DOCSMITH_DATABASE_TIMEOUT_MS: '1000',
      DOCSMITH_OFFICE_PROCESSES: '0',
    });
    c = client(server.url, { basic: [account.user, account.password] });
    assert.equal((await c.get('/v1/account/settings')).status, 200);
    proxy.silence();
  });
  after(async () => {
    // The database's connections are cut first: nothing of the server's stop waits on a silent peer.
    proxy?.close();
    await server?.stop();
    await db?.drop();
  });

  it('answers 503 with Retry-After within its limits, and readiness says the database', async () => {
    const reply = await c.get('/v1/templates/list');
    assert.equal(reply.status, 503, reply.text);
    assert.ok(reply.headers['retry-after']);
    const ready = await request(server.url, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.match(message(ready), /database/);
    assert.equal((await request(server.url, 'GET', '/healthz')).status, 200);
  });
});
