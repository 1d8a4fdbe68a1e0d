import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shared fixtures sit beside the checkout (`../shared`), or where DOCSMITH_FIXTURES_DIR says. */
export const FIXTURES = process.env.DOCSMITH_FIXTURES_DIR
  ?? path.resolve(ROOT, '..', 'shared', 'fixtures', 'reportingcloud');
export const fixture = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, 'resource', name));

export function tempDir(prefix = 'docsmith-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL at once, as a crash would. */
  kill(): Promise<void>;
}

/** Starts the compiled server (`dist/main.js`) as its own process on a free port. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const logDir = path.join(ROOT, '.test-output');
  fs.mkdirSync(logDir, { recursive: true });
  const log = fs.createWriteStream(path.join(logDir, `server-${process.pid}-${Date.now()}.log`));
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      DOCSMITH_LOG_LEVEL: 'info',
      DOCSMITH_TEST_ROUTES: '1',
      DOCSMITH_OFFICE_WORKERS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start within 30 s')), 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      log.write(line + '\n');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening`));
    });
  });
  return {
    url,
    child,
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
