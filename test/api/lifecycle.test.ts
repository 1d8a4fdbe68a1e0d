// Stopping the service: drain with readiness 503, a grace period, a second signal, and the
// README's `npm start` stopped by a signal to npm.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT, startServer, tempDir } from '../helpers/server.js';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { client, request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

// The exit code, or the signal that ended the process (a crash on the way out shows as SIGABRT).
const exited = (child: ReturnType<typeof spawn>) =>
  new Promise<number | string | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode);
    else child.once('exit', (code, signal) => resolve(code ?? signal));
  });
const logged = (server: { logPath: string }, text: string) =>
  until(`the server logged "${text}"`, () => fs.readFileSync(server.logPath, 'utf8').includes(text));

async function serverWithAccount(env: Record<string, string> = {}) {
  const dataDir = tempDir();
  const admin = await adminServices({ dataDir });
  const account = await makeAccount(admin, 'ann', { licence: 'SN-1' });
  await admin.store.close();
  const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, ...env });
  return { server, c: client(server.url, { basic: [account.user, account.password] }), dataDir };
}

describe('stopping the service', () => {
  it('drains: readiness answers 503 at once, running requests finish, then the process exits 0', async () => {
    const { server, c } = await serverWithAccount();
    const slow = c.post('/v1/_test/operation?holdMs=3000');
    // Conditions, not times: the request is in the server before the signal, readiness flips after it.
    await logged(server, '/v1/_test/operation');
    server.child.kill('SIGTERM');
    const ready = await until('readiness answers 503', async () => {
      const reply = await request(server.url, 'GET', '/readyz');
      return reply.status === 503 ? reply : undefined;
    });
    assert.match(ready.text, /shutting down/);
    // Answered in full: a process that had not waited would have cut its connection.
    assert.equal((await slow).status, 200, 'the running request is served to the end');
    assert.equal(await exited(server.child), 0);
  });

  it('cuts requests off after the grace period, and a second signal exits at once', async () => {
    const { server, c } = await serverWithAccount({ DOCSMITH_SHUTDOWN_GRACE_MS: '500' });
    const slow = c.post('/v1/_test/operation?holdMs=20000').catch(() => ({ status: 0 }));
    await logged(server, '/v1/_test/operation');
    const started = Date.now();
    server.child.kill('SIGTERM');
    assert.equal(await exited(server.child), 0);
    // Limits no machine reaches unless the stop waited for the request (20 s) or the default grace (30 s).
    assert.ok(Date.now() - started < 15_000, `stopped after ${Date.now() - started} ms`);
    assert.notEqual((await slow).status, 200);

    // The second signal comes while the document threads may still be loading: the exit is 1, not a crash.
    const second = await serverWithAccount();
    const held = second.c.post('/v1/_test/operation?holdMs=60000').catch(() => ({ status: 0 }));
    await logged(second.server, '/v1/_test/operation');
    const at = Date.now();
    second.server.child.kill('SIGTERM');
    await logged(second.server, 'stopping: draining requests');
    second.server.child.kill('SIGTERM');
    assert.equal(await exited(second.server.child), 1);
    assert.ok(Date.now() - at < 25_000, `stopped after ${Date.now() - at} ms`);
    await held;
  });

  it('leaves the data in the one SQLite file after a stop', async () => {
    const { server, c, dataDir } = await serverWithAccount();
    assert.equal(
      (
        await c.upload(
          'kept.docx',
          fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'reportingcloud', 'resource', 'test_document.docx')),
        )
      ).status,
      201,
    );
    await server.stop();
    assert.ok(
      !fs.existsSync(path.join(dataDir, 'docsmith.sqlite-wal')) || fs.statSync(path.join(dataDir, 'docsmith.sqlite-wal')).size === 0,
      'the WAL was checkpointed into the file',
    );
    assert.ok(fs.statSync(path.join(dataDir, 'docsmith.sqlite')).size > 8192);
  });

  it("stops `npm start` (the README's command) with a signal to npm", async () => {
    const dataDir = tempDir();
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    // `npm start` without its set-up step (prestart; the tests already ran it).
    const npm = spawn('npm', ['run', '--ignore-scripts', '--silent', 'start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DOCSMITH_DATA_DIR: dataDir,
        DOCSMITH_OFFICE_PROCESSES: '0',
        DOCSMITH_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    npm.stdout!.on('data', (d: Buffer) => {
      log += d.toString();
    });
    npm.stderr!.on('data', (d: Buffer) => {
      log += d.toString();
    });
    try {
      const deadline = Date.now() + 30_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        assert.ok(Date.now() < deadline, `npm start did not serve: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      npm.kill('SIGTERM');
      await exited(npm);
      const gone = Date.now() + 10_000;
      while (
        await fetch(`http://127.0.0.1:${port}/healthz`).then(
          () => true,
          () => false,
        )
      ) {
        assert.ok(Date.now() < gone, 'the service still answers after npm was stopped');
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(log, /stopping/);
    } finally {
      npm.kill('SIGKILL');
    }
  });
});
