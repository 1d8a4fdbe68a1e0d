import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { freePort, startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { client, type Client } from '../helpers/http.js';
import { createTestDatabase, PG_URL } from '../helpers/postgres.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';


/** PgBouncer in transaction mode in front of the test PostgreSQL, on a port of its own; run as `postgres` when we are root (it refuses root). */
async function startPgBouncer(): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsmith-pgbouncer-'));
  fs.chmodSync(dir, 0o777);
  const upstream = new URL(PG_URL);
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${decodeURIComponent(upstream.username) || 'postgres'}" ""\n`);
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), [
    '[databases]', `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
    '[pgbouncer]', 'listen_addr = 127.0.0.1', `listen_port = ${port}`, 'unix_socket_dir =',
    'auth_type = trust', `auth_file = ${path.join(dir, 'users.txt')}`, 'pool_mode = transaction',
    'default_pool_size = 20', 'max_client_conn = 500', 'ignore_startup_parameters = extra_float_digits',
    `logfile = ${path.join(dir, 'pgbouncer.log')}`, '',
  ].join('\n'));
  for (const file of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, file), 0o666);
  // It refuses to run as root: then as the `postgres` user.
  const user = process.getuid?.() === 0
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {};
  const child: ChildProcess = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore', ...user });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true); });
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`pgbouncer did not start: ${fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : 'no log'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('behind PgBouncer in transaction mode', () => {
  it('migrates, keeps the 2-merge limit across two instances, and leaves no slot taken', async (t) => {
    if (!fs.existsSync(PGBOUNCER)) return t.skip('pgbouncer is not installed (apt-get install pgbouncer; npm test installs it as root)');
    const db = await createTestDatabase();
    const bouncer = await startPgBouncer();
    const servers: RunningServer[] = [];
    try {
      const viaBouncer = new URL(db.url);
      viaBouncer.port = String(bouncer.port);
      const admin = await adminServices({ dataDir: tempDir(), databaseUrl: viaBouncer.toString(), secret: 'shared-secret-behind-a-pooler-0123456789' });
      const account = await makeAccount(admin, 'pooled', { licence: 'SN-BOUNCE' });
      for (let i = 0; i < 2; i++) {
        servers.push(await startServer({ DOCSMITH_DATA_DIR: tempDir(), DOCSMITH_DATABASE_URL: viaBouncer.toString(), DOCSMITH_SECRET: 'shared-secret-behind-a-pooler-0123456789' }));
      }
      const clients: Client[] = servers.map((s) => client(s.url, { basic: [account.user, account.password] }));
      for (const c of clients) assert.equal((await c.get('/v1/account/settings')).status, 200);

      // Six merges of one account at once over two instances: exactly two run, four are refused.
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => clients[i % 2]!.post('/v1/_test/operation?merge=1&holdMs=3000')));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 200, 403, 403, 403, 403], answers.map((a) => a.text).join('\n'));
      // Nothing stays taken: the next two run.
      const next = await Promise.all([clients[0]!.post('/v1/_test/operation?merge=1'), clients[1]!.post('/v1/_test/operation?merge=1')]);
      assert.deepEqual(next.map((a) => a.status), [200, 200]);
      await admin.store.close();
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await bouncer.stop();
      await db.drop();
    }
  });
});
