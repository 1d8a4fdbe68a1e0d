import { Worker } from 'node:worker_threads';
import { InputError, ProcessingTimeoutError } from '../errors.js';
import type { ImageFormat } from './encode.js';
import type { Inspection, RenderReply, WorkerJob } from './worker.js';

type JobBody = WorkerJob extends infer J ? J extends WorkerJob ? Omit<J, 'id'> : never : never;

interface Task {
  job: JobBody;
  resolve(reply: RenderReply): void;
  reject(error: Error): void;
  /** Stops listening to the request's abort signal once the task has its answer. */
  detach(): void;
}

// Workers run compiled code: beside this file when compiled, from dist/ when run from src/ (tsx).
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? '../../dist/render/worker.js' : './worker.js', import.meta.url);

/**
 * Reads and renders PDF pages in worker threads, so no PDF ever stalls the event loop. A job
 * whose request is aborted (the time limit) terminates its thread; a new one takes its place.
 */
export class PageRenderer {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly queue: Task[] = [];
  private readonly busy = new Map<Worker, { id: number; task: Task }>();
  private nextId = 1;

  constructor(private readonly size: number) {}

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL, { execArgv: process.execArgv });
    worker.on('message', (reply: RenderReply) => {
      const running = this.busy.get(worker);
      if (!running || running.id !== reply.id) return;
      this.release(worker, running.task);
      this.idle.push(worker);
      worker.unref(); // an idle worker does not keep the process alive
      if ('error' in reply) running.task.reject(reply.input ? new InputError(reply.error) : new Error(reply.error));
      else running.task.resolve(reply);
      this.next();
    });
    worker.on('error', (error) => {
      const running = this.busy.get(worker);
      if (running) {
        this.release(worker, running.task);
        running.task.reject(error);
      }
      this.forget(worker);
      this.next();
    });
    worker.unref();
    this.all.push(worker);
    return worker;
  }

  private forget(worker: Worker): void {
    const at = this.all.indexOf(worker);
    if (at >= 0) this.all.splice(at, 1);
    const idle = this.idle.indexOf(worker);
    if (idle >= 0) this.idle.splice(idle, 1);
  }

  private release(worker: Worker, task: Task): void {
    this.busy.delete(worker);
    task.detach();
  }

  private run(job: JobBody, signal?: AbortSignal): Promise<RenderReply> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const queued = this.queue.indexOf(task);
        if (queued >= 0) this.queue.splice(queued, 1);
        for (const [worker, running] of this.busy) {
          if (running.task !== task) continue;
          this.busy.delete(worker);
          this.forget(worker);
          void worker.terminate(); // the only way to stop MuPDF mid-page
          this.next();
        }
        reject(abortError(signal!));
      };
      const task: Task = { job, resolve, reject, detach: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(task);
      this.next();
    });
  }

  async render(pdf: Uint8Array, pages: number[], scale: number, format: ImageFormat, signal?: AbortSignal): Promise<Uint8Array[]> {
    const reply = await this.run({ kind: 'render', pdf, pages, scale, format }, signal);
    return 'images' in reply ? reply.images : [];
  }

  /** The page count and the sizes of pages `from`..`to` (see InspectJob). */
  async inspect(pdf: Uint8Array, range: { from: number; to: number; maxPages: number }, signal?: AbortSignal): Promise<Inspection> {
    const reply = await this.run({ kind: 'inspect', pdf, ...range }, signal);
    return 'inspection' in reply ? reply.inspection : { count: 0 };
  }

  private next(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.all.length < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const task = this.queue.shift()!;
      const id = this.nextId++;
      this.busy.set(worker, { id, task });
      worker.ref();
      worker.postMessage({ ...task.job, id } as WorkerJob);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as Error | undefined;
  // AbortSignal.timeout() (a caller's own limit) aborts with a DOMException: answer the usual 504.
  if (!reason || reason.name === 'TimeoutError') return new ProcessingTimeoutError('Reading the PDF\'s pages took longer than the processing limit and was cancelled.');
  return reason;
}
