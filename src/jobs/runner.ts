/**
 * Runs background jobs: takes up due jobs from the store (any instance may), performs them as the
 * synchronous endpoint would, keeps the result, and delivers callbacks. A job whose instance
 * stops is put back (or, if the instance dies, taken over when its lease runs out).
 */
import type { Logger } from '../util/log.js';
import type { JobsConfig } from '../config.js';
import type { ClaimedJob, JobProgress, JobRecord, Store } from '../store/types.js';
import type { Door } from '../operations/door/door.js';
import { deserialiseRequest } from './stored.js';
import { BusyError, DocsmithError, ForbiddenError } from '../errors.js';
import { postCallback, signCallback, type CallbackPolicy } from './callbacks.js';
import type { StorageQuota } from '../accounts/storage.js';
import { documentsJson } from '../operations/answer.js';
import { asStorageUnavailable } from '../store/errors.js';

/** A running job's lease: renewed every third of it, so a dead instance's job waits at most this long. */
const LEASE_MS = 30_000;
/** Take-ups after which a job that keeps stopping its instance fails instead of running again. */
const MAX_ATTEMPTS = 3;
const SWEEP_MS = 60_000;
/** Callback deliveries under way at once on one instance, and of those at most this many for one account. */
const CALLBACKS_AT_ONCE = 8;
const CALLBACKS_PER_ACCOUNT = 2;

/**
 * Writes a job's outcome, trying again while the database is away, for as long as the job's lease
 * lasts (after that another instance may have taken it up): an outage that the lease outlives does
 * not cost the job an attempt.
 */
async function whileLeased<T>(write: () => Promise<T>): Promise<T> {
  const until = Date.now() + LEASE_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof Error && asStorageUnavailable(error)) || Date.now() + wait > until) throw error;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

class Stopping extends Error {}
class Cancelled extends Error {}

export interface JobRunnerParts {
  store: Store;
  door: Door;
  config: JobsConfig;
  /** Where callbacks may go, and each account's signing secret. */
  callbacks: { policy: CallbackPolicy; secretFor(accountId: number): string };
  /** Results are kept only while the account's storage has room for them (413 otherwise). */
  quota: StorageQuota;
  log: Logger;
}

/** What a callback receiver gets (and what `GET /v1/jobs/{id}` shows, in part). */
export function callbackPayload(job: JobRecord): Record<string, unknown> {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    expiresAt: job.expiresAt?.toISOString() ?? null,
    error: job.error,
    status: `/v1/jobs/${job.id}`,
    result: job.state === 'done' ? `/v1/jobs/${job.id}/result` : null,
  };
}

/** What this instance's runner did, for /metrics. */
export interface JobStats {
  done: number;
  failed: number;
  /** Put back in the queue: waiting for a merge slot or the office, or a stop. */
  requeued: number;
  callbacksDelivered: number;
  callbackAttemptsFailed: number;
}

export class JobRunner {
  readonly stats: JobStats = { done: 0, failed: 0, requeued: 0, callbacksDelivered: 0, callbackAttemptsFailed: 0 };
  private readonly running = new Map<string, AbortController>();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private polling: Promise<void> | null = null;
  private pollAgain = false;
  private claimingCallbacks = false;
  /** Deliveries under way: job id to account id. */
  private readonly delivering = new Map<string, number>();

  constructor(private readonly parts: JobRunnerParts) {}

  get active(): number {
    return this.running.size;
  }

  start(): void {
    const { config } = this.parts;
    this.timers.push(setInterval(() => this.wake(), config.pollMs));
    this.timers.push(setInterval(() => void this.sweep(), SWEEP_MS));
    for (const timer of this.timers) timer.unref();
    this.wake();
    void this.sweep();
  }

  /** Looks for work now (a job was just queued here, or one ended). */
  wake(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.poll()
      .catch((error: Error) => this.parts.log('warn', 'looking for jobs failed', { reason: error.message }))
      .finally(() => {
        this.polling = null;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.wake();
        }
      });
    void this.deliverCallbacks();
  }

  /** What was last said about the schema (logged once per change). */
  private schemaProblem: string | undefined;

  /**
   * Whether this instance may take jobs: not on a schema outside its range (a rolling upgrade went
   * past it), where it is unready too. Asked before each look for work: the database alone, one
   * small statement (a bucket is not asked every poll).
   */
  private async mayTakeJobs(): Promise<boolean> {
    try {
      await this.parts.store.schema();
      if (this.schemaProblem !== undefined) this.parts.log('info', 'taking jobs again: the database schema is servable', {});
      this.schemaProblem = undefined;
      return true;
    } catch (error) {
      const reason = (error as Error).message;
      if (reason !== this.schemaProblem) this.parts.log('warn', 'taking no jobs while the database cannot be served', { reason });
      this.schemaProblem = reason;
      return false;
    }
  }

  private async poll(): Promise<void> {
    const { store, config } = this.parts;
    if (!(await this.mayTakeJobs())) return;
    while (!this.stopped && this.running.size < config.concurrency) {
      const claimed = await store.jobs.claim(LEASE_MS);
      if (!claimed) return;
      if (this.stopped) {
        await store.jobs.requeue(claimed.job.id, claimed.holder, 0);
        return;
      }
      // A store that fails while the job's outcome is written leaves it to the lease: taken up again later.
      void this.run(claimed).catch((error: Error) =>
        this.parts.log('warn', "recording a job's outcome failed", { job: claimed.job.id, reason: error.message }),
      );
    }
  }

  private async run(claimed: ClaimedJob): Promise<void> {
    const { store, door, config, log } = this.parts;
    const { job, holder } = claimed;
    const controller = new AbortController();
    this.running.set(job.id, controller);
    let progress: JobProgress | undefined;
    let written = 0;
    const renew = async () => {
      written = Date.now();
      if (!(await store.jobs.renew(job.id, holder, LEASE_MS, progress).catch(() => true)))
        controller.abort(new Cancelled('the job was deleted'));
    };
    const renewal = setInterval(() => void renew(), LEASE_MS / 3);
    renewal.unref();
    let trailing: NodeJS.Timeout | undefined;
    const finish = async (outcome: Parameters<Store['jobs']['finish']>[2]) => {
      if ('result' in outcome) this.stats.done++;
      else this.stats.failed++;
      if (!(await whileLeased(() => store.jobs.finish(job.id, holder, outcome, config.retentionMs))))
        log('info', 'job ended after it was deleted or taken over', { job: job.id });
    };
    try {
      if (job.attempts > MAX_ATTEMPTS) {
        await finish({ error: { status: 500, message: `The job stopped the server running it ${MAX_ATTEMPTS} times and was given up.` } });
        return;
      }
      const account = await store.accounts.byId(job.accountId);
      if (!account) return; // the account is gone, and its jobs with it
      let result: Buffer = Buffer.alloc(0);
      await door.perform(account, deserialiseRequest(claimed.request), {
        timeLimitMs: config.timeLimitMs,
        signal: controller.signal,
        // Counted once: a later attempt (this instance died) takes the reservation over, and finish commits it.
        workKey: job.id,
        who: { actor: `job ${job.id}`, address: null },
        // The result stays in the database: it must fit the account's storage (else 413, and the document is not counted).
        accept: async (answer) => {
          result = await documentsJson(answer.documents, answer.list);
          await this.parts.quota.check(job.accountId, result.length, claimed.request.length);
        },
        // Written at most once a second; the latest step is written when the second is up, not at the next renewal.
        progress: (p) => {
          progress = p;
          const wait = written + 1000 - Date.now();
          if (wait <= 0) void renew();
          else
            trailing ??= setTimeout(() => {
              trailing = undefined;
              void renew();
            }, wait);
        },
      });
      await finish({ result });
      log('info', 'job done', { job: job.id, kind: job.kind });
    } catch (thrown) {
      // The database went away during the work: the job waits for it, as a request would retry.
      const error = asStorageUnavailable(thrown) ?? thrown;
      if (error instanceof Cancelled) {
        log('info', 'job cancelled', { job: job.id });
      } else if (error instanceof Stopping) {
        this.stats.requeued++;
        await whileLeased(() => store.jobs.requeue(job.id, holder, 0));
      } else if ((error instanceof ForbiddenError && error.refusal === 'merge_slots') || error instanceof BusyError) {
        // The account's merge slots, the office or the database are busy: wait, as a request would retry.
        this.stats.requeued++;
        await whileLeased(() => store.jobs.requeue(job.id, holder, 2000));
      } else if (error instanceof DocsmithError) {
        await finish({ error: { status: error.status, message: error.message } });
        log('info', 'job failed', { job: job.id, status: error.status, reason: error.message });
      } else {
        log('error', 'job failed unexpectedly', { job: job.id, reason: (error as Error).stack ?? String(error) });
        await finish({
          error: { status: 500, message: `The job failed unexpectedly; the server log has the details (job ${job.id}).` },
        }).catch(() => undefined);
      }
    } finally {
      clearInterval(renewal);
      clearTimeout(trailing);
      this.running.delete(job.id);
      this.wake();
    }
  }

  /**
   * Keeps up to CALLBACKS_AT_ONCE deliveries under way, at most CALLBACKS_PER_ACCOUNT of them for
   * one account, each a single attempt under a total time limit; failures come due again with a
   * doubling wait. An account whose receivers hang holds only its own slots, never another's.
   */
  private async deliverCallbacks(): Promise<void> {
    const { store, config, log } = this.parts;
    if (this.claimingCallbacks || this.stopped) return;
    this.claimingCallbacks = true;
    try {
      while (!this.stopped && this.delivering.size < CALLBACKS_AT_ONCE) {
        const perAccount = new Map<number, number>();
        for (const accountId of this.delivering.values()) perAccount.set(accountId, (perAccount.get(accountId) ?? 0) + 1);
        const full = [...perAccount].filter(([, n]) => n >= CALLBACKS_PER_ACCOUNT).map(([id]) => id);
        // One at a time, so one claim never takes more than an account's share.
        const [job] = await store.jobs.claimCallbacks(config.callbackTimeoutMs + 5000, 1, full);
        if (!job) return;
        this.delivering.set(job.id, job.accountId);
        void this.deliver(job).finally(() => {
          this.delivering.delete(job.id);
          void this.deliverCallbacks();
        });
      }
    } catch (error) {
      log('warn', 'delivering job callbacks failed', { reason: (error as Error).message });
    } finally {
      this.claimingCallbacks = false;
    }
  }

  private async deliver(job: JobRecord): Promise<void> {
    const { store, config, callbacks, log } = this.parts;
    const body = JSON.stringify(callbackPayload(job));
    const attempt = job.callback?.attempts ?? 1; // counted when it was taken up
    try {
      await postCallback(
        job.callback!.url,
        body,
        {
          'x-docsmith-job': job.id,
          // The same for every attempt of this job's callback: receivers de-duplicate on it (delivery is at least once).
          'x-docsmith-delivery': `${job.id}.callback`,
          'x-docsmith-delivery-attempt': String(attempt),
          'x-docsmith-signature': signCallback(callbacks.secretFor(job.accountId), body),
        },
        callbacks.policy,
        config.callbackTimeoutMs,
      );
      await store.jobs.callbackAttempted(job.id, { delivered: true });
      this.stats.callbacksDelivered++;
    } catch (error) {
      this.stats.callbackAttemptsFailed++;
      const reason = (error as Error).message;
      const last = attempt >= config.callbackAttempts;
      await store.jobs
        .callbackAttempted(job.id, {
          delivered: false,
          error: reason,
          retryInMs: last ? null : Math.min(3_600_000, config.callbackBackoffMs * 2 ** (attempt - 1)),
        })
        .catch((stored: Error) => log('warn', 'recording a callback attempt failed', { job: job.id, reason: stored.message }));
      log(last ? 'warn' : 'info', last ? 'job callback failed for good' : 'job callback failed; retrying', {
        job: job.id,
        attempt,
        reason,
      });
    }
  }

  private async sweep(): Promise<void> {
    const removed = await this.parts.store.jobs.deleteExpired().catch(() => 0);
    if (removed > 0) this.parts.log('info', 'removed finished jobs past their retention', { removed });
  }

  /**
   * Stops taking up jobs; running ones get `graceMs` to finish, then go back to the queue for the
   * next instance (or this one's next start).
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.polling;
    const deadline = Date.now() + graceMs;
    while (this.running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const controller of this.running.values()) controller.abort(new Stopping('the server is stopping'));
    while (this.running.size > 0) await new Promise((r) => setTimeout(r, 20));
  }
}
