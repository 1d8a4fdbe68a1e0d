import { BusyError, ProcessingTimeoutError } from '../errors.js';
import {
  OfficeCrashError,
  OfficeJobError,
  OfficeProcess,
  OfficeTimeoutError,
  ScratchLostError,
  type JobResult,
  type OfficeJob,
  type OfficeProcessOptions,
} from './process.js';
import { reapOrphanOffices } from './profile.js';

export interface PoolOptions {
  size: number;
  /** Jobs that may wait for a process; more are refused at once (503). */
  queueLimit: number;
  /** How long a job may wait for a process before it is refused (503). */
  queueWaitMs: number;
  processingLimitMs: number;
  /** Recycle a process after at most this many jobs (each draws its own budget: `jobBudget`) ... */
  maxJobsPerProcess: number;
  /** ... or once its resident memory is above this. */
  maxRssBytes: number;
  process: Omit<OfficeProcessOptions, 'slot'>;
  /** First wait before starting a slot again after a failed start; doubles up to `maxRestartDelayMs`. */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** Give up after this many failed starts of a slot in a row (start() rejects); default never (a server heals). */
  maxStartAttempts?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => void;
}

interface Worker {
  process: OfficeProcess;
  slot: Slot;
  busy: boolean;
  /** When it last finished a job: its bridge closes that job's documents after answering. */
  idleSince: number;
  /** Replaced as soon as its successor is warm; serves until then. */
  retiring: boolean;
  readyAt: number;
  /** The pool's generation it was started in: an older one is replaced (new fonts, say). */
  generation: number;
  /** Jobs it may do before it is replaced. */
  budget: number;
  /** When its memory was last read after a job (performance.now()). */
  memoryReadAt: number;
}

/**
 * Reading an office's memory from /proc takes 0.2-0.9 ms of the event loop: after a small job it is
 * read at most this often (a small document moves it little); after a long job, always.
 */
const MEMORY_READ_MS = 1000;
const LONG_JOB_MS = 1000;

/** Whether a worker's memory is read after a job that took the office `officeMs`. */
export function memoryDue(readAt: number, officeMs: number, now: number): boolean {
  return officeMs >= LONG_JOB_MS || now - readAt >= MEMORY_READ_MS;
}

/**
 * A process's job budget: 80-100 % of the configured one, drawn at its start. Processes started
 * together share the load evenly, so with one budget they were all replaced at once, each
 * successor's start competing with the others' and with the load.
 */
export function jobBudget(max: number, random = Math.random()): number {
  return max - Math.floor(random * max * 0.2);
}

/** One place in the pool: it always has a process, is starting one, or waits to try again. */
interface Slot {
  name: string;
  starting: boolean;
  /** Failed starts (and deaths soon after a start) in a row; sets the back-off. */
  failures: number;
  retry: NodeJS.Timeout | undefined;
  lastError: string | undefined;
  /** The process being started and warmed, so that a close can stop it half-way. */
  launching?: OfficeProcess;
}

/** A process that dies this soon after its start counts as a failed start. */
const EARLY_DEATH_MS = 10_000;

interface Waiter {
  job: OfficeJob;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  retried: boolean;
  resolve(result: JobResult): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A supervised set of office processes: one job per process, a bounded queue in front, a time
 * limit per job, crash replacement with one retry elsewhere, and recycling off the request path.
 */
export class OfficePool {
  private readonly workers: Worker[] = [];
  private readonly slots: Slot[];
  private readonly queue: Waiter[] = [];
  private closed = false;
  private startWaiters: { resolve(): void; reject(error: Error): void }[] = [];
  readonly stats = { jobs: 0, crashes: 0, timeouts: 0, recycled: 0, refused: 0, startFailures: 0, restarts: 0, warmUps: 0 };

  constructor(private readonly options: PoolOptions) {
    this.slots = Array.from({ length: options.size }, (_, i) => ({
      name: String(i + 1),
      starting: false,
      failures: 0,
      retry: undefined,
      lastError: undefined,
    }));
  }

  /**
   * Starts the supervision of every slot; resolves once each slot has a warm process. A failed
   * start is retried with back-off for as long as the pool lives, so this waits through them.
   */
  async start(): Promise<void> {
    const reaped = reapOrphanOffices(this.options.process.workDir);
    if (reaped) this.options.log?.('warn', 'killed office processes left behind by an earlier docsmith process', { count: reaped });
    const all = new Promise<void>((resolve, reject) => this.startWaiters.push({ resolve, reject }));
    for (const slot of this.slots) this.startSlot(slot);
    this.checkStarted();
    await all;
  }

  private checkStarted(): void {
    if (this.slots.every((slot) => this.workers.some((w) => w.slot === slot && w.process.alive))) {
      for (const waiter of this.startWaiters.splice(0)) waiter.resolve();
    }
  }

  /** At least one process is warm and can take work. */
  get ready(): boolean {
    return this.workers.some((w) => w.process.alive);
  }

  /** Warm processes now. */
  get size(): number {
    return this.workers.filter((w) => w.process.alive).length;
  }

  private generation = 0;

  /**
   * Replaces every process, each as soon as it is free (its successor starts first, so nothing
   * waits): what processes read at start (the fonts) changed.
   */
  recycleAll(): void {
    this.generation++;
    for (const worker of [...this.workers]) if (!worker.busy && !worker.retiring) this.release(worker);
  }

  /** A warm process is idle and no job waits: work that could wait (a guess ahead) may take it. */
  get spare(): boolean {
    return this.queue.length === 0 && this.workers.some((w) => !w.busy && w.process.alive);
  }

  /** Jobs waiting for a free process. */
  get queueLength(): number {
    return this.queue.length;
  }

  /** What each slot is doing, for /readyz and logs. */
  status(): { configured: number; warm: number; busy: number; starting: number; sandbox: string; allocator: string; lastError?: string } {
    // Only a slot that is still without a process says why: a healed slot's old failure is history.
    const serving = new Set(this.workers.filter((w) => w.process.alive).map((w) => w.slot));
    const lastError = this.slots.find((s) => s.failures > 0 && !serving.has(s))?.lastError;
    return {
      configured: this.options.size,
      warm: this.size,
      busy: this.workers.filter((w) => w.busy).length,
      starting: this.slots.filter((s) => s.starting || s.retry).length,
      sandbox: this.options.process.sandbox.kind,
      // `system`, or the malloc library preloaded into the office (src/office/allocator.ts).
      allocator: this.options.process.allocator ?? 'system',
      ...(lastError ? { lastError } : {}),
    };
  }

  /** Runs a job on the first free process; `timeoutMs` (default: the pool's) limits the office's time on it. */
  run(job: OfficeJob, signal?: AbortSignal, timeoutMs = this.options.processingLimitMs): Promise<JobResult> {
    if (this.closed) return Promise.reject(new BusyError('The office engine is shutting down.', 5));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<JobResult>((resolve, reject) => {
      const waiter: Waiter = { job, timeoutMs, signal, retried: false, resolve, reject, timer: undefined as unknown as NodeJS.Timeout };
      if (!this.dispatch(waiter)) {
        if (this.queue.length >= this.options.queueLimit) {
          this.stats.refused++;
          reject(new BusyError(`The service is busy (${this.queue.length} documents waiting); retry shortly.`, this.retryAfterSeconds()));
          return;
        }
        this.enqueue(waiter, false);
      }
    });
  }

  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.options.queueWaitMs / 1000 / 2));
  }

  private enqueue(waiter: Waiter, front: boolean): void {
    waiter.timer = setTimeout(() => {
      this.removeWaiter(waiter);
      this.stats.refused++;
      waiter.reject(
        new BusyError(
          `No office process became free within ${Math.round(this.options.queueWaitMs / 1000)} s; retry shortly.`,
          this.retryAfterSeconds(),
        ),
      );
    }, this.options.queueWaitMs);
    waiter.signal?.addEventListener(
      'abort',
      () => {
        if (this.removeWaiter(waiter)) waiter.reject(waiter.signal!.reason as Error);
      },
      { once: true },
    );
    if (front) this.queue.unshift(waiter);
    else this.queue.push(waiter);
  }

  private removeWaiter(waiter: Waiter): boolean {
    const index = this.queue.indexOf(waiter);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    clearTimeout(waiter.timer);
    return true;
  }

  /** Hands the job to an idle process if there is one. */
  private dispatch(waiter: Waiter): boolean {
    // The process idle longest: one that has just answered is still closing its documents.
    let worker: Worker | undefined;
    for (const w of this.workers) if (!w.busy && w.process.alive && (!worker || w.idleSince < worker.idleSince)) worker = w;
    if (!worker) return false;
    worker.busy = true;
    this.stats.jobs++;
    const onAbort = () => worker.process.kill(); // a UNO call cannot be cancelled; the process goes
    waiter.signal?.addEventListener('abort', onAbort, { once: true });
    worker.process.run(waiter.job, waiter.timeoutMs).then(
      (result) => {
        waiter.signal?.removeEventListener('abort', onAbort);
        this.release(worker, false);
        waiter.resolve(result);
        // Its memory after the answer has gone on.
        setImmediate(() => {
          const now = performance.now();
          if (this.closed || worker.retiring || !worker.process.alive || !memoryDue(worker.memoryReadAt, result.officeMs, now)) return;
          worker.memoryReadAt = now;
          if (worker.process.rssBytes() > this.options.maxRssBytes) this.retire(worker);
        });
      },
      (error: Error) => {
        waiter.signal?.removeEventListener('abort', onAbort);
        this.release(worker);
        if (waiter.signal?.aborted) {
          waiter.reject(waiter.signal.reason as Error);
        } else if (error instanceof OfficeTimeoutError) {
          this.stats.timeouts++;
          waiter.reject(
            new ProcessingTimeoutError(
              `The document took longer than the limit of ${Math.round(waiter.timeoutMs / 1000)} s to process and was cancelled.`,
            ),
          );
        } else if (error instanceof ScratchLostError) {
          // Not the document's doing: each such process is replaced with a folder of its own, so
          // this ends; waiting is bounded by the queue's limit.
          this.options.log?.('warn', "an office process's job folder was removed; the process is replaced", {});
          if (!this.dispatch(waiter)) this.enqueue(waiter, true);
        } else if (error instanceof OfficeCrashError && !waiter.retried) {
          this.stats.crashes++;
          this.options.log?.('warn', 'office process crashed during a job; retrying on another', { error: error.message });
          waiter.retried = true;
          if (!this.dispatch(waiter)) this.enqueue(waiter, true);
        } else if (error instanceof OfficeCrashError) {
          // Twice: not the caller's fault, and a replaced process may serve it.
          this.stats.crashes++;
          waiter.reject(new BusyError(`The office engine lost its process during the document (${error.message}); retry shortly.`, 5));
        } else {
          waiter.reject(error);
        }
      },
    );
    return true;
  }

  /** The process is free again; `readMemory`: whether its memory may retire it now (else the caller looks later). */
  private release(worker: Worker, readMemory = true): void {
    worker.busy = false;
    worker.idleSince = performance.now();
    if (!worker.process.alive) {
      this.removeWorker(worker);
    } else if (
      !worker.retiring &&
      (worker.generation < this.generation ||
        worker.process.jobsDone >= worker.budget ||
        (readMemory && worker.process.rssBytes() > this.options.maxRssBytes))
    ) {
      this.retire(worker);
    } else if (worker.retiring && this.workers.some((w) => w !== worker && w.slot === worker.slot && !w.retiring && w.process.alive)) {
      this.removeWorker(worker);
    }
    this.drain();
  }

  /** Replaces the process: its successor starts in the background, and it serves until that one is warm. */
  private retire(worker: Worker): void {
    worker.retiring = true;
    this.stats.recycled++;
    this.options.log?.('info', 'recycling office process', { jobs: worker.process.jobsDone, rss: worker.process.rssBytes() });
    void this.launch(worker.slot).then(
      () => {
        if (!worker.busy) this.removeWorker(worker);
      },
      (error: Error) => {
        // The old process keeps serving; the next release tries again.
        worker.retiring = false;
        this.options.log?.('warn', 'could not start the successor of a recycled office process', { reason: error.message });
      },
    );
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const waiter = this.queue[0]!;
      if (!this.dispatch(waiter)) return;
      this.queue.shift();
      clearTimeout(waiter.timer);
    }
  }

  private removeWorker(worker: Worker): void {
    const index = this.workers.indexOf(worker);
    if (index >= 0) this.workers.splice(index, 1);
    worker.process.kill();
  }

  /** Starts a process for the slot now; on failure, tries again after a growing pause. */
  private startSlot(slot: Slot): void {
    if (this.closed || slot.starting) return;
    if (slot.retry) {
      clearTimeout(slot.retry);
      slot.retry = undefined;
    }
    slot.starting = true;
    this.launch(slot).then(
      () => {
        slot.starting = false;
        this.checkStarted();
      },
      (error: Error) => {
        slot.starting = false;
        if (this.closed) return;
        this.stats.startFailures++;
        this.scheduleRestart(slot, error.message);
      },
    );
  }

  private scheduleRestart(slot: Slot, reason: string): void {
    slot.failures++;
    slot.lastError = reason;
    if (this.options.maxStartAttempts && slot.failures >= this.options.maxStartAttempts) {
      this.options.log?.('error', 'office process failed to start; giving up', { slot: slot.name, attempts: slot.failures, reason });
      const error = new Error(`the office engine could not start (${slot.failures} attempts): ${reason}`);
      for (const waiter of this.startWaiters.splice(0)) waiter.reject(error);
      return;
    }
    const base = this.options.restartDelayMs ?? 500;
    const delay = Math.min(this.options.maxRestartDelayMs ?? 30_000, base * 2 ** Math.min(slot.failures - 1, 16));
    this.options.log?.('error', 'office process failed to start; trying again', {
      slot: slot.name,
      attempt: slot.failures,
      retryInMs: delay,
      reason,
    });
    // Kept referenced: a start waited for must not end the process for want of work (close clears it).
    slot.retry = setTimeout(() => {
      slot.retry = undefined;
      this.startSlot(slot);
    }, delay);
  }

  /** Starts and warms one process in the slot and puts it to work. */
  private async launch(slot: Slot): Promise<Worker | undefined> {
    let process: OfficeProcess;
    try {
      process = await OfficeProcess.start({ ...this.options.process, slot: slot.name }, (starting) => (slot.launching = starting));
      if (process.notInOffice !== undefined && !this.options.process.remoteCalls)
        this.options.log?.('warn', 'the office runs its converter over the pipe, which is slower', {
          slot: slot.name,
          reason: process.notInOffice,
        });
      else if (!process.direct && !this.options.process.remoteCalls)
        this.options.log?.(
          'warn',
          'the office converter is spoken to through the bridge, which is slower (is the run folder too deep for a socket?)',
          {
            slot: slot.name,
          },
        );
      await process.run({ op: 'ping' }, this.options.process.startTimeoutMs);
      await process.warmUp(this.options.process.startTimeoutMs).then(
        () => this.stats.warmUps++,
        (error: unknown) => {
          // An office that cannot convert the letter still serves what it can; one that died or hung did not start.
          if (!(error instanceof OfficeJobError)) throw error;
          this.options.log?.('warn', 'the office could not convert its warm-up letter', { slot: slot.name, reason: error.message });
        },
      );
    } catch (error) {
      slot.launching?.kill();
      throw error;
    } finally {
      slot.launching = undefined;
    }
    if (this.closed) {
      process.kill();
      return undefined;
    }
    const worker: Worker = {
      process,
      slot,
      busy: false,
      idleSince: 0,
      retiring: false,
      readyAt: Date.now(),
      generation: this.generation,
      budget: jobBudget(this.options.maxJobsPerProcess),
      memoryReadAt: -Infinity,
    };
    process.onDeath((reason) => this.onDeath(worker, reason));
    this.workers.push(worker);
    this.drain();
    return worker;
  }

  private onDeath(worker: Worker, reason: string): void {
    if (!worker.busy) this.removeWorker(worker);
    if (this.closed || worker.retiring) return;
    const slot = worker.slot;
    // Another process may serve the slot already (a recycled worker's successor).
    if (this.workers.some((w) => w !== worker && w.slot === slot && w.process.alive && !w.retiring)) return;
    this.stats.restarts++;
    if (Date.now() - worker.readyAt < EARLY_DEATH_MS && worker.process.jobsDone === 0) {
      this.scheduleRestart(slot, `the office died right after it started: ${reason}`);
    } else {
      slot.failures = 0;
      this.options.log?.('warn', 'office process died; starting a replacement', { slot: slot.name, reason });
      this.startSlot(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) if (slot.retry) clearTimeout(slot.retry);
    for (const waiter of this.startWaiters.splice(0)) waiter.resolve();
    for (const waiter of this.queue.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new BusyError('The office engine is shutting down.', 5));
    }
    for (const worker of this.workers.splice(0)) worker.process.kill();
    // A process still starting is stopped too: nothing of the pool outlives its close.
    for (const slot of this.slots) slot.launching?.kill();
  }
}
