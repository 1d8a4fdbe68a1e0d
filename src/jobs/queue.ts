/** Queuing a request as a background job: checked as far as it can be now, then stored for any instance. */
import { randomUUID } from 'node:crypto';
import type { JobsConfig } from '../config.js';
import type { UsageGuard } from '../accounts/usage.js';
import type { DocumentPipeline } from '../operations/io.js';
import { DocsmithError } from '../errors.js';
import type { JobRequest } from '../operations/kinds/index.js';
import { jobHooks, serialiseRequest } from './stored.js';
import type { Account, JobRecord, JobSummary, Store } from '../store/types.js';
import type { CallbackPolicy } from './callbacks.js';
import type { StorageQuota } from '../accounts/storage.js';
import type { Door } from '../operations/door/door.js';

export class JobQueue {
  /** Called when a job is queued here (the local runner looks for work at once). */
  onQueued: () => void = () => undefined;

  constructor(
    private readonly parts: {
      store: Store;
      config: JobsConfig;
      usage: UsageGuard;
      pipeline: DocumentPipeline;
      policy: CallbackPolicy;
      quota: StorageQuota;
      /** Refusals the door would give before any work (signing): given at submission instead. */
      door: Pick<Door, 'signingPlan'>;
    },
  ) {}

  /** Queues the request; a submission with an idempotency key the account used before answers the job it made then. */
  async submit(account: Account, request: JobRequest, callbackUrl: string | undefined, idempotencyKey?: string): Promise<JobRecord> {
    const { store, config, usage, pipeline, policy } = this.parts;
    // What can be known now answers now: the licence, the template, the callback address.
    usage.check(account, request);
    await this.parts.door.signingPlan(account, request);
    const template = jobHooks(request.kind).template?.(request);
    if (template) await pipeline.checkTemplateSource(account, template);
    const callback = callbackUrl === undefined ? null : (await policy.check(callbackUrl)).href;
    const id = randomUUID();
    const stored = serialiseRequest(request);
    // The request waits in the database, and its result stays there: both count.
    await this.parts.quota.check(account.id, stored.length);
    const added = await store.jobs.add(
      {
        id,
        accountId: account.id,
        kind: request.kind,
        request: stored,
        callbackUrl: callback,
        idempotencyKey,
        summary: summaryOf(request),
      },
      config.maxWaiting,
    );
    if (typeof added === 'object') {
      const earlier = await store.jobs.get(account.id, added.existing);
      if (earlier) return earlier;
    }
    if (added === 'limit') {
      throw new DocsmithError(
        429,
        `This account has ${config.maxWaiting} jobs queued or running, the most this server keeps (DOCSMITH_JOB_MAX_WAITING); wait for one to finish.`,
        { 'retry-after': '10' },
      );
    }
    this.onQueued();
    return (await store.jobs.get(account.id, id))!;
  }
}

/** What the job works on, for its owner's list. */
export function summaryOf(request: JobRequest): JobSummary {
  return jobHooks(request.kind).summary(request);
}
