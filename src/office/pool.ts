import { BusyError, ProcessingTimeoutError } from '../errors.js';
import { OfficeCrashError, OfficeProcess, OfficeTimeoutError, type JobResult, type OfficeJob, type OfficeProcessOptions } from './process.js';

export interface PoolOptions {
  size: number;
  /** Jobs that may wait for a process; more are refused at once (503). */
  queueLimit: number;
  /** How long a job may wait for a process before it is refused (503). */
  queueWaitMs: number;
  jobTimeoutMs: number;
  /** Recycle a process after this many jobs ... */
  maxJobsPerProcess: number;
  /** ... or once its resident memory is above this. */
  maxRssBytes: number;
  process: Omit<OfficeProcessOptions, 'id'>;
  log?: (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => void;
}

interface Worker {
  process: OfficeProcess;
  busy: boolean;
  /** Replaced as soon as its successor is warm; serves until then. */
  retiring: boolean;
}

interface Waiter {
  job: OfficeJob;
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
  private readonly queue: Waiter[] = [];
  private starting = 0;
  private closed = false;
  private nextId = 1;
  readonly stats = { jobs: 0, crashes: 0, timeouts: 0, recycled: 0, refused: 0 };

  constructor(private readonly options: PoolOptions) {}

  /** Starts and warms every process; resolves when all are ready. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.size }, () => this.addWorker()));
    this.started = true;
  }

  private started = false;

  /** Every process started and warmed, and at least one can take work now. */
  get ready(): boolean {
    return this.started && this.workers.some((w) => w.process.alive);
  }

  get size(): number {
    return this.workers.length;
  }

  run(job: OfficeJob, signal?: AbortSignal): Promise<JobResult> {
    if (this.closed) return Promise.reject(new BusyError('The office engine is shutting down.', 5));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<JobResult>((resolve, reject) => {
      const waiter: Waiter = { job, signal, retried: false, resolve, reject, timer: undefined as unknown as NodeJS.Timeout };
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
      waiter.reject(new BusyError(`No office process became free within ${Math.round(this.options.queueWaitMs / 1000)} s; retry shortly.`, this.retryAfterSeconds()));
    }, this.options.queueWaitMs);
    waiter.signal?.addEventListener('abort', () => {
      if (this.removeWaiter(waiter)) waiter.reject(waiter.signal!.reason as Error);
    }, { once: true });
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
    const worker = this.workers.find((w) => !w.busy && w.process.alive);
    if (!worker) return false;
    worker.busy = true;
    this.stats.jobs++;
    const onAbort = () => worker.process.kill(); // a UNO call cannot be cancelled; the process goes
    waiter.signal?.addEventListener('abort', onAbort, { once: true });
    worker.process.run(waiter.job, this.options.jobTimeoutMs).then(
      (result) => {
        waiter.signal?.removeEventListener('abort', onAbort);
        this.release(worker);
        waiter.resolve(result);
      },
      (error: Error) => {
        waiter.signal?.removeEventListener('abort', onAbort);
        this.release(worker);
        if (waiter.signal?.aborted) {
          waiter.reject(waiter.signal.reason as Error);
        } else if (error instanceof OfficeTimeoutError) {
          this.stats.timeouts++;
          waiter.reject(new ProcessingTimeoutError(`The document took longer than the limit of ${Math.round(this.options.jobTimeoutMs / 1000)} s to process and was cancelled.`));
        } else if (error instanceof OfficeCrashError && !waiter.retried) {
          this.stats.crashes++;
          this.options.log?.('warn', 'office process crashed during a job; retrying on another', { error: error.message });
          waiter.retried = true;
          if (!this.dispatch(waiter)) this.enqueue(waiter, true);
        } else {
          if (error instanceof OfficeCrashError) this.stats.crashes++;
          waiter.reject(error);
        }
      },
    );
    return true;
  }

  private release(worker: Worker): void {
    worker.busy = false;
    if (!worker.process.alive) {
      this.removeWorker(worker);
    } else if (!worker.retiring && (worker.process.jobsDone >= this.options.maxJobsPerProcess || worker.process.rssBytes() > this.options.maxRssBytes)) {
      worker.retiring = true;
      this.stats.recycled++;
      this.options.log?.('info', 'recycling office process', { jobs: worker.process.jobsDone, rss: worker.process.rssBytes() });
      // The successor starts in the background; the old process serves until it is warm.
      void this.addWorker().finally(() => {
        if (!worker.busy) this.removeWorker(worker);
      });
    } else if (worker.retiring && this.workers.some((w) => w !== worker && !w.retiring && w.process.alive)) {
      this.removeWorker(worker);
    }
    this.drain();
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

  private async addWorker(): Promise<void> {
    if (this.closed) return;
    this.starting++;
    try {
      const process = await OfficeProcess.start({ ...this.options.process, id: String(this.nextId++) });
      await process.run({ op: 'ping' }, this.options.jobTimeoutMs);
      if (this.closed) {
        process.kill();
        return;
      }
      const worker: Worker = { process, busy: false, retiring: false };
      process.onDeath((reason) => this.onDeath(worker, reason));
      this.workers.push(worker);
      this.drain();
    } catch (error) {
      this.options.log?.('error', 'office process failed to start', { error: (error as Error).message });
      throw error;
    } finally {
      this.starting--;
    }
  }

  private onDeath(worker: Worker, reason: string): void {
    if (this.closed || worker.retiring) return;
    if (!worker.busy) this.removeWorker(worker);
    this.options.log?.('warn', 'office process died; starting a replacement', { reason });
    void this.addWorker().catch(() => {
      // Logged in addWorker; the next death or recycle tries again.
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.queue.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new BusyError('The office engine is shutting down.', 5));
    }
    for (const worker of this.workers.splice(0)) worker.process.kill();
  }
}
