import { Worker } from 'node:worker_threads';
import type { ImageFormat } from './encode.js';
import type { RenderJob, RenderReply } from './worker.js';

interface Task {
  job: Omit<RenderJob, 'id'>;
  resolve(images: Uint8Array[]): void;
  reject(error: Error): void;
}

// Workers run compiled code: beside this file when compiled, from dist/ when run from src/ (tsx).
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? '../../dist/render/worker.js' : './worker.js', import.meta.url);

/** Renders PDF pages to images in worker threads, so rendering never stalls the event loop. */
export class PageRenderer {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly queue: Task[] = [];
  private readonly pending = new Map<number, Task>();
  private readonly busy = new Map<Worker, number>();
  private nextId = 1;

  constructor(private readonly size: number) {}

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL, { execArgv: process.execArgv });
    worker.on('message', (reply: RenderReply) => {
      const task = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      this.busy.delete(worker);
      this.idle.push(worker);
      worker.unref(); // an idle worker does not keep the process alive
      if (task) {
        if ('error' in reply) task.reject(new Error(reply.error));
        else task.resolve(reply.images);
      }
      this.next();
    });
    worker.on('error', (error) => {
      const id = this.busy.get(worker);
      if (id !== undefined) this.pending.get(id)?.reject(error);
      this.busy.delete(worker);
      this.all.splice(this.all.indexOf(worker), 1);
    });
    worker.unref();
    this.all.push(worker);
    return worker;
  }

  render(pdf: Uint8Array, pages: number[], scale: number, format: ImageFormat): Promise<Uint8Array[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { pdf, pages, scale, format }, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.all.length < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const task = this.queue.shift()!;
      const id = this.nextId++;
      this.pending.set(id, task);
      this.busy.set(worker, id);
      worker.ref();
      worker.postMessage({ ...task.job, id } satisfies RenderJob);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}
