/**
 * An account's audit log: who did what to it, when and from where. Sign-in failures, keys made,
 * renamed and revoked, templates uploaded, replaced, rolled back and deleted, account changes by
 * the operator, PDFs signed. Kept DOCSMITH_AUDIT_DAYS days. A write that fails is logged, not answered: the
 * change it records has happened.
 */
import type { AuditEvent, Store } from '../store/types.js';
import type { KeyIdentity } from '../auth/authenticate.js';

export interface Who {
  /** 'key 3 "Billing"', 'password', 'operator (CLI)'. */
  actor: string;
  address: string | null;
}

export const OPERATOR: Who = { actor: 'operator (CLI)', address: null };

/** The operator through the operator API (DOCSMITH_OPERATOR_TOKEN), from an address. */
export function operatorApi(address: string): Who {
  return { actor: 'operator (API)', address };
}

/** Who a request is: the key it signed in with (by number and name), or the account's password. */
export function whoOf(key: KeyIdentity | null, address: string): Who {
  return { actor: key ? `key ${key.id}${key.name ? ` "${key.name}"` : ''}` : 'password', address };
}

export type AuditAction =
  | 'sign-in failed'
  | 'key created'
  | 'key renamed'
  | 'key revoked'
  | 'template uploaded'
  | 'template replaced'
  | 'template rolled back'
  | 'template deleted'
  | 'account created'
  | 'account changed'
  | 'PDF signed';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Failed sign-ins are written one by one up to this many per account and hour (on each instance);
 * past it they are counted, and the count is written as one entry when the hour is over, so that
 * outsiders guessing from many addresses cannot grow an account's log without bound.
 */
export const FAILURES_LISTED_PER_HOUR = 20;

interface FailureWindow {
  start: number;
  listed: number;
  counted: number;
  last: Who;
}

export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly retentionDays: number,
    private readonly log: (level: 'warn' | 'info', message: string, details: Record<string, unknown>) => void = () => undefined,
  ) {}

  private readonly failures = new Map<number, FailureWindow>();

  /** A failed sign-in: listed, or past the hour's cap only counted (see FAILURES_LISTED_PER_HOUR). */
  async signInFailed(accountId: number, who: Who, detail: string, now = Date.now()): Promise<void> {
    let window = this.failures.get(accountId);
    if (window && now - window.start >= HOUR_MS) {
      await this.summarise(accountId, window);
      window = undefined;
    }
    if (!window) {
      window = { start: now, listed: 0, counted: 0, last: who };
      this.failures.set(accountId, window);
    }
    window.last = who;
    if (window.listed < FAILURES_LISTED_PER_HOUR) {
      window.listed++;
      await this.record(accountId, 'sign-in failed', who, detail);
    } else {
      window.counted++;
    }
  }

  /** Writes the counts of hours that are over (the hourly prune calls it; `now` for tests). */
  async flushFailures(now = Date.now()): Promise<void> {
    for (const [accountId, window] of [...this.failures]) {
      if (now - window.start < HOUR_MS) continue;
      this.failures.delete(accountId);
      await this.summarise(accountId, window);
    }
  }

  private async summarise(accountId: number, window: FailureWindow): Promise<void> {
    this.failures.delete(accountId);
    if (window.counted === 0) return;
    const from = new Date(window.start).toISOString();
    await this.record(
      accountId,
      'sign-in failed',
      { actor: window.last.actor, address: null },
      `${window.counted} more failed sign-ins in the hour from ${from}, counted, not listed (at most ${FAILURES_LISTED_PER_HOUR} an hour are)`,
    );
  }

  async record(accountId: number, action: AuditAction, who: Who, detail = ''): Promise<void> {
    try {
      await this.store.audit.add({ accountId, action, actor: who.actor, address: who.address, detail });
    } catch (error) {
      this.log('warn', 'an audit log entry could not be written', { accountId, action, detail, reason: (error as Error).message });
    }
  }

  list(accountId: number, limit: number, before?: number): Promise<AuditEvent[]> {
    return this.store.audit.list(accountId, { limit, ...(before === undefined ? {} : { before }) });
  }

  /** Removes entries past the retention now and every hour; returns the stop. */
  start(): () => void {
    const prune = () => {
      void this.flushFailures();
      void this.store.audit.prune(new Date(Date.now() - this.retentionDays * DAY_MS)).then(
        (removed) => removed > 0 && this.log('info', 'removed audit log entries past their retention', { removed }),
        (error: Error) => this.log('warn', 'pruning the audit log failed', { reason: error.message }),
      );
    };
    prune();
    const timer = setInterval(prune, HOUR_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
