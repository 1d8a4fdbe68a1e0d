import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { OfficeJob } from './process.js';
import { officeEnvironment, type Sandbox } from './sandbox.js';

const run = promisify(execFile);

/**
 * A conversion in a one-off office process (`soffice --convert-to`), for the rare document that
 * crashes a pooled office when driven over UNO but converts on the command line. Slow (about a
 * second) and limited to filter options: no properties, watermark or OOXML password.
 */
export async function convertOnce(
  job: OfficeJob,
  options: { sofficePath: string; sandbox: Sandbox; timeoutMs: number; workDir?: string },
): Promise<void> {
  const base = options.workDir ?? os.tmpdir();
  await fs.mkdir(base, { recursive: true });
  const work = await fs.mkdtemp(path.join(base, 'oneshot-'));
  try {
    const extension = path.extname(job.output).slice(1);
    let target = `${extension}:${job.filter}`;
    if (job.filterData) {
      const data = Object.fromEntries(
        Object.entries(job.filterData).map(([key, value]) => [
          key,
          {
            type: typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'long' : 'string',
            value: String(value),
          },
        ]),
      );
      target += `:${JSON.stringify(data)}`;
    } else if (job.filterOptions) {
      target += `:${job.filterOptions}`;
    }
    const input = path.join(work, `input${path.extname(job.input)}`);
    await fs.copyFile(job.input, input);
    const soffice = path.join(path.dirname(options.sofficePath), 'soffice');
    const args = [
      `-env:UserInstallation=file://${path.join(work, 'profile')}`,
      '--headless',
      '--norestore',
      '--convert-to',
      target,
      '--outdir',
      path.join(work, 'out'),
      input,
    ];
    await fs.mkdir(path.join(work, 'tmp'));
    // Sees its own folder only, like the pooled offices.
    const [command, ...rest] = options.sandbox.wrap([soffice, ...args], { writable: [work], tmp: path.join(work, 'tmp') });
    const tmp = options.sandbox.kind === 'bubblewrap' ? '/tmp' : path.join(work, 'tmp');
    await run(command!, rest, {
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
      env: officeEnvironment({ SAL_ENABLE_FILE_LOCKING: '0', HOME: work, TMPDIR: tmp }),
    });
    await fs.copyFile(path.join(work, 'out', `input.${extension}`), job.output);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
