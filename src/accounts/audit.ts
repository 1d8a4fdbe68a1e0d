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

export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly retentionDays: number,
    private readonly log: (level: 'warn' | 'info', message: string, details: Record<string, unknown>) => void = () => undefined,
  ) {}

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
    const prune = () =>
      void this.store.audit.prune(new Date(Date.now() - this.retentionDays * DAY_MS)).then(
        (removed) => removed > 0 && this.log('info', 'removed audit log entries past their retention', { removed }),
        (error: Error) => this.log('warn', 'pruning the audit log failed', { reason: error.message }),
      );
    prune();
    const timer = setInterval(prune, HOUR_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
