import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { extensionOf, type OfficeJob } from './process.js';
import { installedOfficeVersion, prepareProfile } from './profile.js';
import { officePreload } from './allocator.js';
import { officeEnvironment, type Sandbox } from './sandbox.js';

const run = promisify(execFile);

/** How to run a one-off office when the pool cannot convert a document. */
export interface OneShotOptions {
  sofficePath: string;
  sandbox: Sandbox;
  timeoutMs: number;
  /** Scratch folder for the one-off office (defaults to the system temp folder). */
  workDir?: string;
  /** A malloc library preloaded into the office, as in the pool (src/office/allocator.ts). */
  allocator?: string;
}

/**
 * A conversion in a one-off office process (`soffice --convert-to`), for the rare document that
 * crashes a pooled office when driven over UNO but converts on the command line. Slow (about a
 * second) and limited to filter options: no properties, watermark or OOXML password. The output's
 * bytes when the job asks for them, else undefined (written to the job's output file).
 */
export async function convertOnce(job: OfficeJob, options: OneShotOptions): Promise<Buffer | undefined> {
  const base = options.workDir ?? os.tmpdir();
  await fs.mkdir(base, { recursive: true });
  const work = await fs.mkdtemp(path.join(base, 'oneshot-'));
  try {
    const extension = extensionOf(job.output);
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
    const input = path.join(work, `input.${extensionOf(job.input)}`);
    await (typeof job.input === 'string' ? fs.copyFile(job.input, input) : fs.writeFile(input, job.input.bytes));
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
    // The pool's settings (no macros, no self-tests at start, ...) in its throw-away profile too.
    prepareProfile(path.join(work, 'profile'), installedOfficeVersion(options.sofficePath));
    // Sees its own folder only, like the pooled offices.
    const preload = officePreload(options.allocator);
    const [command, ...rest] = options.sandbox.wrap([soffice, ...args], {
      writable: [work],
      tmp: path.join(work, 'tmp'),
      readable: preload.readable,
    });
    const tmp = options.sandbox.kind === 'bubblewrap' ? '/tmp' : path.join(work, 'tmp');
    await run(command!, rest, {
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
      env: officeEnvironment({ SAL_ENABLE_FILE_LOCKING: '0', HOME: work, TMPDIR: tmp, ...preload.env }),
    });
    const written = path.join(work, 'out', `input.${extension}`);
    if (typeof job.output !== 'string') return await fs.readFile(written);
    await fs.copyFile(written, job.output);
    return undefined;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
