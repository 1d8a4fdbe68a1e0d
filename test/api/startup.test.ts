// Configuration mistakes stop the service with one line that says what to fix (no stack).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../src/store/sqlite.js';
import { freePort, ROOT, startServer, tempDir } from '../helpers/server.js';
import { client, request } from '../helpers/http.js';
import { docx, mergefield, p, run } from '../helpers/docx.js';
import { until } from '../helpers/wait.js';
import { accountIn } from '../helpers/accounts.js';
import { createTestDatabase } from '../helpers/postgres.js';
import net from 'node:net';

/** Runs the server until it exits by itself; its exit code and what it printed. */
function failedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        DOCSMITH_OFFICE_PROCESSES: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function oneLine(result: { code: number | null; output: string }, expected: RegExp): void {
  assert.equal(result.code, 1, result.output);
  const line = result.output.split('\n').find((l) => l.startsWith('docsmith: cannot start: '));
  assert.ok(line, result.output);
  assert.match(line, expected);
  assert.doesNotMatch(result.output, /^\s+at /m, 'no stack trace');
}

describe('start-up says what is wrong in one line', () => {
  it('refuses another master secret than the one the API keys were sealed with', async () => {
    const dataDir = tempDir();
    const server = await startServer({
      DOCSMITH_DATA_DIR: dataDir,
      DOCSMITH_BOOTSTRAP_USER: 'ann',
      DOCSMITH_BOOTSTRAP_PASSWORD: 'ann-password-1',
    });
    assert.equal((await client(server.url, { basic: ['ann', 'ann-password-1'] }).put('/v1/account/apikey')).status, 201);
    await server.stop();
    oneLine(
      await failedStart({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_SECRET: 'a-different-secret-for-another-instance' }),
      /sealed with another master secret/,
    );
  });

  it('refuses a database a newer docsmith migrated', async () => {
    const dataDir = tempDir();
    const server = await startServer({ DOCSMITH_DATA_DIR: dataDir });
    await server.stop();
    const db = new Database(path.join(dataDir, 'docsmith.sqlite'));
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)').run();
    db.close();
    oneLine(
      await failedStart({ DOCSMITH_DATA_DIR: dataDir }),
      /schema is at version 999, which docsmith built for schema 999 or newer can serve; this instance is built for \d+: upgrade it/,
    );
  });

  it('keeps serving on a newer schema inside its range (a rolling upgrade), and /readyz says when it is outside', async () => {
    const dataDir = tempDir();
    const server = await startServer({ DOCSMITH_DATA_DIR: dataDir });
    try {
      const mine = (await request(server.url, 'GET', '/readyz')).json() as { schema: { database: number; instance: number } };
      const version = mine.schema.instance;
      assert.deepEqual(mine.schema, { database: version, instance: version });
      const db = new Database(path.join(dataDir, 'docsmith.sqlite'));
      db.prepare('INSERT INTO schema_migrations (version, applied_at, oldest_reader) VALUES (?, 0, ?)').run(version + 1, version);
      const inside = await request(server.url, 'GET', '/readyz');
      assert.equal(inside.status, 200, inside.text);
      assert.deepEqual((inside.json() as typeof mine).schema, { database: version + 1, instance: version });
      db.prepare('INSERT INTO schema_migrations (version, applied_at, oldest_reader) VALUES (?, 0, ?)').run(version + 2, version + 2);
      db.close();
      const outside = await request(server.url, 'GET', '/readyz');
      assert.equal(outside.status, 503);
      assert.match(outside.text, new RegExp(`schema is at version ${version + 2}.*this instance is built for ${version}: upgrade it`));
    } finally {
      await server.stop();
    }
  });

  it('takes no background jobs while the schema is outside its range (unready), and takes them again once it is back', async () => {
    const dataDir = tempDir();
    const server = await startServer({
      DOCSMITH_DATA_DIR: dataDir,
      DOCSMITH_BOOTSTRAP_USER: 'jo',
      DOCSMITH_BOOTSTRAP_PASSWORD: 'a-long-password-jo',
      DOCSMITH_JOB_POLL_MS: '100',
    });
    try {
      const jo = client(server.url, { basic: ['jo', 'a-long-password-jo'] });
      const version = ((await request(server.url, 'GET', '/readyz')).json() as { schema: { instance: number } }).schema.instance;
      const db = new Database(path.join(dataDir, 'docsmith.sqlite'));
      db.prepare('INSERT INTO schema_migrations (version, applied_at, oldest_reader) VALUES (?, 0, ?)').run(version + 2, version + 2);
      assert.equal((await request(server.url, 'GET', '/readyz')).status, 503);
      const queued = await jo.post('/v1/document/merge?returnFormat=DOCX&async=true', {
        json: { template: docx(p(run('Hello '), mergefield('name'))).toString('base64'), mergeData: [{ name: 'Jo' }] },
      });
      assert.equal(queued.status, 202, queued.text);
      const self = (queued.json() as { links: { self: string } }).links.self;
      // Polled every 100 ms: a second and more of polls leave the job waiting.
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(((await jo.get(self)).json() as { state: string }).state, 'queued');
      }
      db.prepare('DELETE FROM schema_migrations WHERE version = ?').run(version + 2);
      db.close();
      await until('the job ran', async () => ((await jo.get(self)).json() as { state: string }).state === 'done');
    } finally {
      await server.stop();
    }
  });

  it('names a missing office program, an unusable data folder and a bad bootstrap password', async () => {
    oneLine(
      await failedStart({ DOCSMITH_DATA_DIR: tempDir(), DOCSMITH_OFFICE_PROCESSES: '1', DOCSMITH_SOFFICE: '/nowhere/soffice.bin' }),
      /office program \/nowhere\/soffice\.bin does not exist: install LibreOffice/,
    );
    const file = path.join(tempDir(), 'a-file');
    fs.writeFileSync(file, 'not a folder');
    oneLine(
      await failedStart({ DOCSMITH_DATA_DIR: path.join(file, 'data') }),
      /a-file\/data is not a folder \(ENOTDIR\): DOCSMITH_DATA_DIR must name a folder/,
    );
    oneLine(
      await failedStart({ DOCSMITH_DATA_DIR: tempDir(), DOCSMITH_BOOTSTRAP_USER: 'ann', DOCSMITH_BOOTSTRAP_PASSWORD: 'short' }),
      /bootstrap account .* cannot be made: password must have 8/,
    );
    oneLine(
      await failedStart({ DOCSMITH_DATA_DIR: tempDir(), DOCSMITH_FONTS_DIR: '/nowhere/fonts' }),
      /the fonts folder \/nowhere\/fonts \(DOCSMITH_FONTS_DIR\) does not exist/,
    );
  });
});

describe('start-up waits for PostgreSQL', () => {
  it('answers /healthz 200 and /readyz 503 while the database is unreachable, says so once in the log, and serves once it is back', async () => {
    const db = await createTestDatabase();
    const dataDir = tempDir();
    const account = await accountIn({ dataDir, databaseUrl: db.url }, 'ann', { licence: 'SN-WAIT' });
    // The server reaches PostgreSQL through a port where nothing listens yet.
    const port = await freePort();
    const viaProxy = new URL(db.url);
    viaProxy.port = String(port);
    const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_DATABASE_URL: viaProxy.toString() });
    let proxy: net.Server | undefined;
    try {
      const ready = await request(server.url, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.equal(ready.headers['retry-after'], '5');
      assert.match(ready.text, /database is not reachable yet/);
      assert.doesNotMatch(ready.text, /127\.0\.0\.1|ECONNREFUSED|docsmith_t_/, 'no database details for anonymous callers');
      assert.equal((await client(server.url, { basic: [account.user, account.password] }).get('/v1/account/settings')).status, 503);

      proxy = net.createServer((socket) => {
        const upstream = net.connect(Number(new URL(db.url).port || 5432), new URL(db.url).hostname);
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      });
      await new Promise<void>((resolve) => proxy!.listen(port, '127.0.0.1', resolve));
      const deadline = Date.now() + 120_000;
      while ((await request(server.url, 'GET', '/readyz').catch(() => ({ status: 0 }))).status !== 200) {
        assert.ok(Date.now() < deadline, 'ready within 120 s of the database coming back');
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal((await client(server.url, { basic: [account.user, account.password] }).get('/v1/account/settings')).status, 200);
      assert.equal(server.child.exitCode, null);
      const log = fs.readFileSync(server.logPath, 'utf8');
      assert.equal(log.match(/waiting for the database/g)?.length, 1, log.slice(0, 2000));
      assert.match(log, /cannot reach PostgreSQL at 127\.0\.0\.1:\d+ \(ECONNREFUSED\): start it, or fix DOCSMITH_DATABASE_URL/);
    } finally {
      await server.stop();
      proxy?.close();
      await db.drop();
    }
  });
});
