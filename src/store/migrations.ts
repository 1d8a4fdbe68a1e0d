/**
 * Schema versions, applied in order on start. Append new entries; never edit an applied one.
 * Entries expand the schema (older instances keep serving on it during a rolling upgrade); a
 * contraction raises the OLDEST_READER below, a release after the code stopped needing the old part.
 * Times are epoch milliseconds in both dialects.
 */
/** Jobs: work that outlives a request (async merge, append, convert), with its callback delivery. */
function jobsTable(bytes: string, time: string): string {
  return `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     kind TEXT NOT NULL,
     state TEXT NOT NULL,
     request ${bytes},
     created_at ${time} NOT NULL,
     due_at ${time} NOT NULL,
     started_at ${time},
     finished_at ${time},
     expires_at ${time},
     holder TEXT,
     lease_until ${time},
     attempts INTEGER NOT NULL DEFAULT 0,
     progress TEXT,
     error_status INTEGER,
     error_message TEXT,
     result ${bytes},
     callback_url TEXT,
     callback_state TEXT,
     callback_attempts INTEGER NOT NULL DEFAULT 0,
     callback_due_at ${time},
     callback_error TEXT
   );
   CREATE INDEX jobs_due ON jobs(state, due_at);
   CREATE INDEX jobs_account ON jobs(account_id, created_at);
   CREATE INDEX jobs_callbacks ON jobs(callback_state, callback_due_at);
   CREATE INDEX jobs_expiry ON jobs(expires_at);`;
}

/**
 * Counted once. A reservation made for a job names it: the job's later attempts take it over
 * instead of counting the document again, and the job's outcome settles it in the same statement.
 * The sweep marks a reservation it takes back (refunded_at) instead of removing it, so a commit
 * that comes later (a slow delivery, a retry after a lost connection) knows whether to count it
 * again; marked rows are removed after a week.
 */
const workKeys = (time: string) => `ALTER TABLE document_reservations ADD COLUMN work_key TEXT;
   ALTER TABLE document_reservations ADD COLUMN refunded_at ${time};
   CREATE UNIQUE INDEX document_reservations_work ON document_reservations(work_key) WHERE refunded_at IS NULL`;

/** A submission's Idempotency-Key: sent again (a retry after a lost answer), it names the job already queued. */
const JOB_IDEMPOTENCY = `ALTER TABLE jobs ADD COLUMN idempotency_key TEXT;
   CREATE UNIQUE INDEX jobs_idempotency ON jobs(account_id, idempotency_key) WHERE idempotency_key IS NOT NULL`;

/** Template versions: the current one's number, and the earlier ones kept on replacement. */
const templateVersions = (bytes: string, time: string) => `ALTER TABLE templates ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
   CREATE TABLE template_versions (
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     version INTEGER NOT NULL,
     format TEXT NOT NULL,
     size ${time === 'BIGINT' ? 'BIGINT' : 'INTEGER'} NOT NULL,
     sha256 TEXT NOT NULL,
     modified_at ${time} NOT NULL,
     data ${bytes} NOT NULL,
     PRIMARY KEY (account_id, name, version)
   )`;

/** What an API key may do (auth/scopes.ts); keys made before scopes can do everything. */
const KEY_SCOPE = "ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'full'";

/** An account's audit log: sign-in failures, keys, templates and account changes, kept DOCSMITH_AUDIT_DAYS. */
const auditEvents = (id: string, time: string) => `CREATE TABLE audit_events (
     id ${id},
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     at ${time} NOT NULL,
     action TEXT NOT NULL,
     actor TEXT NOT NULL,
     address TEXT,
     detail TEXT NOT NULL DEFAULT ''
   );
   CREATE INDEX audit_events_account ON audit_events(account_id, id);
   CREATE INDEX audit_events_at ON audit_events(at)`;

/** PDF signing: an account's default (none, invisible, visible) and server-wide settings (the certificate, sealed). */
const PDF_SIGNING = `ALTER TABLE accounts ADD COLUMN pdf_signature TEXT NOT NULL DEFAULT 'none';
   CREATE TABLE settings (
     key TEXT PRIMARY KEY,
     value TEXT NOT NULL
   )`;

/**
 * Signing is granted per account by the operator. Accounts the operator had given a signing default
 * keep signing; every other account, until granted, does not.
 */
const SIGNING_GRANT = `ALTER TABLE accounts ADD COLUMN signing_grant INTEGER NOT NULL DEFAULT 0;
   UPDATE accounts SET signing_grant = 1 WHERE pdf_signature <> 'none'`;

/** The syntax a stored template's tags are typed in (merge/syntax/); NULL: Word merge fields. */
const TEMPLATE_SYNTAX = `ALTER TABLE templates ADD COLUMN syntax TEXT;
   ALTER TABLE template_versions ADD COLUMN syntax TEXT`;

/** What a job works on (template, records, format), said at submission for its owner's list. */
const JOB_SUMMARY = 'ALTER TABLE jobs ADD COLUMN summary TEXT';

/** An API key's label and its last use (to the minute). */
const keyDetails = (time: string) => `ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
   ALTER TABLE api_keys ADD COLUMN last_used_at ${time}`;

export const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE accounts (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     username TEXT NOT NULL UNIQUE,
     password_hash TEXT NOT NULL,
     licence TEXT NOT NULL,
     max_documents INTEGER NOT NULL,
     max_templates INTEGER NOT NULL,
     max_proofing INTEGER NOT NULL,
     valid_until INTEGER,
     created_documents INTEGER NOT NULL DEFAULT 0,
     proofing_transactions INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE api_keys (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     key_hash TEXT NOT NULL UNIQUE,
     key_sealed TEXT NOT NULL,
     active INTEGER NOT NULL DEFAULT 1,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX api_keys_account ON api_keys(account_id);
   CREATE TABLE templates (
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     format TEXT NOT NULL,
     size INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     modified_at INTEGER NOT NULL,
     data BLOB NOT NULL,
     PRIMARY KEY (account_id, name)
   );
   CREATE TABLE merge_slots (
     account_id INTEGER NOT NULL,
     slot INTEGER NOT NULL,
     holder TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (account_id, slot)
   );`,
  `CREATE TABLE document_reservations (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX document_reservations_expiry ON document_reservations(expires_at);`,
  `CREATE TABLE auth_failures (
     key TEXT NOT NULL,
     at INTEGER NOT NULL
   );
   CREATE INDEX auth_failures_key ON auth_failures(key, at);`,
  `CREATE TABLE share_links (
     token_hash TEXT PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     template_name TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX share_links_account ON share_links(account_id, template_name);`,
  // The document and proofing counts are per calendar month (UTC): the month they count.
  'ALTER TABLE accounts ADD COLUMN usage_month TEXT',
  jobsTable('BLOB', 'INTEGER'),
  workKeys('INTEGER'),
  JOB_IDEMPOTENCY,
  keyDetails('INTEGER'),
  JOB_SUMMARY,
  templateVersions('BLOB', 'INTEGER'),
  KEY_SCOPE,
  auditEvents('INTEGER PRIMARY KEY AUTOINCREMENT', 'INTEGER'),
  PDF_SIGNING,
  SIGNING_GRANT,
  TEMPLATE_SYNTAX,
];

export const POSTGRES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE accounts (
     id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     username TEXT NOT NULL UNIQUE,
     password_hash TEXT NOT NULL,
     licence TEXT NOT NULL,
     max_documents BIGINT NOT NULL,
     max_templates BIGINT NOT NULL,
     max_proofing BIGINT NOT NULL,
     valid_until BIGINT,
     created_documents BIGINT NOT NULL DEFAULT 0,
     proofing_transactions BIGINT NOT NULL DEFAULT 0,
     created_at BIGINT NOT NULL
   );
   CREATE TABLE api_keys (
     id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     key_hash TEXT NOT NULL UNIQUE,
     key_sealed TEXT NOT NULL,
     active BOOLEAN NOT NULL DEFAULT TRUE,
     created_at BIGINT NOT NULL
   );
   CREATE INDEX api_keys_account ON api_keys(account_id);
   CREATE TABLE templates (
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     format TEXT NOT NULL,
     size BIGINT NOT NULL,
     sha256 TEXT NOT NULL,
     modified_at BIGINT NOT NULL,
     data BYTEA NOT NULL,
     PRIMARY KEY (account_id, name)
   );`,
  `CREATE TABLE document_reservations (
     id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     expires_at BIGINT NOT NULL
   );
   CREATE INDEX document_reservations_expiry ON document_reservations(expires_at);`,
  `CREATE TABLE auth_failures (
     key TEXT NOT NULL,
     at BIGINT NOT NULL
   );
   CREATE INDEX auth_failures_key ON auth_failures(key, at);`,
  `CREATE TABLE share_links (
     token_hash TEXT PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     template_name TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE INDEX share_links_account ON share_links(account_id, template_name);`,
  // The document and proofing counts are per calendar month (UTC): the month they count.
  'ALTER TABLE accounts ADD COLUMN usage_month TEXT',
  jobsTable('BYTEA', 'BIGINT'),
  // Merge slots as leases in a table (like SQLite's): no connection is pinned for a merge, and a
  // transaction-mode pooler (PgBouncer) keeps the limit, which session advisory locks did not.
  `CREATE TABLE merge_slots (
     account_id INTEGER NOT NULL,
     slot INTEGER NOT NULL,
     holder TEXT NOT NULL,
     expires_at BIGINT NOT NULL,
     PRIMARY KEY (account_id, slot)
   )`,
  workKeys('BIGINT'),
  JOB_IDEMPOTENCY,
  keyDetails('BIGINT'),
  JOB_SUMMARY,
  templateVersions('BYTEA', 'BIGINT'),
  KEY_SCOPE,
  auditEvents('BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', 'BIGINT'),
  PDF_SIGNING,
  SIGNING_GRANT,
  TEMPLATE_SYNTAX,
];

/**
 * The oldest schema version whose docsmith can serve on the schema these migrations make (see
 * store/schema.ts). Raise it only with a migration that removes or changes what older code uses.
 */
export const SQLITE_OLDEST_READER = 6;
export const POSTGRES_OLDEST_READER = 7;
