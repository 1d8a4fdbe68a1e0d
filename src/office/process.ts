import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { claimProfile, installedOfficeVersion, prepareProfile } from './profile.js';
import { officeEnvironment, type Sandbox } from './sandbox.js';
import { warmUpDocx } from './warmUp.js';
import { DOCX_IMPORT_FILTER, ODT_FILTER, type ExportSpec } from './filters.js';
import { officePreload } from './allocator.js';
import { processTree, residentBytes, treeRssBytes } from '../util/process.js';
import { discard, discardNow } from '../util/disk.js';

/** The document a job reads: a file, or bytes the process stages as a file named `.extension` (the office reads some formats by name). */
export type JobInput = string | { bytes: Uint8Array; extension: string };
/** What a job writes: a file, or bytes handed back (`JobResult.data`) from a file named `.extension`. */
export type JobOutput = string | { extension: string };

export function extensionOf(file: JobInput | JobOutput): string {
  return typeof file === 'string' ? path.extname(file).slice(1) : file.extension;
}

/** One conversion as the bridge understands it (see bridge.py). */
export interface OfficeJob extends ExportSpec {
  input: JobInput;
  output: JobOutput;
  inputFilter?: string;
  /** Author, Title, Subject, Generator; CreationDate, ModificationDate as UTC ISO strings. */
  properties?: Record<string, string>;
  /** The title to give a document without one (PDF/UA needs a title). */
  titleFallback?: string;
  /** Password to open an encrypted input. */
  inputPassword?: string;
  watermark?: string;
  /** False: leave the fields as loaded (a document we could not make inert is not asked to recompute anything). */
  refreshFields?: boolean;
  /** Compute SECTIONPAGES results (which this office keeps as stored text) before exporting. */
  sectionPages?: boolean;
  /** Load without a view, so without a layout: for output that needs none (ODT), never PDF. */
  viewless?: boolean;
  /** Instead of exporting, answer what the layout measured: each section's page count (no output file). */
  measure?: 'sectionPages';
  /** One part of a long table (ooxml/longTable.ts): export the pages a following part does not lay out again. */
  tableBreak?: { bookmark: string; headerRows: number; last: boolean };
  /** Told once the office has read the document and lays it out (not sent: the bridge is asked to report). */
  onLoaded?: () => void;
  /** Told the pages written of the document's pages while the office exports (not sent: the bridge is asked to report). */
  onPages?: (done: number, total: number) => void;
  /**
   * A long table's part made from rows before its true start: asked, once the part is laid out,
   * where it starts (rows to drop, the true first page number), or null to drop the part (not sent).
   */
  onHeld?: () => Promise<PartStart | null>;
  /** A long table's part: told where it breaks before its pages are exported (not sent). */
  onBroke?: (tableBreak: TableBreak) => void;
}

/** Where a part laid out ahead truly starts: the rows before it (dropped, or their pages left out), and its first page's number. */
export interface PartStart {
  trim: number;
  page: number;
}

/** Where a long table's part breaks: its pages, the pages exported, and the part's first row on none of them. */
export interface TableBreak {
  pages: number;
  keep: number;
  restart: number;
  /** The rows of the last page kept, when it begins with a whole row and is not the part's first. */
  rowsOnPage?: number;
}

export interface JobResult {
  /** Time the office itself spent, as the bridge measured it. */
  officeMs: number;
  /** The output of a job that asked for it as bytes; null when the office wrote none. */
  data?: Buffer | null;
  /** A `measure: 'sectionPages'` job's answer: each section's page count. */
  sectionPages?: number[];
  /** A `tableBreak` job's answer; null when the office found no page to break at (nothing exported). */
  tableBreak?: TableBreak | null;
  /** A held part that was dropped (nothing exported). */
  dropped?: boolean;
  /** A part laid out ahead that kept its layout (its true start began one of its pages): the pages before that one, left out of the export. */
  leftOut?: number;
  /** A `textOnly` job: whether the office laid the document out. */
  laidOut?: boolean;
}

export type JobFailure = 'load_failed' | 'password' | 'export_failed' | 'bad_job' | 'office_gone';

/** The document (or the job) was at fault; the process is fine. */
export class OfficeJobError extends Error {
  constructor(
    readonly code: JobFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The office process died while it held the job. */
export class OfficeCrashError extends Error {}

/** The process's job folder was removed under it: the process is replaced, and the job may run on any other. */
export class ScratchLostError extends OfficeCrashError {}

/** The job ran over its limit; the process was killed. */
export class OfficeTimeoutError extends Error {}

export interface OfficeProcessOptions {
  /** The pool slot: names the profile, scratch folder and pipe, which a replacement reuses. */
  slot: string;
  /** Persistent folder of the office profiles (`profile-<slot>`). */
  workDir: string;
  /** Scratch folder for this process's temp and job files (`slot-<slot>/`), emptied at each start. */
  runDir: string;
  sofficePath: string;
  pythonPath: string;
  sandbox: Sandbox;
  startTimeoutMs: number;
  /** A fontconfig file adding the operator's fonts folder (src/office/fonts.ts), and that folder. */
  fonts?: { configFile: string; dir: string };
  /** A malloc library preloaded into the office (src/office/allocator.ts), or the system's allocator. */
  allocator?: string;
  /** Drive the office over the pipe, call by call, instead of running the converter inside it (bridge.py): for tests of that fallback. */
  remoteCalls?: boolean;
}

export const BRIDGE_PATH = fileURLToPath(new URL('./bridge.py', import.meta.url));

/** Exit code of a first start on a new profile: it has set itself up and wants a restart. */
const RESTART_REQUIRED = 81;
/** How long the office's process tree is taken as known before it is looked up again. */
const TREE_TTL_MS = 5_000;

/** A line from the bridge: a job's answer, or a report while it runs (see bridge.py). */
interface BridgeLine {
  id?: number;
  ok?: boolean;
  error?: JobFailure;
  message?: string;
  ms?: number;
  sectionPages?: unknown;
  tableBreak?: unknown;
  pages?: { done?: unknown; total?: unknown };
  held?: unknown;
  loaded?: unknown;
  dropped?: unknown;
  leftOut?: unknown;
  laidOut?: unknown;
  broke?: unknown;
}

interface Pending {
  resolve(result: JobResult): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  id: number;
  /** The job's callbacks for what the bridge reports while it runs. */
  hooks: Pick<OfficeJob, 'onLoaded' | 'onPages' | 'onHeld' | 'onBroke'>;
  /** Counts towards the process's jobs (the warm-up letter does not). */
  counted: boolean;
}

/**
 * Job files this small are written and read at once rather than through the thread pool (a few
 * hops there cost a small conversion about a millisecond): they live in memory (/dev/shm) or
 * the page cache, so this takes microseconds.
 */
const AT_ONCE_BYTES = 256 * 1024;

/** The bridge's first line, when it says it is ready. */
function readyLine(line: string): { inOffice?: unknown; why?: unknown; direct?: unknown } | undefined {
  try {
    const said = JSON.parse(line) as { ready?: unknown; inOffice?: unknown; why?: unknown; direct?: unknown } | null;
    return said?.ready === true ? said : undefined;
  } catch {
    return undefined;
  }
}

async function writeJobFile(file: string, bytes: Uint8Array): Promise<void> {
  if (bytes.length <= AT_ONCE_BYTES) fs.writeFileSync(file, bytes);
  else await fs.promises.writeFile(file, bytes);
}

async function readJobFile(file: string): Promise<Buffer> {
  const fd = fs.openSync(file, 'r');
  try {
    return fs.fstatSync(fd).size > AT_ONCE_BYTES ? await fs.promises.readFile(file) : fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The socket the converter inside the office connects to, in the slot's temp folder. */
const DIRECT_SOCKET = 'docsmith.sock';
/** The longest path a UNIX socket may have (sun_path, with its terminating zero). */
const MAX_SOCKET_PATH = 107;

/**
 * One office (soffice.bin in its own process group, with its own profile) and the Python UNO
 * bridge that drives it. One job at a time.
 */
export class OfficeProcess {
  private office!: ChildProcess;
  private bridge!: ChildProcess;
  /** The converter inside the office, spoken to over a socket of its own (bridge.py's `Direct`); undefined: through the bridge. */
  private channel: net.Socket | undefined;
  private pending: Pending | undefined;
  private nextId = 1;
  private dead = false;
  /** The office's processes, as last looked up (rssBytes). */
  private tree: { pids: number[]; until: number } | undefined;
  private deathListeners: ((reason: string) => void)[] = [];
  private readyFlag = false;
  private profile!: { name: string; dir: string; release(): void };
  private scratch!: { root: string; tmp: string; jobs: string };
  jobsDone = 0;
  /** Why the converter does not run inside the office (bridge.py's `InOffice`); undefined when it does. */
  notInOffice: string | undefined = 'not started';

  private constructor(readonly options: OfficeProcessOptions) {}

  /** Starts a process; `starting` is handed it before it is ready, so that it can be stopped half-way. */
  static async start(options: OfficeProcessOptions, starting?: (process: OfficeProcess) => void): Promise<OfficeProcess> {
    const process = new OfficeProcess(options);
    starting?.(process);
    await process.launch();
    return process;
  }

  get inOffice(): boolean {
    return this.notInOffice === undefined;
  }

  /** Whether jobs go to the converter inside the office over its own socket, not through the bridge process. */
  get direct(): boolean {
    return this.channel !== undefined;
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

  get slot(): string {
    return this.options.slot;
  }

  private pipeName(): string {
    return `docsmith-${process.pid}-${this.profile.name}`;
  }

  /** Where the office puts its pipe: /tmp, which is the slot's own temp folder in a sandbox. */
  private pipeFile(): string {
    const uid = process.getuid?.() ?? 0;
    const dir = this.options.sandbox.kind === 'bubblewrap' ? this.scratch.tmp : '/tmp';
    return path.join(dir, `OSL_PIPE_${uid}_${this.pipeName()}`);
  }

  /** The slot's temp folder as the sandboxed processes see it (bubblewrap mounts it at /tmp). */
  private tmpInside(): string {
    return this.options.sandbox.kind === 'bubblewrap' ? '/tmp' : this.scratch.tmp;
  }

  private spawnOffice(): ChildProcess {
    const { sofficePath, sandbox } = this.options;
    const profile = this.profile.dir;
    const argv = [
      sofficePath,
      `-env:UserInstallation=file://${profile}`,
      '--headless',
      '--invisible',
      '--nologo',
      '--norestore',
      '--nodefault',
      '--nolockcheck',
      '--nofirststartwizard',
      `--accept=pipe,name=${this.pipeName()};urp;StarOffice.ComponentContext`,
    ];
    // A program outside the system folders (an operator's wrapper) must be visible in there too,
    // and so must the bridge, which the office's Python loads as its converter.
    const readable = /^\/(usr|opt\/libreoffice)\//.test(sofficePath) ? [BRIDGE_PATH] : [BRIDGE_PATH, sofficePath];
    const fonts = this.options.fonts;
    if (fonts) readable.push(fonts.configFile, path.resolve(fonts.dir));
    const preload = officePreload(this.options.allocator);
    readable.push(...preload.readable);
    const [command, ...args] = sandbox.wrap(argv, { writable: [profile, this.scratch.jobs], tmp: this.scratch.tmp, readable });
    const tmp = this.tmpInside();
    return spawn(command!, args, {
      detached: true, // its own process group, so a kill reaches every child it starts
      stdio: 'ignore',
      // No lock files: a job retried after a crash must be able to open the same input again.
      env: officeEnvironment({
        SAL_USE_VCLPLUGIN: 'svp',
        SAL_ENABLE_FILE_LOCKING: '0',
        HOME: profile,
        TMPDIR: tmp,
        TMP: tmp,
        TEMP: tmp,
        ...(fonts ? { FONTCONFIG_FILE: fonts.configFile } : {}),
        ...preload.env,
      }),
    });
  }

  /** The slot's scratch folder, empty: what a dead predecessor left in it is gone. */
  private prepareScratch(): void {
    const root = path.join(this.options.runDir, `slot-${this.profile.name}`);
    fs.rmSync(root, { recursive: true, force: true });
    const scratch = { root, tmp: path.join(root, 'tmp'), jobs: path.join(root, 'jobs') };
    fs.mkdirSync(scratch.tmp, { recursive: true, mode: 0o700 });
    fs.mkdirSync(scratch.jobs, { recursive: true, mode: 0o700 });
    this.scratch = scratch;
  }

  private async launch(): Promise<void> {
    this.profile = claimProfile(this.options.workDir, this.options.slot);
    try {
      prepareProfile(this.profile.dir, installedOfficeVersion(this.options.sofficePath));
      this.prepareScratch();
      fs.rmSync(this.pipeFile(), { force: true });
    } catch (error) {
      this.profile.release();
      throw error;
    }
    const deadline = Date.now() + this.options.startTimeoutMs;
    const direct = this.options.remoteCalls ? undefined : await this.listen();

    const [bridgeCommand, ...bridgeArgs] = this.options.sandbox.wrap([this.options.pythonPath, BRIDGE_PATH, this.pipeName()], {
      writable: [],
      tmp: this.scratch.tmp,
      readable: [BRIDGE_PATH],
    });
    this.bridge = spawn(bridgeCommand!, bridgeArgs, {
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, killed whole: a sandbox wrapper killed while it sets up may leave a child behind.
      detached: true,
      // A home of its own: without one, a bridge whose office was killed lingered, holding its pipes (the pool tests ran 30 s longer).
      env: officeEnvironment({
        HOME: this.tmpInside(),
        TMPDIR: this.tmpInside(),
        DOCSMITH_BRIDGE_CONNECT_S: String(Math.ceil(this.options.startTimeoutMs / 1000)),
        ...(this.options.remoteCalls ? { DOCSMITH_BRIDGE_REMOTE: '1' } : {}),
        ...(direct ? { DOCSMITH_BRIDGE_DIRECT: path.join(this.tmpInside(), DIRECT_SOCKET) } : {}),
      }),
    });
    let bridgeErrors = '';
    this.bridge.stderr!.on('data', (chunk: Buffer) => {
      bridgeErrors = (bridgeErrors + chunk.toString()).slice(-4000);
    });
    const lines = createInterface({ input: this.bridge.stdout! });

    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the office did not start within ${this.options.startTimeoutMs} ms`)),
        Math.max(0, deadline - Date.now()),
      );
      lines.once('line', (line) => {
        const said = readyLine(line);
        if (said && said.direct === true && direct) {
          // The office connected before the bridge said so: its connection is in, or on its way.
          direct.connected.then((socket) => {
            clearTimeout(timer);
            this.notInOffice = undefined;
            this.channel = socket;
            resolve();
          }, reject);
          return;
        }
        clearTimeout(timer);
        if (!said) return reject(new Error(`the office bridge said: ${line.slice(0, 300)}`));
        this.notInOffice = said.inOffice === true ? undefined : String(said.why ?? 'unknown').slice(0, 300);
        resolve();
      });
      this.bridge.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the office bridge exited (${code}) before it was ready: ${bridgeErrors.trim().slice(-600)}`));
      });
    });

    // A new profile makes the first start exit with 81; start again until it stays up.
    const startOffice = (attempt: number): void => {
      this.office = this.spawnOffice();
      this.office.once('exit', (code, signal) => {
        if (!this.readyFlag && code === RESTART_REQUIRED && attempt < 3) {
          startOffice(attempt + 1);
          return;
        }
        this.die(`the office exited (${signal ?? code})`);
      });
    };
    startOffice(1);
    this.bridge.once('exit', (code, signal) =>
      this.die(`the office bridge exited (${signal ?? code}): ${bridgeErrors.trim().slice(-300)}`),
    );

    try {
      await ready;
    } catch (error) {
      this.kill();
      throw error;
    } finally {
      direct?.close();
    }
    this.readyFlag = true;
    const channel = this.channel;
    if (channel) {
      createInterface({ input: channel }).on('line', (line) => this.answer(line));
      channel.once('close', () => this.die('the office closed its connection'));
      channel.on('error', () => undefined); // 'close' follows
    } else lines.on('line', (line) => this.answer(line));
  }

  /**
   * A socket in the slot's temp folder (which the sandboxed office sees as its /tmp) for the
   * converter inside the office to connect to, once; undefined where the path is too long for a
   * socket (the bridge relays then).
   */
  private async listen(): Promise<{ connected: Promise<net.Socket>; close(): void } | undefined> {
    const file = path.join(this.scratch.tmp, DIRECT_SOCKET);
    if (Buffer.byteLength(file) > MAX_SOCKET_PATH) return undefined;
    const server = net.createServer({ allowHalfOpen: false });
    const connected = new Promise<net.Socket>((resolve, reject) => {
      server.once('connection', (socket) => {
        socket.setNoDelay(true);
        resolve(socket);
        // One office, one connection: nobody else is let in.
        server.close();
      });
      server.once('close', () => reject(new Error('the office did not connect to its socket')));
    });
    connected.catch(() => undefined);
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(file, () => resolve(true));
    });
    if (!listening) return undefined;
    fs.chmodSync(file, 0o600);
    return {
      connected,
      close: () => {
        server.close();
        fs.rmSync(file, { force: true });
      },
    };
  }

  /** A line to the converter: over its socket, or through the bridge. */
  private tell(message: object): void {
    const line = JSON.stringify(message) + '\n';
    if (this.channel) this.channel.write(line);
    else this.bridge.stdin!.write(line);
  }

  private answer(line: string): void {
    const pending = this.pending;
    if (!pending) return;
    let reply: BridgeLine;
    try {
      reply = JSON.parse(line) as typeof reply;
    } catch {
      return;
    }
    if (reply.loaded || reply.pages || reply.broke || reply.held) {
      // A report while the job runs, not its answer.
      if (reply.id === pending.id) this.report(pending, reply);
      return;
    }
    this.pending = undefined;
    clearTimeout(pending.timer);
    if (reply.error === 'office_gone') {
      pending.reject(new OfficeCrashError(`the office process died during the job: ${reply.message ?? ''}`));
      this.kill();
    } else if (reply.ok) {
      if (pending.counted) this.jobsDone++;
      const measured =
        Array.isArray(reply.sectionPages) && reply.sectionPages.every((n) => Number.isInteger(n) && n > 0)
          ? (reply.sectionPages as number[])
          : undefined;
      pending.resolve({
        officeMs: reply.ms ?? 0,
        ...(measured ? { sectionPages: measured } : {}),
        ...('tableBreak' in reply ? { tableBreak: tableBreakOf(reply.tableBreak) } : {}),
        ...(reply.dropped === true ? { dropped: true } : {}),
        ...(Number.isInteger(reply.leftOut) && (reply.leftOut as number) >= 0 ? { leftOut: reply.leftOut as number } : {}),
        ...(typeof reply.laidOut === 'boolean' ? { laidOut: reply.laidOut } : {}),
      });
    } else {
      pending.reject(new OfficeJobError(reply.error ?? 'bad_job', reply.message ?? 'the office failed'));
    }
  }

  /** Loaded, pages written, where a part breaks, or a held part waiting for where it starts (the job's time limit runs on). */
  private report(pending: Pending, reply: BridgeLine): void {
    const { onLoaded, onPages, onBroke, onHeld } = pending.hooks;
    if (reply.loaded) {
      onLoaded?.();
    } else if (reply.pages) {
      const { done, total } = reply.pages;
      if (Number.isInteger(done) && Number.isInteger(total)) onPages?.(done as number, total as number);
    } else if (reply.broke) {
      const found = tableBreakOf(reply.broke);
      if (found) onBroke?.(found);
    } else {
      void (onHeld?.() ?? Promise.resolve(null))
        .catch(() => null)
        .then((start) => {
          if (this.pending !== pending || this.dead) return;
          this.tell(start ? { id: pending.id, go: start } : { id: pending.id, drop: true });
        });
    }
  }

  /**
   * Runs one job; the process must be idle. The files are staged through the slot's own job
   * folder, the only one a sandboxed office can see, and removed from it afterwards.
   */
  async run(job: OfficeJob | { op: 'ping' }, timeoutMs: number): Promise<JobResult> {
    if (this.dead) throw new OfficeCrashError('the office process is gone');
    if (this.pending) throw new Error('office process is busy');
    if ('op' in job) return this.send(job, timeoutMs);
    const stem = path.join(this.scratch.jobs, randomUUID());
    const input = `${stem}.in.${extensionOf(job.input)}`;
    const output = `${stem}.out.${extensionOf(job.output)}`;
    // No output is not an error here: the caller says what that means.
    const missing = (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      return null;
    };
    // Staged and read back at once (AT_ONCE_BYTES), the job's files are removed at once too.
    let small = false;
    try {
      const staged = typeof job.input === 'string' ? fs.promises.copyFile(job.input, input) : writeJobFile(input, job.input.bytes);
      await staged.catch(async (error: NodeJS.ErrnoException) => {
        const folderGone = error.code === 'ENOENT' && (await fs.promises.stat(this.scratch.jobs).catch(() => null)) === null;
        if (!folderGone) throw error;
        // Something removed the job folder: a sandbox sees only the folder it was started with, so
        // the process is replaced (its slot's folder made anew) and the job runs on another.
        this.kill();
        throw new ScratchLostError('its job folder was removed');
      });
      const result = await this.send({ ...job, input, output }, timeoutMs);
      if (typeof job.output !== 'string') {
        const data = await readJobFile(output).catch(missing);
        small = typeof job.input !== 'string' && job.input.bytes.length <= AT_ONCE_BYTES && (data?.length ?? 0) <= AT_ONCE_BYTES;
        return { ...result, data };
      }
      await fs.promises.copyFile(output, job.output).catch(missing);
      return result;
    } finally {
      if (small) discardNow(input, output);
      else discard(input, output);
    }
  }

  /**
   * Converts a small letter to ODT, and that to PDF, before the process takes work
   * (office/warmUp.ts), so that no request pays a fresh office's first load of either reader (long
   * tables' parts are read from ODT) or of the PDF writer. Not counted as jobs.
   */
  async warmUp(timeoutMs: number): Promise<void> {
    const stem = path.join(this.scratch.jobs, `warm-up-${randomUUID()}`);
    try {
      await fs.promises.writeFile(`${stem}.docx`, warmUpDocx());
      const deadline = Date.now() + timeoutMs;
      await this.send(
        { input: `${stem}.docx`, output: `${stem}.odt`, filter: ODT_FILTER, inputFilter: DOCX_IMPORT_FILTER },
        timeoutMs,
        false,
      );
      await this.send(
        { input: `${stem}.odt`, output: `${stem}.pdf`, filter: 'writer_pdf_Export' },
        Math.max(1, deadline - Date.now()),
        false,
      );
    } finally {
      discard(`${stem}.docx`, `${stem}.odt`, `${stem}.pdf`);
    }
  }

  private send(job: OfficeJob | { op: 'ping' }, timeoutMs: number, counted = true): Promise<JobResult> {
    if (this.dead) return Promise.reject(new OfficeCrashError('the office process is gone'));
    return new Promise<JobResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending?.timer !== timer) return;
        this.pending = undefined;
        reject(new OfficeTimeoutError(`the office job took longer than ${timeoutMs} ms`));
        this.kill();
      }, timeoutMs);
      const id = this.nextId++;
      const hooks = 'op' in job ? {} : job;
      // The callbacks stay here (JSON leaves functions out); the bridge is asked for what they want.
      const message =
        'op' in job
          ? job
          : {
              op: 'convert',
              ...job,
              ...(job.onPages || job.onLoaded ? { pages: true } : {}),
              ...(job.onHeld && job.tableBreak ? { tableBreak: { ...job.tableBreak, hold: true } } : {}),
            };
      this.pending = { resolve, reject, timer, id, hooks, counted };
      this.tell({ id, ...message });
    });
  }

  /**
   * Resident memory of the office, in bytes (0 when unknown): the sandbox wrapper's whole process
   * tree. Asked after every job: the tree's processes are looked up again only now and then (the
   * office has dozens of threads to look through), their memory every time.
   */
  rssBytes(): number {
    const pid = this.office.pid;
    if (pid === undefined) return 0;
    const now = Date.now();
    if (!this.tree || now >= this.tree.until) this.tree = { pids: processTree(pid), until: now + TREE_TTL_MS };
    const { bytes, complete } = residentBytes(this.tree.pids);
    if (complete) return bytes;
    this.tree = undefined;
    return treeRssBytes(pid);
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.kill();
    // Before the slot is free again, so a replacement never finds (or loses) our leftovers.
    try {
      if (this.scratch) fs.rmSync(this.scratch.root, { recursive: true, force: true });
      if (this.profile) fs.rmSync(this.pipeFile(), { force: true });
    } catch {
      // best effort; the next start of the slot empties it too
    }
    this.profile?.release();
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
    if (this.bridge?.pid) {
      try {
        process.kill(-this.bridge.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      // Whatever still holds the other ends, our ends are closed: nothing of this process keeps Node waiting.
      for (const stream of [this.bridge.stdin, this.bridge.stdout, this.bridge.stderr]) stream?.destroy();
    }
    this.channel?.destroy();
    this.die('stopped');
  }
}

/** A bridge's table break, checked: whole numbers that add up, or null. */
function tableBreakOf(value: unknown): TableBreak | null {
  if (typeof value !== 'object' || value === null) return null;
  const { pages, keep, restart, rowsOnPage } = value as Record<string, unknown>;
  const whole = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
  if (!whole(pages) || !whole(keep) || !whole(restart) || keep < 1 || keep > pages) return null;
  return { pages, keep, restart, ...(whole(rowsOnPage) && rowsOnPage > 0 && rowsOnPage <= restart ? { rowsOnPage } : {}) };
}
