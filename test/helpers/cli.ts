import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './server.js';

/** Runs `docsmith` (bin/docsmith.js) in `cwd` with only PATH and HOME from this environment, and `env`. */
export function cli(args: string[], cwd: string, options: { env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'docsmith.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    // A limit for hangs only: an office started in the command takes seconds, more on a busy machine.
    timeout: 600_000,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** As `cli`, without blocking this process: for commands that call back into servers this test runs. */
export function cliAsync(args: string[], cwd: string, options: { env?: Record<string, string> } = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'docsmith.js'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}
