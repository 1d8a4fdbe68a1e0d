import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The ReportingCloud SDKs' test resources, kept in the project with their licence (test/fixtures). */
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'reportingcloud');
export const fixture = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, 'resource', name));

export function tempDir(prefix = 'docsmith-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface RunningServer {
  url: string;
  /** The server's log file (JSON lines). */
  logPath: string;
  child: ChildProcess;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL at once, as a crash would. */
  kill(): Promise<void>;
}

/** A TCP port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the compiled server (`dist/main.js`) as its own process on a free port. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const logDir = path.join(ROOT, '.test-output');
  fs.mkdirSync(logDir, { recursive: true });
  const log = fs.createWriteStream(path.join(logDir, `server-${process.pid}-${Date.now()}.log`));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      DOCSMITH_LOG_LEVEL: 'info',
      DOCSMITH_TEST_ROUTES: '1',
      DOCSMITH_OFFICE_PROCESSES: '0',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before listening (log in ${log.path})`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error('server did not start within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    logPath: String(log.path),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Every file under `dir`, sorted (the real-template corpus and the like). */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}
