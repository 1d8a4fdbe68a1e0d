import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { prepareProfile } from './profile.js';

/** One conversion as the bridge understands it (see bridge.py). */
export interface OfficeJob {
  input: string;
  output: string;
  filter: string;
  inputFilter?: string;
  filterData?: Record<string, string | number | boolean>;
  filterOptions?: string;
  /** Author, Title, Subject, Generator; CreationDate, ModificationDate as UTC ISO strings. */
  properties?: Record<string, string>;
  password?: string;
  /** Password to open an encrypted input. */
  inputPassword?: string;
  /** Encrypt through OOXML EncryptionData rather than the plain Password property. */
  ooxml?: boolean;
  watermark?: string;
}

export interface JobResult {
  /** Time the office itself spent, as the bridge measured it. */
  officeMs: number;
}

export type JobFailure = 'load_failed' | 'password' | 'export_failed' | 'bad_job' | 'office_gone';

/** The document (or the job) was at fault; the process is fine. */
export class OfficeJobError extends Error {
  constructor(readonly code: JobFailure, message: string) {
    super(message);
  }
}

/** The office process died while it held the job. */
export class OfficeCrashError extends Error {}

/** The job ran over its limit; the process was killed. */
export class OfficeTimeoutError extends Error {}

export interface OfficeProcessOptions {
  id: string;
  workDir: string;
  sofficePath: string;
  pythonPath: string;
  /** Wrapper that runs the office without network (`unshare --net`), or none. */
  isolation: string[];
  startTimeoutMs: number;
}

export const BRIDGE_PATH = fileURLToPath(new URL('./bridge.py', import.meta.url));

/** How to cut the office off the network here, if at all: root may unshare, others map a user. */
export function networkIsolation(): string[] {
  for (const candidate of [['unshare', '--net', '--'], ['unshare', '--map-root-user', '--net', '--']]) {
    if (spawnSync(candidate[0]!, [...candidate.slice(1), 'true'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return [];
}

/** Exit code of a first start on a new profile: it has set itself up and wants a restart. */
const RESTART_REQUIRED = 81;

interface Pending {
  resolve(result: JobResult): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * One office (soffice.bin in its own process group, with its own profile) and the Python UNO
 * bridge that drives it. One job at a time.
 */
export class OfficeProcess {
  private office!: ChildProcess;
  private bridge!: ChildProcess;
  private pending: Pending | undefined;
  private nextId = 1;
  private dead = false;
  private deathListeners: ((reason: string) => void)[] = [];
  private readyFlag = false;
  jobsDone = 0;

  private constructor(readonly options: OfficeProcessOptions) {}

  static async start(options: OfficeProcessOptions): Promise<OfficeProcess> {
    const process = new OfficeProcess(options);
    await process.launch();
    return process;
  }

  get alive(): boolean {
    return !this.dead;
  }

  get pid(): number | undefined {
    return this.office?.pid;
  }

  onDeath(listener: (reason: string) => void): void {
    this.deathListeners.push(listener);
  }

  private pipeName(): string {
    return `docsmith-${this.options.id}-${process.pid}`;
  }

  private spawnOffice(profile: string): ChildProcess {
    const { sofficePath, isolation } = this.options;
    const args = [
      `-env:UserInstallation=file://${profile}`,
      '--headless', '--invisible', '--nologo', '--norestore', '--nodefault', '--nolockcheck', '--nofirststartwizard',
      `--accept=pipe,name=${this.pipeName()};urp;StarOffice.ComponentContext`,
    ];
    const [command, ...prefix] = isolation.length ? isolation : [sofficePath];
    return spawn(command!, isolation.length ? [...prefix, sofficePath, ...args] : args, {
      detached: true, // its own process group, so a kill reaches every child it starts
      stdio: 'ignore',
      // No lock files: a job retried after a crash must be able to open the same input again.
      env: { ...process.env, SAL_USE_VCLPLUGIN: 'svp', SAL_ENABLE_FILE_LOCKING: '0', HOME: profile },
    });
  }

  private async launch(): Promise<void> {
    const profile = path.join(this.options.workDir, `profile-${this.options.id}`);
    prepareProfile(profile);
    const deadline = Date.now() + this.options.startTimeoutMs;

    this.bridge = spawn(this.options.pythonPath, [BRIDGE_PATH, this.pipeName()], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DOCSMITH_BRIDGE_CONNECT_S: String(Math.ceil(this.options.startTimeoutMs / 1000)) },
    });
    let bridgeErrors = '';
    this.bridge.stderr!.on('data', (chunk: Buffer) => {
      bridgeErrors = (bridgeErrors + chunk.toString()).slice(-4000);
    });
    const lines = createInterface({ input: this.bridge.stdout! });

    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the office did not start within ${this.options.startTimeoutMs} ms`)), Math.max(0, deadline - Date.now()));
      lines.once('line', (line) => {
        clearTimeout(timer);
        if (line.includes('"ready"')) resolve();
        else reject(new Error(`the office bridge said: ${line.slice(0, 300)}`));
      });
      this.bridge.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the office bridge exited (${code}) before it was ready: ${bridgeErrors.trim().slice(-600)}`));
      });
    });

    // A new profile makes the first start exit with 81; start again until it stays up.
    const startOffice = (attempt: number): void => {
      this.office = this.spawnOffice(profile);
      this.office.once('exit', (code, signal) => {
        if (!this.readyFlag && code === RESTART_REQUIRED && attempt < 3) {
          startOffice(attempt + 1);
          return;
        }
        this.die(`the office exited (${signal ?? code})`);
      });
    };
    startOffice(1);
    this.bridge.once('exit', (code, signal) => this.die(`the office bridge exited (${signal ?? code}): ${bridgeErrors.trim().slice(-300)}`));

    try {
      await ready;
    } catch (error) {
      this.kill();
      throw error;
    }
    this.readyFlag = true;
    lines.on('line', (line) => this.answer(line));
  }

  private answer(line: string): void {
    const pending = this.pending;
    if (!pending) return;
    let reply: { ok?: boolean; error?: JobFailure; message?: string; ms?: number };
    try {
      reply = JSON.parse(line) as typeof reply;
    } catch {
      return;
    }
    this.pending = undefined;
    clearTimeout(pending.timer);
    if (reply.error === 'office_gone') {
      pending.reject(new OfficeCrashError(`the office process died during the job: ${reply.message ?? ''}`));
      this.kill();
    } else if (reply.ok) {
      this.jobsDone++;
      pending.resolve({ officeMs: reply.ms ?? 0 });
    } else {
      pending.reject(new OfficeJobError(reply.error ?? 'bad_job', reply.message ?? 'the office failed'));
    }
  }

  /** Runs one job; the process must be idle. */
  run(job: OfficeJob | { op: 'ping' } | { op: 'append'; inputs: string[]; output: string; filter: string }, timeoutMs: number): Promise<JobResult> {
    if (this.dead) return Promise.reject(new OfficeCrashError('the office process is gone'));
    if (this.pending) return Promise.reject(new Error('office process is busy'));
    return new Promise<JobResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending?.timer !== timer) return;
        this.pending = undefined;
        reject(new OfficeTimeoutError(`the office job took longer than ${timeoutMs} ms`));
        this.kill();
      }, timeoutMs);
      this.pending = { resolve, reject, timer };
      const message = 'op' in job ? job : { op: 'convert', ...job };
      this.bridge.stdin!.write(JSON.stringify({ id: this.nextId++, ...message }) + '\n');
    });
  }

  /** Resident memory of the office, in bytes (0 when unknown). */
  rssBytes(): number {
    try {
      const status = fs.readFileSync(`/proc/${this.office.pid}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
      return match ? Number(match[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.kill();
    const pending = this.pending;
    this.pending = undefined;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(new OfficeCrashError(`the office process died during the job: ${reason}`));
    }
    for (const listener of this.deathListeners) listener(reason);
  }

  /** Kills the office's whole process group and the bridge at once. */
  kill(): void {
    const pid = this.office?.pid;
    if (pid) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (this.bridge && this.bridge.exitCode === null) this.bridge.kill('SIGKILL');
    this.die('stopped');
  }
}
