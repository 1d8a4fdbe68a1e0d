import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import type { AccountInput } from '../src/accounts/accounts.js';
import { startServer, tempDir } from '../test/helpers/server.js';
import { adminServices, makeAccount } from '../test/helpers/accounts.js';

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface BenchServer {
  url: string;
  /** The server process (its office processes are its descendants). */
  pid: number;
  account: { user: string; password: string };
  /** The Basic header of the bench account. */
  authorization: string;
  stop(): Promise<void>;
}

/** Servers still running: a bench that fails (or exits without stopping one) leaves none behind with its offices. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** A server process on a fresh data folder with one account of generous limits, ready to serve. */
export async function benchServer(env: Record<string, string> = {}, limits: AccountInput = {}): Promise<BenchServer> {
  const dataDir = tempDir();
  const admin = await adminServices({ dataDir });
  const account = await makeAccount(admin, 'bench', {
    licence: 'SN-BENCH',
    maxDocuments: 10_000_000,
    maxProofingTransactions: 1_000_000,
    ...limits,
  });
  await admin.store.close();
  const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_LOG_LEVEL: 'warn', ...env });
  running.add(server.child);
  server.child.once('exit', () => running.delete(server.child));
  // Every office process warm (each converts a letter at start), as a server that has run a while.
  const warm = async () => {
    const reply = await fetch(`${server.url}/readyz`);
    const body = (await reply.json()) as { office?: { warm: number; configured: number } };
    return reply.status === 200 && (!body.office || body.office.warm >= body.office.configured);
  };
  while (!(await warm())) await new Promise((r) => setTimeout(r, 200));
  return {
    url: server.url,
    pid: server.child.pid!,
    account,
    authorization: `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}`,
    stop: () => server.stop(),
  };
}

/** CPU time (user + system, ms) a process has used so far, all its threads (Linux /proc). */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
}
// USER_HZ: 100 on every Linux this runs on (sysconf(_SC_CLK_TCK)).
const CLOCK_TICKS = 100;

/** Resident memory of a process alone, in bytes (Linux /proc; 0 when gone). */
export function ownRssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
