/**
 * Prometheus metrics (prom-client): requests by route and status, latency per route, refusals
 * by reason, the office pool, the document threads and this process's caches. Served at /metrics.
 */
import client from 'prom-client';
import type { OfficePool } from './office/pool.js';
import type { DocumentWorkers } from './workers/pool.js';
import type { JobRunner } from './jobs/runner.js';
import type { Store } from './store/types.js';
import type { Refusal } from './errors.js';
import { cacheLookups } from './util/cacheStats.js';
import { VERSION } from './version.js';
import { longTableParts } from './operations/longTable.js';

/** A counter that follows totals kept elsewhere (the pool's statistics, the cache counts), by labels. */
function followingCounter(
  registry: client.Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: () => Iterable<[Record<string, string>, number]>,
): void {
  const seen = new Map<string, number>();
  new client.Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      for (const [labels, now] of read()) {
        const key = JSON.stringify(labels);
        const delta = now - (seen.get(key) ?? 0);
        if (delta > 0) this.inc(labels, delta);
        seen.set(key, now);
      }
    },
  });
}

/** One unlabelled total, when it is known. */
const total = (read: () => number | undefined) => (): [Record<string, string>, number][] => {
  const now = read();
  return now === undefined ? [] : [[{}, now]];
};

export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests: client.Counter<'method' | 'route' | 'status'>;
  private readonly duration: client.Histogram<'method' | 'route'>;
  private readonly refusals: client.Counter<'reason'>;

  constructor(parts: { office: OfficePool | null; workers: DocumentWorkers; jobs?: JobRunner; store?: Store }) {
    const registers = [this.registry];
    client.collectDefaultMetrics({ register: this.registry, prefix: 'docsmith_' });
    this.requests = new client.Counter({
      name: 'docsmith_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.duration = new client.Histogram({
      name: 'docsmith_http_request_duration_seconds',
      help: 'Time to answer a request, by route',
      labelNames: ['method', 'route'],
      registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    });
    this.refusals = new client.Counter({
      name: 'docsmith_refusals_total',
      help: '403 answers by reason: quotas, merge slots, expired accounts, licences',
      labelNames: ['reason'],
      registers,
    });
    // Which build answers, for dashboards and alerts across instances (always 1, the facts in labels).
    new client.Gauge({
      name: 'docsmith_build_info',
      help: 'The docsmith version, Node.js version and kind of storage of this instance (value 1)',
      labelNames: ['version', 'node', 'storage'],
      registers,
    }).set({ version: VERSION, node: process.versions.node, storage: parts.store?.kind ?? 'none' }, 1);
    const office = parts.office;
    new client.Gauge({
      name: 'docsmith_office_processes',
      help: 'Office processes by state',
      labelNames: ['state'],
      registers,
      collect() {
        const status = office?.status();
        this.set({ state: 'configured' }, status?.configured ?? 0);
        this.set({ state: 'warm' }, status?.warm ?? 0);
        this.set({ state: 'busy' }, status?.busy ?? 0);
        this.set({ state: 'starting' }, status?.starting ?? 0);
      },
    });
    new client.Gauge({
      name: 'docsmith_office_queue_length',
      help: 'Office jobs waiting for a process',
      registers,
      collect() {
        this.set(office?.queueLength ?? 0);
      },
    });
    followingCounter(
      this.registry,
      'docsmith_office_jobs_total',
      'Office jobs run',
      [],
      total(() => office?.stats.jobs),
    );
    followingCounter(
      this.registry,
      'docsmith_office_restarts_total',
      'Office processes restarted',
      [],
      total(() => office?.stats.restarts),
    );
    followingCounter(
      this.registry,
      'docsmith_office_crashes_total',
      'Office processes that died during a job',
      [],
      total(() => office?.stats.crashes),
    );
    followingCounter(
      this.registry,
      'docsmith_office_timeouts_total',
      'Office jobs stopped by the time limit',
      [],
      total(() => office?.stats.timeouts),
    );
    followingCounter(
      this.registry,
      'docsmith_office_refused_total',
      'Office jobs refused (queue full or waited too long)',
      [],
      total(() => office?.stats.refused),
    );
    new client.Gauge({
      name: 'docsmith_document_threads',
      help: 'Worker threads for document work',
      registers,
      collect() {
        this.set(parts.workers.threads);
      },
    });
    const jobs = parts.jobs;
    new client.Gauge({
      name: 'docsmith_jobs_running',
      help: 'Background jobs this instance is running',
      registers,
      collect() {
        this.set(jobs?.active ?? 0);
      },
    });
    followingCounter(
      this.registry,
      'docsmith_jobs_finished_total',
      'Background jobs this instance finished, by outcome',
      ['outcome'],
      () =>
        jobs
          ? [
              [{ outcome: 'done' }, jobs.stats.done],
              [{ outcome: 'failed' }, jobs.stats.failed],
              [{ outcome: 'requeued' }, jobs.stats.requeued],
            ]
          : [],
    );
    // The queue as every instance sees it (the database's count), read at each scrape.
    const store = parts.store;
    if (store) {
      const queue = { at: 0, stats: Promise.resolve({ waiting: 0, oldestQueuedAt: null as Date | null }) };
      const stats = () => {
        // One read serves both gauges of a scrape; a database that does not answer leaves them at 0.
        if (Date.now() - queue.at > 1000) {
          queue.at = Date.now();
          queue.stats = store.jobs.queueStats().catch(() => ({ waiting: 0, oldestQueuedAt: null }));
        }
        return queue.stats;
      };
      new client.Gauge({
        name: 'docsmith_jobs_waiting',
        help: 'Background jobs of every instance queued and not yet started',
        registers,
        async collect() {
          this.set((await stats()).waiting);
        },
      });
      new client.Gauge({
        name: 'docsmith_jobs_oldest_waiting_seconds',
        help: 'How long the oldest queued background job has waited (0: none waits)',
        registers,
        async collect() {
          const oldest = (await stats()).oldestQueuedAt;
          this.set(oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
        },
      });
    }
    if (store?.statements) {
      const statements = store.statements.bind(store);
      followingCounter(
        this.registry,
        'docsmith_database_statements_total',
        'Statements this instance sent to PostgreSQL (round trips), health checks aside',
        [],
        () => [[{}, statements()]],
      );
    }
    followingCounter(
      this.registry,
      'docsmith_long_table_parts_total',
      'Parts of long tables laid out to PDF: in turn, ahead on a spare office process and kept, or ahead and dropped',
      ['laid'],
      () => [
        [{ laid: 'in_turn' }, longTableParts.inTurn],
        [{ laid: 'ahead' }, longTableParts.ahead],
        [{ laid: 'discarded' }, longTableParts.discarded],
      ],
    );
    followingCounter(
      this.registry,
      'docsmith_long_table_parts_kept_layout_total',
      'Parts of long tables laid out ahead that kept their layout: their true start began one of their pages, so only the pages before it were left out',
      [],
      () => [[{}, longTableParts.keptLayout]],
    );
    followingCounter(
      this.registry,
      'docsmith_long_table_odt_parts_total',
      'Parts of long tables the office read from ODT made from its own ODT of the table (faster to read than DOCX)',
      [],
      () => [[{}, longTableParts.fromOdt]],
    );
    followingCounter(this.registry, 'docsmith_job_callbacks_total', 'Job callback attempts, by result', ['result'], () =>
      jobs
        ? [
            [{ result: 'delivered' }, jobs.stats.callbacksDelivered],
            [{ result: 'failed' }, jobs.stats.callbackAttemptsFailed],
          ]
        : [],
    );
    followingCounter(
      this.registry,
      'docsmith_cache_lookups_total',
      'Cache lookups (compiled templates in the worker threads and for merges on the event loop, normalised DOC/RTF, rendered PDFs), by cache and result',
      ['cache', 'result'],
      () =>
        [...cacheLookups()].flatMap(([cache, counts]): [Record<string, string>, number][] => [
          [{ cache, result: 'hit' }, counts.hits],
          [{ cache, result: 'miss' }, counts.misses],
        ]),
    );
  }

  answered(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ method, route }, seconds);
  }

  refused(reason: Refusal): void {
    this.refusals.inc({ reason });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
