import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import fs from 'node:fs';
import net from 'node:net';
import { until } from '../helpers/wait.js';
import { startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { client, request, type Client, errorMessage as message } from '../helpers/http.js';
import { heldAtGate, mergesHeldUntilRefused, openGate } from '../helpers/gates.js';
import { docx, mergefield, p, partText, run } from '../helpers/docx.js';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import type { Services } from '../../src/services.js';

// The counted operation here is the test-only route around the real usage guard; the document
// endpoints use the same guard.
const op = (c: Client, query = '') => c.post(`/v1/_test/operation${query ? `?${query}` : ''}`);
const created = async (c: Client) => ((await c.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;

describe('quota, test runs, merge slots and the time limit (one instance, SQLite)', () => {
  let server: RunningServer;
  let admin: Services;
  let trial: Client;
  let paid: Client;
  let expired: Client;
  let paidAuth: string;
  before(async () => {
    const dataDir = tempDir();
    admin = await adminServices({ dataDir });
    const t = await makeAccount(admin, 'trial', { maxDocuments: 5 });
    const p = await makeAccount(admin, 'paid', { licence: 'SN-12345', maxDocuments: 1000 });
    const e = await makeAccount(admin, 'expired', { validUntil: new Date('2020-01-01T00:00:00Z') });
    server = await startServer({ DOCSMITH_DATA_DIR: dataDir });
    trial = client(server.url, { basic: [t.user, t.password] });
    paid = client(server.url, { basic: [p.user, p.password] });
    paidAuth = `Basic ${Buffer.from(`${p.user}:${p.password}`).toString('base64')}`;
    expired = client(server.url, { basic: [e.user, e.password] });
  });
  after(async () => {
    await server.stop();
    await admin.store.close();
  });

  it('counts one document per successful request and refuses with 403 once the quota is used', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, () => op(trial)));
    assert.equal(replies.filter((r) => r.status === 200).length, 5);
    const refused = replies.filter((r) => r.status === 403);
    assert.equal(refused.length, 3);
    assert.match(message(refused[0]!), /document quota/);
    assert.equal(await created(trial), 5);
  });

  it('refuses test runs for FREE and TRIAL, and does not count them for paid licences', async () => {
    const reply = await op(trial, 'test=True');
    assert.equal(reply.status, 403);
    assert.match(message(reply), /TRIAL licence/);
    const before = await created(paid);
    for (const value of ['true', 'True', '1']) assert.equal((await op(paid, `test=${value}`)).status, 200);
    assert.equal(await created(paid), before);
    assert.equal((await op(paid, 'test=False')).status, 200);
    assert.equal(await created(paid), before + 1);
    assert.equal((await op(paid, 'test=maybe')).status, 400);
  });

  it('refunds the document when the operation fails', async () => {
    const before = await created(paid);
    const reply = await op(paid, 'fail=1');
    assert.equal(reply.status, 500);
    assert.match(message(reply), /request id/);
    assert.equal(await created(paid), before);
  });

  it('lets at most 2 merges run at once per account; the third is refused at once', async () => {
    // Two held until the gate opens, however late a busy machine starts them.
    const held = [op(paid, 'merge=1&gate=two'), op(paid, 'merge=1&gate=two')];
    await heldAtGate([server.url], 'two', 2);
    const third = await op(paid, 'merge=1');
    assert.equal(third.status, 403);
    assert.match(message(third), /At most 2 merge requests/);
    await openGate([server.url], 'two');
    assert.deepEqual(
      (await Promise.all(held)).map((r) => r.status),
      [200, 200],
    );
    assert.equal((await op(paid, 'merge=1')).status, 200, 'slots are free again');
    const others = await Promise.all([op(paid, 'merge=1&holdMs=200'), op(trial, 'merge=1&holdMs=200&test=0')]);
    assert.notEqual(others[1]!.status, 500);
  });

  it('cancels work over the time limit with a clear error and frees the slot and the document', async () => {
    // A server of its own with a short limit: the other tests' held work must not meet it on a busy machine.
    const dataDir = tempDir();
    const own = await adminServices({ dataDir });
    const a = await makeAccount(own, 'limited', { licence: 'SN-400', maxDocuments: 100 });
    await own.store.close();
    const limited = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_PROCESSING_LIMIT_MS: '400' });
    try {
      const c = client(limited.url, { basic: [a.user, a.password] });
      const before = await created(c);
      const reply = await op(c, 'merge=1&gate=never');
      assert.equal(reply.status, 504);
      assert.match(message(reply), /longer than the limit/);
      assert.equal(await created(c), before);
      const both = await Promise.all([op(c, 'merge=1'), op(c, 'merge=1')]);
      assert.deepEqual(
        both.map((r) => r.status),
        [200, 200],
      );
    } finally {
      await limited.stop();
    }
  });

  it('does not count a document whose client left before its answer was sent (its retry counts once)', async () => {
    const before = await created(paid);
    const log = () => fs.readFileSync(server.logPath, 'utf8');
    const left = () =>
      log()
        .split('\n')
        .filter((line) => line.includes('the client left before its answer was sent')).length;
    const leftBefore = left();
    // The work waits until the client is gone, then its answer cannot be delivered.
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/_test/operation?untilClosed=1&holdMs=120000 HTTP/1.1\r\nhost: x\r\nauthorization: ${paidAuth}\r\ncontent-length: 0\r\n\r\n`,
    );
    await until('the request reached the server', async () => log().includes('untilClosed=1'));
    socket.resetAndDestroy();
    await until('the server saw the client leave', async () => left() > leftBefore);
    assert.equal(await created(paid), before, 'nothing was delivered, nothing counted');
    assert.equal((await op(paid)).status, 200);
    assert.equal(await created(paid), before + 1);
  });

  it('refuses counted work for an account past its validity', async () => {
    const reply = await op(expired);
    assert.equal(reply.status, 403);
    assert.match(message(reply), /valid until 2020-01-01T00:00:00\+00:00/);
    assert.equal((await expired.get('/v1/account/settings')).status, 200, 'settings stay readable');
  });
});

describe('two instances on one PostgreSQL', () => {
  let db: TestDatabase;
  let admin: Services;
  let servers: RunningServer[];
  let clients: Client[];
  let accountId: number;
  const secret = 'shared-secret-for-both-instances-0123456789';
  before(async () => {
    db = await createTestDatabase();
    admin = await adminServices({ dataDir: tempDir(), databaseUrl: db.url, secret });
    const a = await makeAccount(admin, 'shared', { licence: 'SN-777', maxDocuments: 100_000 });
    accountId = a.id;
    // No background jobs here: their polling would add statements to the count below.
    servers = await Promise.all(
      [0, 1].map(() =>
        startServer({
          DOCSMITH_DATA_DIR: tempDir(),
          DOCSMITH_DATABASE_URL: db.url,
          DOCSMITH_SECRET: secret,
          DOCSMITH_JOB_CONCURRENCY: '0',
        }),
      ),
    );
    clients = servers.map((s) => client(s.url, { basic: [a.user, a.password] }));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await admin.store.close();
    await db.drop();
  });

  it('reports PostgreSQL as its storage', async () => {
    const ready = (await clients[0]!.get('/readyz')).json() as { storage: string };
    assert.equal(ready.storage, 'postgres');
  });

  it('raises the counter by exactly N for N parallel counted requests spread over both', async () => {
    const before = (await admin.store.accounts.byId(accountId))!.createdDocuments;
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => op(clients[i % 2]!)));
    assert.ok(replies.every((r) => r.status === 200));
    assert.equal((await admin.store.accounts.byId(accountId))!.createdDocuments, before + 60);
  });

  it('stops exactly at the quota across both instances', async () => {
    const current = (await admin.store.accounts.byId(accountId))!.createdDocuments;
    await admin.store.accounts.update(accountId, { maxDocuments: current + 7 });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => op(clients[i % 2]!)));
    assert.equal(replies.filter((r) => r.status === 200).length, 7);
    assert.equal(replies.filter((r) => r.status === 403).length, 13);
    assert.equal((await admin.store.accounts.byId(accountId))!.createdDocuments, current + 7);
    await admin.store.accounts.update(accountId, { maxDocuments: 100_000 });
  });

  it('holds the 2-merge limit across instances', async () => {
    const replies = await mergesHeldUntilRefused(
      clients,
      servers.map((s) => s.url),
      6,
      4,
    );
    assert.equal(replies.filter((r) => r.status === 200).length, 2);
    assert.equal(replies.filter((r) => r.status === 403).length, 4);
  });

  it('shares API keys and templates between instances', async () => {
    const key = (await clients[0]!.put('/v1/account/apikey')).json() as string;
    const viaKey = client(servers[1]!.url, { key });
    assert.deepEqual((await viaKey.get('/v1/account/apikeys')).json(), [{ key, active: true }]);
  });

  it('sends at most 4 statements per counted merge of a stored template, and serves a template replaced through the other instance at once', async () => {
    const letter = (greeting: string) => JSON.stringify(docx(p(run(`${greeting} `), mergefield('name'))).toString('base64'));
    assert.equal(
      (
        await clients[1]!.post('/v1/templates/upload?templateName=rt.docx', {
          body: letter('Dear'),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      201,
    );
    const key = (await clients[0]!.put('/v1/account/apikey')).json() as string;
    const viaKey = client(servers[0]!.url, { key });
    const merged = async () => {
      const reply = await viaKey.post('/v1/document/merge?returnFormat=DOCX&templateName=rt.docx', {
        json: { mergeData: [{ name: 'Ann' }] },
      });
      assert.equal(reply.status, 200, reply.text);
      return partText(Buffer.from((reply.json() as string[])[0]!, 'base64'));
    };
    const statements = async () =>
      Number(/^docsmith_database_statements_total (\d+)/m.exec((await request(servers[0]!.url, 'GET', '/metrics')).text)![1]);
    assert.match(await merged(), /Dear Ann/); // the template's bytes are now in this instance's cache
    const before = await statements();
    for (let i = 0; i < 20; i++) await merged();
    const sent = (await statements()) - before;
    // Sign-in, claim (slot, document and the template's version), the slot freed before the answer
    // goes out (a client with its answer may merge again at once), settle; a background sweep may add one or two.
    assert.ok(sent <= 20 * 4 + 4, `${sent} statements for 20 merges`);
    assert.equal(
      (
        await clients[1]!.post('/v1/templates/upload?templateName=rt.docx', {
          body: letter('Hello'),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      201,
    );
    assert.match(await merged(), /Hello Ann/, 'the cached version is not used once the database has another');
    assert.equal((await clients[1]!.delete('/v1/templates/delete?templateName=rt.docx')).status, 204);
    const gone = await viaKey.post('/v1/document/merge?returnFormat=DOCX&templateName=rt.docx', { json: { mergeData: [{ name: 'Ann' }] } });
    assert.equal(gone.status, 400);
    assert.match(message(gone), /rt\.docx/);
  });

  it('frees the slots of an instance killed mid-merge', async () => {
    const doomed = servers[1]!;
    const pending = Promise.all([op(clients[1]!, 'merge=1&holdMs=60000'), op(clients[1]!, 'merge=1&holdMs=60000')]).catch(() => null);
    // Both slots held by the other instance (waited for, in the table: a busy machine starts the merges late).
    const deadline = Date.now() + 60_000;
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      while (Number((await sql.query('SELECT COUNT(*) AS n FROM merge_slots WHERE account_id = $1', [accountId])).rows[0].n) < 2) {
        assert.ok(Date.now() < deadline, 'the other instance holds both slots');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await sql.end();
    }
    assert.equal((await op(clients[0]!, 'merge=1')).status, 403, 'both slots held by the other instance');
    await doomed.kill();
    await pending;
    // Its slot leases run out (10 s without renewal), judged by the database's clock.
    let status = 0;
    while (status !== 200 && Date.now() < deadline + 60_000) {
      status = (await op(clients[0]!, 'merge=1')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200);
  });
});

describe('requests killed with their instance', () => {
  it('are taken back from the quota once their lease runs out', async () => {
    const dataDir = tempDir();
    const admin = await adminServices({ dataDir });
    const a = await makeAccount(admin, 'killed', { licence: 'SN-9', maxDocuments: 100 });
    await admin.store.close();
    // A 5 s limit makes the lease 11 s, so the test need not wait a minute.
    const env = { DOCSMITH_DATA_DIR: dataDir, DOCSMITH_PROCESSING_LIMIT_MS: '5000' };
    const server = await startServer(env);
    const c = client(server.url, { basic: [a.user, a.password] });
    assert.equal((await op(c)).status, 200);
    // Held for most of the limit, far longer than reserving takes: killed once all three are counted (a condition, not a time).
    const inFlight = Array.from({ length: 3 }, () => op(c, 'holdMs=4500').catch(() => undefined));
    await until('the three held requests are counted', async () => (await created(c)) === 4);
    await server.kill();
    await Promise.all(inFlight);
    const restarted = await startServer(env);
    try {
      const c2 = client(restarted.url, { basic: [a.user, a.password] });
      assert.equal(await created(c2), 4, 'the killed requests are counted at first');
      const deadline = Date.now() + 30_000;
      while ((await created(c2)) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      assert.equal(await created(c2), 1, 'only the finished request stays counted');
    } finally {
      await restarted.stop();
    }
  });
});
