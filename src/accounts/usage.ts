import type { Account, Store, TemplateMeta, UsageHold } from '../store/types.js';
import { ForbiddenError } from '../errors.js';
import { withTimeLimit } from '../util/timeLimit.js';
import { formatWireDate } from '../util/dates.js';
import { allowsTestRuns } from './licence.js';

export interface GuardOptions {
  /** A test run: watermarked, not counted, paid licences only. */
  test: boolean;
  /** Merges also hold one of the account's concurrent-merge slots. */
  merge: boolean;
  /** The processing limit for this work (background jobs have their own); default: the request limit. */
  timeLimitMs?: number;
  /** Stops the work from outside (a cancelled job, a stopping server). */
  signal?: AbortSignal;
  /** Names the work (a job's id): its document counts once however often it is taken up, and its outcome commits it. */
  workKey?: string;
  /** The stored template (its normal name) the work reads: its version comes with the claim and reaches the work. */
  template?: string;
}

/** What the claim read for the work: the stored template's current version (null: there is none). */
export interface Claimed {
  template?: TemplateMeta | null;
}

/**
 * Wraps every counted document operation: licence and validity, the per-account merge slots,
 * the document quota (reserved before the work, committed once the answer is delivered, refunded
 * if either fails) and the processing limit.
 */
export class UsageGuard {
  /** A delivered document whose count could not be written for ten minutes (logged by the service). */
  onLost?: (error: Error) => void;

  constructor(
    private readonly store: Store,
    private readonly limits: { maxConcurrentMerges: number; processingLimitMs: number },
  ) {}

  /**
   * How long a reservation may stay open before it counts as orphaned (its instance died during
   * the work): well past the processing limit, so live work is never refunded.
   */
  reservationLeaseMs(limitMs = this.limits.processingLimitMs): number {
    return limitMs * 2 + 5_000;
  }

  /** Takes back reservations of instances that died mid-work, now and then periodically; returns a stop function. */
  sweepOrphanedReservations(log?: (refunded: number) => void): () => void {
    const sweep = () => {
      this.store.usage.refundExpired().then(
        (n) => {
          if (n > 0) log?.(n);
        },
        () => undefined,
      );
    };
    sweep();
    const timer = setInterval(sweep, Math.min(60_000, this.reservationLeaseMs()));
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Counts one proofing transaction (check or suggestions) of the account; 403 when its quota is used up. */
  async countProofing(account: Account): Promise<void> {
    if (!(await this.store.usage.reserveProofing(account.id))) {
      throw new ForbiddenError(
        `The proofing quota of this account is used up (${account.maxProofingTransactions} transactions).`,
        'proofing',
      );
    }
  }

  /** The account may run such work at all (valid, licence allows test runs): 403 otherwise. */
  check(account: Account, options: { test: boolean }): void {
    if (account.validUntil && account.validUntil.getTime() < Date.now()) {
      throw new ForbiddenError(
        `This account was valid until ${formatWireDate(account.validUntil)}; ask the operator to extend it.`,
        'expired',
      );
    }
    if (options.test && !allowsTestRuns(account.licence)) {
      throw new ForbiddenError(
        `Test runs (test=true) are not available with a ${account.licence} licence; send the request without test=true.`,
        'licence',
      );
    }
  }

  /**
   * Runs `work` under the limit, then `deliver`s its result (outside the limit, with the slot still
   * held): the document counts only once the answer is on its way, so one lost in a crash or a
   * dropped connection is not counted and its retry counts once.
   */
  async run<T>(
    account: Account,
    options: GuardOptions,
    work: (signal: AbortSignal, deadline: number | undefined, claimed: Claimed) => Promise<T>,
    deliver?: (result: T) => Promise<void>,
  ): Promise<T> {
    this.check(account, options);
    const limitMs = options.timeLimitMs ?? this.limits.processingLimitMs;
    const claim = await this.store.usage.claim(account.id, {
      slot: options.merge ? { limit: this.limits.maxConcurrentMerges, leaseMs: limitMs + 30_000 } : undefined,
      documentLeaseMs: options.test ? undefined : this.reservationLeaseMs(limitMs),
      workKey: options.workKey,
      template: options.template,
    });
    if ('refused' in claim && claim.refused === 'slots') {
      throw new ForbiddenError(
        `At most ${this.limits.maxConcurrentMerges} merge requests may run at once for one account; retry when one has finished.`,
        'merge_slots',
      );
    }
    if ('refused' in claim) {
      throw new ForbiddenError(`The document quota of this account is used up (${account.maxDocuments} documents).`, 'documents');
    }
    let result: T;
    try {
      const claimed: Claimed = options.template === undefined ? {} : { template: claim.template };
      result = await withTimeLimit(limitMs, (signal, deadline) => work(signal, deadline, claimed), options.signal);
      // The work is done: its merge slot is free before the answer goes out, so a client that
      // has its answer can start the next merge at once (the document settles after delivery).
      if (deliver) await claim.granted.releaseSlot().catch(() => undefined);
      await deliver?.(result);
    } catch (error) {
      // Not taken back now (the database is away): the sweep takes it back when its lease runs out.
      await claim.granted.settle(false).catch(() => undefined);
      throw error;
    }
    if (!deliver) {
      await claim.granted.settle(true);
    } else {
      // The answer is out: it counts, however long the database takes to come back.
      await claim.granted.settle(true).catch(() => this.settleLater(claim.granted));
    }
    return result;
  }

  /** Commits a delivered document once the store answers again: every few seconds, for up to ten minutes. */
  private settleLater(hold: UsageHold, attempt = 1): void {
    const timer = setTimeout(
      () => {
        hold.settle(true).catch((error: Error) => {
          if (attempt < 120) this.settleLater(hold, attempt + 1);
          else this.onLost?.(error);
        });
      },
      Math.min(5_000, 250 * 2 ** attempt),
    );
    timer.unref();
  }
}
