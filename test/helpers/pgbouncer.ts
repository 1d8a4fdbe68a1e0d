import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './server.js';
import { PG_URL } from './postgres.js';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

/** The uid and gid of `postgres` when we are root (PostgreSQL's programs refuse root), else nothing. */
export function asPostgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

export async function portOpen(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** PgBouncer in transaction mode in front of a PostgreSQL (the test one unless told), on a port of its own. */
export async function startPgBouncer(upstreamUrl = PG_URL): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsmith-pgbouncer-'));
  fs.chmodSync(dir, 0o777);
  const upstream = new URL(upstreamUrl);
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${decodeURIComponent(upstream.username) || 'postgres'}" ""\n`);
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      // After the database was away, try it again within a second (the default waits 15 s).
      'server_login_retry = 1',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  for (const file of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, file), 0o666);
  const child: ChildProcess = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore', ...asPostgresUser() });
  const deadline = Date.now() + 60_000;
  while (!(await portOpen(port))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(
        `pgbouncer did not start: ${fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : 'no log'}`,
      );
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
