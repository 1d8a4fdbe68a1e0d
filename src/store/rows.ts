import type {
  Account,
  ApiKeyRecord,
  AuditEvent,
  NewAuditEvent,
  JobKind,
  JobProgress,
  JobRecord,
  JobState,
  JobSummary,
  NewTemplate,
  TemplateMeta,
} from './types.js';

/** Column lists and row mapping shared by both SQL backends (times are epoch milliseconds). */
export const accountColumns =
  'id, username, password_hash, licence, max_documents, max_templates, max_proofing, valid_until, created_documents, proofing_transactions, created_at, usage_month, pdf_signature, signing_grant';

/** The calendar month (UTC) usage counts belong to, as stored: `2026-11`. */
export function usageMonth(at = new Date()): string {
  return at.toISOString().slice(0, 7);
}

/**
 * Counts one document or proofing transaction if the account is below its limit, in one statement
 * on both databases: a new calendar month starts both counts again (the first count only stamps
 * the month). `month` and `id` are the dialect's parameter placeholders.
 */
export function countUsageSql(counter: 'documents' | 'proofing', month: string, id: string): string {
  const [column, other, max] =
    counter === 'documents'
      ? ['created_documents', 'proofing_transactions', 'max_documents']
      : ['proofing_transactions', 'created_documents', 'max_proofing'];
  const stale = `usage_month IS NOT NULL AND usage_month <> ${month}`;
  return `UPDATE accounts SET
      ${column} = CASE WHEN ${stale} THEN 1 ELSE ${column} + 1 END,
      ${other} = CASE WHEN ${stale} THEN 0 ELSE ${other} END,
      usage_month = ${month}
    WHERE id = ${id} AND (CASE WHEN ${stale} THEN 0 ELSE ${column} END) < ${max}`;
}

type Num = number | string;

export interface AccountRow {
  id: Num;
  username: string;
  password_hash: string;
  licence: string;
  max_documents: Num;
  max_templates: Num;
  max_proofing: Num;
  valid_until: Num | null;
  created_documents: Num;
  proofing_transactions: Num;
  created_at: Num;
  usage_month?: string | null;
  pdf_signature?: string | null;
  signing_grant?: Num | boolean | null;
}

export interface ApiKeyRow {
  id: Num;
  account_id: Num;
  key_hash: string;
  key_sealed: string;
  active: Num | boolean;
  created_at: Num;
  name?: string | null;
  last_used_at?: Num | null;
  scope?: string | null;
}

export interface TemplateRow {
  name: string;
  format: string;
  size: Num;
  sha256: string;
  modified_at: Num;
  version?: Num | null;
  syntax?: string | null;
}

export function rowToAccount(r: AccountRow): Account {
  return {
    id: Number(r.id),
    username: r.username,
    passwordHash: r.password_hash,
    licence: r.licence,
    maxDocuments: Number(r.max_documents),
    maxTemplates: Number(r.max_templates),
    maxProofingTransactions: Number(r.max_proofing),
    validUntil: r.valid_until === null ? null : new Date(Number(r.valid_until)),
    // Counts of an earlier month are this month's zero (they are reset at the next count).
    createdDocuments: r.usage_month == null || r.usage_month === usageMonth() ? Number(r.created_documents) : 0,
    proofingTransactions: r.usage_month == null || r.usage_month === usageMonth() ? Number(r.proofing_transactions) : 0,
    createdAt: new Date(Number(r.created_at)),
    pdfSignature: r.pdf_signature ?? 'none',
    signingGrant: Boolean(Number(r.signing_grant ?? 0)),
  };
}

export function rowToApiKey(r: ApiKeyRow): ApiKeyRecord {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    keyHash: r.key_hash,
    keySealed: r.key_sealed,
    active: r.active === true || Number(r.active) === 1,
    createdAt: new Date(Number(r.created_at)),
    name: r.name ?? '',
    lastUsedAt: r.last_used_at == null ? null : new Date(Number(r.last_used_at)),
    scope: r.scope ?? 'full',
  };
}

/** A template's syntax as its column keeps it: NULL for Word merge fields, which instances from before the column read. */
export const storedSyntax = (t: NewTemplate): string | null => (t.syntax && t.syntax !== 'word' ? t.syntax : null);

export function rowToTemplateMeta(r: TemplateRow): TemplateMeta {
  return {
    name: r.name,
    format: r.format,
    size: Number(r.size),
    sha256: r.sha256,
    modifiedAt: new Date(Number(r.modified_at)),
    version: r.version == null ? 1 : Number(r.version),
    syntax: r.syntax ?? 'word',
  };
}

/** Every job column but the request and result bytes. */
/** A job's columns; `bytes` is the dialect's byte length function (the result's size). */
export const jobColumns = (bytes: 'length' | 'octet_length') =>
  `id, account_id, kind, state, created_at, started_at, finished_at, expires_at, attempts, progress, error_status, error_message, callback_url, callback_state, callback_attempts, callback_error, summary, ${bytes}(result) AS result_bytes`;

export interface JobRow {
  id: string;
  account_id: Num;
  kind: string;
  state: string;
  created_at: Num;
  started_at: Num | null;
  finished_at: Num | null;
  expires_at: Num | null;
  attempts: Num;
  progress: string | null;
  error_status: Num | null;
  error_message: string | null;
  callback_url: string | null;
  callback_state: string | null;
  callback_attempts: Num;
  callback_error: string | null;
  summary: string | null;
  result_bytes: Num | null;
}

const dateOrNull = (value: Num | null) => (value === null ? null : new Date(Number(value)));

export function rowToJob(r: JobRow): JobRecord {
  return {
    id: r.id,
    accountId: Number(r.account_id),
    kind: r.kind as JobKind,
    state: r.state as JobState,
    createdAt: new Date(Number(r.created_at)),
    startedAt: dateOrNull(r.started_at),
    finishedAt: dateOrNull(r.finished_at),
    expiresAt: dateOrNull(r.expires_at),
    attempts: Number(r.attempts),
    progress: r.progress ? (JSON.parse(r.progress) as JobProgress) : null,
    summary: r.summary ? (JSON.parse(r.summary) as JobSummary) : null,
    resultBytes: r.result_bytes === null ? null : Number(r.result_bytes),
    error: r.error_status === null ? null : { status: Number(r.error_status), message: r.error_message ?? '' },
    callback:
      r.callback_url === null
        ? null
        : {
            url: r.callback_url,
            state: (r.callback_state ?? 'pending') as 'pending' | 'delivered' | 'failed',
            attempts: Number(r.callback_attempts),
            lastError: r.callback_error,
          },
  };
}

export interface AuditRow {
  id: Num;
  account_id: Num;
  at: Num;
  action: string;
  actor: string;
  address: string | null;
  detail: string;
}

/** The insert both stores use, and an event's values in its order. */
export const AUDIT_INSERT = 'INSERT INTO audit_events (account_id, at, action, actor, address, detail)';
export const auditValues = (e: NewAuditEvent): [number, number, string, string, string | null, string] => [
  e.accountId,
  (e.at ?? new Date()).getTime(),
  e.action,
  e.actor,
  e.address,
  e.detail,
];

export function rowToAuditEvent(r: AuditRow): AuditEvent {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    at: new Date(Number(r.at)),
    action: r.action,
    actor: r.actor,
    address: r.address,
    detail: r.detail,
  };
}
