/**
 * A PostgreSQL cluster of a test's own (Debian's initdb and pg_ctl, in a temporary folder, on its
 * own port), so that the test can stop, restart and crash it without touching anyone else's.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { asPostgresUser } from './pgbouncer.js';
import { freePort } from './server.js';

const run = promisify(execFile);

/** The newest installed PostgreSQL's programs folder, or null. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

export interface Cluster {
  port: number;
  /** The URL of a database in it. */
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  /** A clean stop (-m fast: sessions are ended, a checkpoint is written). */
  stop(): Promise<void>;
  /** A crash (-m immediate: no checkpoint; the next start recovers from the WAL). */
  crash(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const bin = postgresBin();
  if (!bin) throw new Error("PostgreSQL's server programs are not installed (apt-get install postgresql)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsmith-pgcluster-'));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const as = asPostgresUser();
  const ctl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, ...args], { ...as, timeout: 120_000 });
  await run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-instructions'], {
    ...as,
    timeout: 120_000,
  });
  const start = async () => {
    await ctl(
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-t',
      '120',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      'start',
    );
  };
  await start();
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    start,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
    },
    stop: async () => void (await ctl('-m', 'fast', '-w', 'stop')),
    crash: async () => void (await ctl('-m', 'immediate', '-w', 'stop')),
    async destroy() {
      await ctl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
