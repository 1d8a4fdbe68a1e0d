import { DocsmithError } from '../errors.js';
import pg from 'pg';
import type {
  Account,
  AccountPatch,
  AccountRepository,
  ApiKeyRecord,
  AuditEvent,
  AuditRepository,
  NewAuditEvent,
  SettingRepository,
  ApiKeyRepository,
  NewAccount,
  NewTemplate,
  AuthFailureRepository,
  ClaimResult,
  ClaimedJob,
  DocumentReservation,
  JobCursor,
  JobOutcome,
  JobProgress,
  JobRecord,
  JobRepository,
  NewJob,
  ShareLinkRecord,
  ShareLinkRepository,
  SlotLease,
  Store,
  StoreHealth,
  TemplateMeta,
  TemplateRecord,
  TemplateVersionMeta,
  TemplateRepository,
  UsageClaim,
  UsageHold,
  UsageRepository,
} from './types.js';
import { DuplicateError, OBJECT_POINTER } from './types.js';
import { POSTGRES_MIGRATIONS, POSTGRES_OLDEST_READER } from './migrations.js';
import { pendingMigrations, schemaFit, stateOf, type SchemaState } from './schema.js';
import { asStorageUnavailable, healthOf, NO_SCHEMA } from './errors.js';
import { StorageUnavailableError } from '../errors.js';
import {
  countUsageSql,
  usageMonth,
  accountColumns,
  jobColumns,
  type AccountRow,
  type ApiKeyRow,
  type JobRow,
  rowToAccount,
  rowToApiKey,
  rowToJob,
  rowToTemplateMeta,
  storedSyntax,
  rowToAuditEvent,
  AUDIT_INSERT,
  auditValues,
  type AuditRow,
  type TemplateRow,
} from './rows.js';
import { randomUUID } from 'node:crypto';

/** How long a reservation the sweep took back is remembered, for a commit that comes late. */
const REFUNDED_KEPT_MS = 7 * 24 * 3600_000;

/** Advisory lock namespace ('DSM' << 8): +0 migrations. */
const LOCK_BASE = 0x44534d00;

/** The database's clock in milliseconds: leases are judged by one clock, not each instance's. */
const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** How long a statement may wait for a free pooled connection before it answers 503. */
const POOL_WAIT_MS = 5_000;

/** How long a statement may go unanswered (DOCSMITH_DATABASE_TIMEOUT_MS). */
const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;

/** How long a merge slot stays taken without its holder renewing it (a dead instance's slots come free in this time). */
const SLOT_LEASE_MS = 10_000;

const int8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === int8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** The scale-out store: any number of instances share one PostgreSQL database. */
export async function openPostgresStore(url: string, options: { size?: number; timeoutMs?: number } = {}): Promise<Store> {
  // A request holds one connection at a time and only for a statement; one waiting longer than
  // this for a free one answers 503 with Retry-After. A server that stops answering (a stall, not
  // a refusal) fails a statement after `timeoutMs`, and TCP keep-alive finds a dead peer: the
  // client is then dropped (pg-pool drops a client released with an error) and the request 503s.
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const connection = {
    connectionString: url,
    types,
    connectionTimeoutMillis: POOL_WAIT_MS,
    query_timeout: timeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const pool = new pg.Pool({ ...connection, max: options.size ?? 20 });
  // Readiness has a connection of its own: it never queues behind document work.
  const health = new pg.Pool({ ...connection, max: 1, query_timeout: Math.min(timeoutMs, 3_000) });
  for (const each of [pool, health]) {
    each.on('error', () => undefined); // an idle client lost its connection; the pool replaces it
    // A checked-out client whose connection ends (a database restart, pg_terminate_backend, a
    // pooler's timeout) emits 'error' too, and an unheard 'error' ends the process. Its query
    // rejects instead (a 503), and the pool drops it when it comes back.
    each.on('connect', (client) => client.on('error', () => undefined));
  }
  // Round trips of the serving pool (each query is one: parse, bind and execute go together), for /metrics.
  const counted = { statements: 0 };
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      counted.statements++;
      return query(...args);
    };
  });
  // Migrations may wait for another instance's (its lock) and change large tables: no statement limit.
  const migrating = new pg.Pool({ connectionString: url, types, max: 1, connectionTimeoutMillis: POOL_WAIT_MS, keepAlive: true });
  migrating.on('error', () => undefined);
  try {
    await migrate(migrating);
  } catch (error) {
    await Promise.all([pool.end(), health.end()]);
    throw error;
  } finally {
    await migrating.end();
  }
  return new PostgresStore(pool, health, counted);
}

/**
 * All pending migrations in one transaction under a transaction-scoped lock: instances starting
 * together migrate once, and nothing is left locked behind a transaction-mode pooler (a session
 * lock there stays on whichever server connection took it).
 */
async function migrate(pool: pg.Pool): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_BASE]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const column = await client.query(
      "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'oldest_reader'",
    );
    if (column.rowCount === 0) await client.query('ALTER TABLE schema_migrations ADD COLUMN oldest_reader INTEGER');
    const { rows } = await client.query<{ version: number; oldest_reader: number | null }>(
      'SELECT version, oldest_reader FROM schema_migrations',
    );
    for (const version of pendingMigrations(rows, POSTGRES_MIGRATIONS.length)) {
      await client.query(POSTGRES_MIGRATIONS[version - 1]!);
      await client.query('INSERT INTO schema_migrations (version, applied_at, oldest_reader) VALUES ($1, $2, $3)', [
        version,
        Date.now(),
        POSTGRES_OLDEST_READER,
      ]);
    }
  });
}

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query('BEGIN');
    result = await work(client);
    await client.query('COMMIT');
  } catch (error) {
    // A connection that cannot even roll back (it stalled, or is gone) is dropped, not pooled again.
    const broken = await client.query('ROLLBACK').then(
      () => false,
      () => true,
    );
    client.release(broken ? (error as Error) : undefined);
    throw error;
  }
  client.release();
  return result;
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === '23505';
}

class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly templates: TemplateRepository;
  readonly usage: PgUsage;
  readonly authFailures: AuthFailureRepository;
  readonly shareLinks: ShareLinkRepository;
  readonly audit: AuditRepository;
  readonly settings: SettingRepository;
  readonly jobs: JobRepository;

  constructor(
    private readonly pool: pg.Pool,
    private readonly health: pg.Pool,
    private readonly counted: { statements: number },
  ) {
    this.jobs = new PgJobs(pool);
    this.shareLinks = new PgShareLinks(pool);
    this.audit = new PgAudit(pool);
    this.settings = new PgSettings(pool);
    this.authFailures = new PgAuthFailures(pool);
    this.accounts = new PgAccounts(pool);
    this.apiKeys = new PgApiKeys(pool);
    this.templates = new PgTemplates(pool);
    this.usage = new PgUsage(pool);
  }

  ping(): Promise<StoreHealth> {
    return this.schema();
  }

  async schema(): Promise<StoreHealth> {
    let found: SchemaState | null;
    try {
      found = stateOf(
        (
          await this.health.query<{ version: number; oldest_reader?: number | null }>(
            'SELECT * FROM schema_migrations ORDER BY version DESC LIMIT 1',
          )
        ).rows.map((r) => ({ version: r.version, oldest_reader: r.oldest_reader ?? null }))[0],
      );
    } catch (error) {
      if (/42P01|no such table/.test(`${(error as { code?: string }).code} ${(error as Error).message}`))
        throw new StorageUnavailableError(NO_SCHEMA, NO_SCHEMA);
      throw asStorageUnavailable(error) ?? error;
    }
    return healthOf(schemaFit(found, POSTGRES_MIGRATIONS.length));
  }

  statements(): number {
    return this.counted.statements;
  }

  async objectPointers(): Promise<string[]> {
    const prefix = Buffer.from(OBJECT_POINTER);
    const { rows } = await this.pool.query<{ p: Buffer }>(
      `SELECT data AS p FROM templates WHERE substring(data from 1 for ${prefix.length}) = $1
       UNION SELECT data FROM template_versions WHERE substring(data from 1 for ${prefix.length}) = $1
       UNION SELECT result FROM jobs WHERE substring(result from 1 for ${prefix.length}) = $1`,
      [prefix],
    );
    return rows.map((r) => r.p.toString('utf8'));
  }

  async backup(): Promise<void> {
    throw new DocsmithError(
      400,
      'PostgreSQL databases are backed up with its own tools: pg_dump --format=custom --file=docsmith.dump "$DOCSMITH_DATABASE_URL" (restore with pg_restore --clean --dbname=...).',
    );
  }

  async close(): Promise<void> {
    await this.usage.dropLeases();
    await Promise.all([this.pool.end(), this.health.end()]);
  }
}

/** Counts of an earlier calendar month: the next count starts them again. */
const ACCOUNT_SELECT = `SELECT ${accountColumns} FROM accounts`;
const ACCOUNT_INSERT = `INSERT INTO accounts (username, password_hash, licence, max_documents, max_templates, max_proofing, valid_until, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

function insertValues(a: NewAccount): unknown[] {
  return [
    a.username,
    a.passwordHash,
    a.licence,
    a.maxDocuments,
    a.maxTemplates,
    a.maxProofingTransactions,
    a.validUntil ? a.validUntil.getTime() : null,
    Date.now(),
  ];
}

class PgAccounts implements AccountRepository {
  constructor(private readonly pool: pg.Pool) {}

  async create(account: NewAccount): Promise<Account> {
    try {
      const { rows } = await this.pool.query<AccountRow>(`${ACCOUNT_INSERT} RETURNING ${accountColumns}`, insertValues(account));
      return rowToAccount(rows[0]!);
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateError(`user "${account.username}" exists already`);
      throw error;
    }
  }

  async createIfMissing(account: NewAccount): Promise<boolean> {
    const result = await this.pool.query(`${ACCOUNT_INSERT} ON CONFLICT (username) DO NOTHING`, insertValues(account));
    return (result.rowCount ?? 0) > 0;
  }

  async byId(id: number): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>(`${ACCOUNT_SELECT} WHERE id = $1`, [id]);
    return rows[0] ? rowToAccount(rows[0]) : null;
  }

  async byUsername(username: string): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>(`${ACCOUNT_SELECT} WHERE username = $1`, [username]);
    return rows[0] ? rowToAccount(rows[0]) : null;
  }

  async byApiKey(keyHash: string): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>(
      `SELECT ${accountColumns
        .split(', ')
        .map((c) => `a.${c.trim()}`)
        .join(', ')} FROM accounts a JOIN api_keys k ON k.account_id = a.id WHERE k.key_hash = $1 AND k.active`,
      [keyHash],
    );
    return rows[0] ? rowToAccount(rows[0]) : null;
  }

  async storageBytes(id: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT (SELECT COALESCE(SUM(size), 0) FROM templates WHERE account_id = $1)
      + (SELECT COALESCE(SUM(size), 0) FROM template_versions WHERE account_id = $1)
      + (SELECT COALESCE(SUM(COALESCE(octet_length(request), 0) + COALESCE(octet_length(result), 0)), 0) FROM jobs WHERE account_id = $1) AS n`,
      [id],
    );
    return Number(rows[0]!.n);
  }

  async list(): Promise<Account[]> {
    const { rows } = await this.pool.query<AccountRow>(`${ACCOUNT_SELECT} ORDER BY id`);
    return rows.map(rowToAccount);
  }

  async update(id: number, patch: AccountPatch): Promise<Account | null> {
    const sets: string[] = [];
    const values: unknown[] = [];
    const add = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (patch.passwordHash !== undefined) add('password_hash', patch.passwordHash);
    if (patch.licence !== undefined) add('licence', patch.licence);
    if (patch.maxDocuments !== undefined) add('max_documents', patch.maxDocuments);
    if (patch.maxTemplates !== undefined) add('max_templates', patch.maxTemplates);
    if (patch.maxProofingTransactions !== undefined) add('max_proofing', patch.maxProofingTransactions);
    if (patch.validUntil !== undefined) add('valid_until', patch.validUntil ? patch.validUntil.getTime() : null);
    if (patch.createdDocuments !== undefined) add('created_documents', patch.createdDocuments);
    if (patch.pdfSignature !== undefined) add('pdf_signature', patch.pdfSignature);
    if (patch.signingGrant !== undefined) add('signing_grant', patch.signingGrant ? 1 : 0);
    if (sets.length > 0) {
      values.push(id);
      await this.pool.query(`UPDATE accounts SET ${sets.join(', ')} WHERE id = $${values.length}`, values);
    }
    return this.byId(id);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM accounts WHERE id = $1', [id]);
    return (result.rowCount ?? 0) > 0;
  }
}

class PgApiKeys implements ApiKeyRepository {
  constructor(private readonly pool: pg.Pool) {}

  async add(
    accountId: number,
    key: { keyHash: string; keySealed: string; name?: string; scope?: string },
    maxKeys: number,
  ): Promise<'added' | 'limit'> {
    return inTransaction(this.pool, async (client) => {
      // The account row lock serialises concurrent additions for one account.
      await client.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const { rows } = await client.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM api_keys WHERE account_id = $1', [accountId]);
      if ((rows[0]?.n ?? 0) >= maxKeys) return 'limit';
      await client.query(
        'INSERT INTO api_keys (account_id, key_hash, key_sealed, active, created_at, name, scope) VALUES ($1, $2, $3, TRUE, $4, $5, $6)',
        [accountId, key.keyHash, key.keySealed, Date.now(), key.name ?? '', key.scope ?? 'full'],
      );
      return 'added';
    });
  }

  async list(accountId: number): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY id', [accountId]);
    return rows.map(rowToApiKey);
  }

  async byHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
    return rows[0] ? rowToApiKey(rows[0]) : null;
  }

  async delete(accountId: number, keyHash: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM api_keys WHERE account_id = $1 AND key_hash = $2', [accountId, keyHash]);
    return (result.rowCount ?? 0) > 0;
  }

  async rename(accountId: number, id: number, name: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE api_keys SET name = $1 WHERE account_id = $2 AND id = $3', [name, accountId, id]);
    return (result.rowCount ?? 0) > 0;
  }

  async touch(keyHash: string, at: Date): Promise<void> {
    await this.pool.query('UPDATE api_keys SET last_used_at = $1 WHERE key_hash = $2 AND (last_used_at IS NULL OR last_used_at < $1)', [
      at.getTime(),
      keyHash,
    ]);
  }

  async sample(limit: number): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys ORDER BY id DESC LIMIT $1', [limit]);
    return rows.map(rowToApiKey);
  }
}

const TEMPLATE_META = 'name, format, size, sha256, modified_at, version, syntax';

class PgTemplates implements TemplateRepository {
  constructor(private readonly pool: pg.Pool) {}

  async put(accountId: number, t: NewTemplate, maxTemplates: number, keepVersions = 0): Promise<'created' | 'replaced' | 'limit'> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const existing = await client.query<{ version: number }>('SELECT version FROM templates WHERE account_id = $1 AND name = $2', [
        accountId,
        t.name,
      ]);
      const current = existing.rows[0];
      if (!current) {
        const { rows } = await client.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM templates WHERE account_id = $1', [accountId]);
        if ((rows[0]?.n ?? 0) >= maxTemplates) return 'limit';
        await client.query('DELETE FROM template_versions WHERE account_id = $1 AND name = $2', [accountId, t.name]);
        await client.query(
          'INSERT INTO templates (account_id, name, format, size, sha256, modified_at, data, version, syntax) VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8)',
          [accountId, t.name, t.format, t.size ?? t.data.length, t.sha256, Date.now(), t.data, storedSyntax(t)],
        );
        return 'created';
      }
      if (keepVersions > 0)
        await client.query(
          `INSERT INTO template_versions (account_id, name, version, format, size, sha256, modified_at, data, syntax)
           SELECT account_id, name, version, format, size, sha256, modified_at, data, syntax FROM templates WHERE account_id = $1 AND name = $2
           ON CONFLICT (account_id, name, version) DO NOTHING`,
          [accountId, t.name],
        );
      await client.query(
        `UPDATE templates SET format = $3, size = $4, sha256 = $5, modified_at = $6, data = $7, version = version + 1, syntax = $8
         WHERE account_id = $1 AND name = $2`,
        [accountId, t.name, t.format, t.size ?? t.data.length, t.sha256, Date.now(), t.data, storedSyntax(t)],
      );
      await client.query('DELETE FROM template_versions WHERE account_id = $1 AND name = $2 AND version <= $3', [
        accountId,
        t.name,
        Number(current.version) - keepVersions,
      ]);
      return 'replaced';
    });
  }

  async versions(accountId: number, name: string): Promise<TemplateVersionMeta[]> {
    const { rows } = await this.pool.query<TemplateRow & { current: boolean }>(
      `SELECT ${TEMPLATE_META}, TRUE AS current FROM templates WHERE account_id = $1 AND name = $2
       UNION ALL SELECT ${TEMPLATE_META}, FALSE AS current FROM template_versions
       WHERE account_id = $1 AND name = $2 AND EXISTS (SELECT 1 FROM templates WHERE account_id = $1 AND name = $2)
       ORDER BY version DESC`,
      [accountId, name],
    );
    return rows.map((r) => ({ ...rowToTemplateMeta(r), current: r.current }));
  }

  async getVersion(accountId: number, name: string, version: number): Promise<TemplateRecord | null> {
    const { rows } = await this.pool.query<TemplateRow & { data: Buffer }>(
      `SELECT ${TEMPLATE_META}, data FROM templates WHERE account_id = $1 AND name = $2 AND version = $3
       UNION ALL SELECT ${TEMPLATE_META}, data FROM template_versions v WHERE account_id = $1 AND name = $2 AND version = $3
       AND EXISTS (SELECT 1 FROM templates t WHERE t.account_id = v.account_id AND t.name = v.name)`,
      [accountId, name, version],
    );
    return rows[0] ? { ...rowToTemplateMeta(rows[0]), data: rows[0].data } : null;
  }

  async get(accountId: number, name: string): Promise<TemplateRecord | null> {
    const { rows } = await this.pool.query<TemplateRow & { data: Buffer }>(
      `SELECT ${TEMPLATE_META}, data FROM templates WHERE account_id = $1 AND name = $2`,
      [accountId, name],
    );
    return rows[0] ? { ...rowToTemplateMeta(rows[0]), data: rows[0].data } : null;
  }

  async meta(accountId: number, name: string): Promise<TemplateMeta | null> {
    const { rows } = await this.pool.query<TemplateRow>(`SELECT ${TEMPLATE_META} FROM templates WHERE account_id = $1 AND name = $2`, [
      accountId,
      name,
    ]);
    return rows[0] ? rowToTemplateMeta(rows[0]) : null;
  }

  async list(accountId: number): Promise<TemplateMeta[]> {
    const { rows } = await this.pool.query<TemplateRow>(`SELECT ${TEMPLATE_META} FROM templates WHERE account_id = $1 ORDER BY name`, [
      accountId,
    ]);
    return rows.map(rowToTemplateMeta);
  }

  async count(accountId: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM templates WHERE account_id = $1', [accountId]);
    return rows[0]?.n ?? 0;
  }

  async delete(accountId: number, name: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM template_versions WHERE account_id = $1 AND name = $2', [accountId, name]);
      const result = await client.query('DELETE FROM templates WHERE account_id = $1 AND name = $2', [accountId, name]);
      return (result.rowCount ?? 0) > 0;
    });
  }
}

interface ShareRow {
  id: string;
  account_id: number;
  template_name: string;
  created_at: string;
  expires_at: string;
}
const shareLink = (r: ShareRow): ShareLinkRecord => ({
  id: r.id,
  accountId: r.account_id,
  templateName: r.template_name,
  createdAt: new Date(Number(r.created_at)),
  expiresAt: new Date(Number(r.expires_at)),
});

class PgSettings implements SettingRepository {
  constructor(private readonly pool: pg.Pool) {}

  async get(key: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return rows[0]?.value ?? null;
  }

  async set(key: string, value: string): Promise<void> {
    await this.pool.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [
      key,
      value,
    ]);
  }

  async delete(key: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM settings WHERE key = $1', [key])).rowCount ?? 0) > 0;
  }
}

class PgAudit implements AuditRepository {
  constructor(private readonly pool: pg.Pool) {}

  async add(e: NewAuditEvent): Promise<void> {
    await this.pool.query(`${AUDIT_INSERT} VALUES ($1, $2, $3, $4, $5, $6)`, auditValues(e));
  }

  async list(accountId: number, options: { limit: number; before?: number }): Promise<AuditEvent[]> {
    const { rows } = await this.pool.query<AuditRow>(
      'SELECT * FROM audit_events WHERE account_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3',
      [accountId, options.before ?? Number.MAX_SAFE_INTEGER, options.limit],
    );
    return rows.map(rowToAuditEvent);
  }

  async prune(cutoff: Date): Promise<number> {
    const result = await this.pool.query('DELETE FROM audit_events WHERE at < $1', [cutoff.getTime()]);
    return result.rowCount ?? 0;
  }
}

class PgShareLinks implements ShareLinkRepository {
  constructor(private readonly pool: pg.Pool) {}

  async add(link: ShareLinkRecord & { tokenHash: string }): Promise<void> {
    await this.pool.query(
      'INSERT INTO share_links (token_hash, id, account_id, template_name, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [link.tokenHash, link.id, link.accountId, link.templateName, link.createdAt.getTime(), link.expiresAt.getTime()],
    );
  }

  async byTokenHash(tokenHash: string, now: Date): Promise<ShareLinkRecord | null> {
    const { rows } = await this.pool.query<ShareRow>('SELECT * FROM share_links WHERE token_hash = $1 AND expires_at > $2', [
      tokenHash,
      now.getTime(),
    ]);
    return rows[0] ? shareLink(rows[0]) : null;
  }

  async list(accountId: number, now: Date): Promise<ShareLinkRecord[]> {
    const { rows } = await this.pool.query<ShareRow>(
      'SELECT * FROM share_links WHERE account_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id',
      [accountId, now.getTime()],
    );
    return rows.map(shareLink);
  }

  async revoke(accountId: number, id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM share_links WHERE account_id = $1 AND id = $2', [accountId, id])).rowCount ?? 0) > 0;
  }

  async revokeForTemplate(accountId: number, templateName: string): Promise<number> {
    return (
      (await this.pool.query('DELETE FROM share_links WHERE account_id = $1 AND template_name = $2', [accountId, templateName])).rowCount ??
      0
    );
  }
}

class PgAuthFailures implements AuthFailureRepository {
  constructor(private readonly pool: pg.Pool) {}

  async record(keys: string[], at: number): Promise<void> {
    await this.pool.query('INSERT INTO auth_failures (key, at) SELECT k, $2 FROM unnest($1::text[]) AS k', [keys, at]);
  }

  async since(keys: string[], since: number): Promise<{ count: number; oldest: number | null }[]> {
    const { rows } = await this.pool.query<{ key: string; count: string; oldest: string | null }>(
      'SELECT key, COUNT(*) AS count, MIN(at) AS oldest FROM auth_failures WHERE key = ANY($1::text[]) AND at >= $2 GROUP BY key',
      [keys, since],
    );
    const byKey = new Map(rows.map((r) => [r.key, { count: Number(r.count), oldest: r.oldest === null ? null : Number(r.oldest) }]));
    return keys.map((key) => byKey.get(key) ?? { count: 0, oldest: null });
  }

  async clear(key: string): Promise<void> {
    await this.pool.query('DELETE FROM auth_failures WHERE key = $1', [key]);
  }

  async prune(before: number): Promise<void> {
    await this.pool.query('DELETE FROM auth_failures WHERE at < $1', [before]);
  }
}

/**
 * Reservation $1 of account $2 stays counted: one the sweep took back meanwhile (a slow delivery)
 * is counted again; none left means it was committed already (a retried commit counts nothing).
 */
const COMMIT_TAIL = `gone AS (DELETE FROM document_reservations WHERE id = $1 RETURNING refunded_at)
  UPDATE accounts SET created_documents = created_documents + 1 WHERE id = $2 AND EXISTS (SELECT 1 FROM gone WHERE refunded_at IS NOT NULL)`;
/** Reservation $1 is taken back, unless the sweep has already. */
const REFUND_TAIL = `gone AS (DELETE FROM document_reservations WHERE id = $1 RETURNING account_id, refunded_at)
  UPDATE accounts SET created_documents = created_documents - 1 WHERE id IN (SELECT account_id FROM gone WHERE refunded_at IS NULL) AND created_documents > 0`;

/**
 * A claim in one statement. $1 account, $2 slots (0: none wanted), $3 holder, $4 slot lease, $5
 * document lease (null: none counted), $6 month, $7 work key, $8 template name. The slot is taken
 * first; the document only with it; the template's version rides along.
 */
const CLAIM_SQL = `WITH now AS (SELECT ${DB_NOW_MS} AS ms),
  free AS (SELECT s AS slot FROM generate_series(0, $2::int - 1) s
           WHERE NOT EXISTS (SELECT 1 FROM merge_slots m WHERE m.account_id = $1 AND m.slot = s AND m.expires_at >= (SELECT ms FROM now))
           ORDER BY s LIMIT 1),
  taken AS (INSERT INTO merge_slots (account_id, slot, holder, expires_at) SELECT $1, slot, $3::text, (SELECT ms FROM now) + $4::bigint FROM free
            ON CONFLICT (account_id, slot) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
            WHERE merge_slots.expires_at < (SELECT ms FROM now)
            RETURNING slot),
  go AS (SELECT 1 WHERE $2::int = 0 OR EXISTS (SELECT 1 FROM taken)),
  existing AS (UPDATE document_reservations SET expires_at = (SELECT ms FROM now) + $5::bigint
               WHERE $5::bigint IS NOT NULL AND work_key = $7::text AND refunded_at IS NULL AND account_id = $1 AND EXISTS (SELECT 1 FROM go) RETURNING id),
  counted AS (${countUsageSql('documents', '$6::text', '$1')} AND $5::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM go) AND NOT EXISTS (SELECT 1 FROM existing) RETURNING id),
  added AS (INSERT INTO document_reservations (account_id, expires_at, work_key) SELECT id, (SELECT ms FROM now) + $5::bigint, $7::text FROM counted RETURNING id)
SELECT (SELECT slot FROM taken) AS slot, EXISTS (SELECT 1 FROM free) AS had_free,
       COALESCE((SELECT id FROM existing), (SELECT id FROM added)) AS reservation,
       t.${TEMPLATE_META.split(', ').join(', t.')}
FROM (SELECT 1) AS one LEFT JOIN templates t ON t.account_id = $1 AND t.name = $8::text`;

type ClaimRow = { slot: number | null; had_free: boolean; reservation: string | null } & {
  [K in keyof TemplateRow]: TemplateRow[K] | null;
};

/** A slot lease, with what the claim's settling statement frees in the same round trip. */
interface PgSlotLease extends SlotLease {
  readonly slot: number;
  readonly holder: string;
  /** Stops renewing: the caller deletes the row itself. */
  forget(): void;
}

class PgUsage implements UsageRepository {
  /** Slot leases this store holds, so closing it can give them back. */
  private readonly held = new Set<{ release(): Promise<void> }>();

  constructor(private readonly pool: pg.Pool) {}

  async dropLeases(): Promise<void> {
    await Promise.all([...this.held].map((lease) => lease.release()));
  }

  /**
   * One statement: a free slot, the document and the template's version. Two merges of one account
   * that pick the same free slot at once: one gets it, the other tries again (the next slot).
   */
  async claim(accountId: number, claim: UsageClaim): Promise<ClaimResult> {
    const limit = claim.slot?.limit ?? 0;
    const lease = Math.min(claim.slot?.leaseMs ?? SLOT_LEASE_MS, SLOT_LEASE_MS);
    for (let attempt = 0; ; attempt++) {
      const holder = `${process.pid}:${randomUUID()}`;
      const row = await this.claimRow(accountId, limit, holder, lease, claim);
      if (limit > 0 && row.slot === null) {
        if (row.had_free && attempt < limit) continue;
        return { refused: 'slots' };
      }
      const slot = row.slot === null ? null : this.lease(accountId, row.slot, holder, lease);
      const reservation = row.reservation;
      if (claim.documentLeaseMs !== undefined && reservation === null) {
        await slot?.release();
        return { refused: 'documents' };
      }
      const template = claim.template === undefined || row.name === null ? null : rowToTemplateMeta(row as TemplateRow);
      return { granted: this.hold(accountId, slot, reservation, claim.workKey), template };
    }
  }

  private hold(accountId: number, held: PgSlotLease | null, reservation: string | null, workKey: string | undefined): UsageHold {
    let settled = false;
    let slot = held;
    return {
      releaseSlot: async () => {
        if (!slot) return;
        await slot.release();
        slot = null;
      },
      // Settled once it succeeds: a failed settle may be tried again (each statement is safe to repeat).
      settle: async (kept) => {
        if (settled) return;
        // A kept job's document is committed with its outcome (PgJobs.finish).
        const document = reservation === null || (kept && workKey !== undefined) ? null : reservation;
        if (document === null) {
          await slot?.release();
        } else {
          slot?.forget();
          // The document and the slot in one statement.
          await this.pool.query(
            `WITH slot AS (DELETE FROM merge_slots WHERE account_id = $2 AND slot = $3 AND holder = $4), ${kept ? COMMIT_TAIL : REFUND_TAIL}`,
            [document, accountId, slot?.slot ?? -1, slot?.holder ?? ''],
          );
        }
        settled = true;
      },
    };
  }

  private async claimRow(accountId: number, limit: number, holder: string, lease: number, claim: UsageClaim): Promise<ClaimRow> {
    const { rows } = await this.pool.query<ClaimRow>(CLAIM_SQL, [
      accountId,
      limit,
      holder,
      lease,
      claim.documentLeaseMs ?? null,
      usageMonth(),
      claim.workKey ?? null,
      claim.template ?? null,
    ]);
    return rows[0]!;
  }

  /** The claim's statement without a slot: one document counted, or an earlier attempt's reservation taken over. */
  async reserveDocument(accountId: number, leaseMs: number, workKey?: string): Promise<DocumentReservation | null> {
    const id = (await this.claimRow(accountId, 0, '', 0, { documentLeaseMs: leaseMs, workKey })).reservation;
    if (id === null) return null;
    return {
      commit: async () => void (await this.pool.query(`WITH ${COMMIT_TAIL}`, [id, accountId])),
      refund: async () => void (await this.pool.query(`WITH ${REFUND_TAIL}`, [id])),
    };
  }

  async refundExpired(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `WITH purged AS (DELETE FROM document_reservations WHERE refunded_at < ${DB_NOW_MS} - ${REFUNDED_KEPT_MS}),
            gone AS (UPDATE document_reservations SET refunded_at = ${DB_NOW_MS} WHERE expires_at < ${DB_NOW_MS} AND refunded_at IS NULL RETURNING account_id),
            counts AS (SELECT account_id, count(*) AS n FROM gone GROUP BY account_id),
            refunded AS (UPDATE accounts a SET created_documents = GREATEST(0, a.created_documents - c.n) FROM counts c WHERE a.id = c.account_id RETURNING c.n)
       SELECT COALESCE(SUM(n), 0) AS n FROM refunded`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  async reserveProofing(accountId: number): Promise<boolean> {
    const result = await this.pool.query(countUsageSql('proofing', '$2', '$1'), [accountId, usageMonth()]);
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * A free (or expired) slot row, taken in one statement per slot tried; the lease is judged by
   * the database's clock and renewed every third of SLOT_LEASE_MS while held, so the slots of an
   * instance that died come free within that time.
   */
  async acquireSlot(accountId: number, limit: number, leaseMs: number): Promise<PgSlotLease | null> {
    const holder = `${process.pid}:${randomUUID()}`;
    const lease = Math.min(leaseMs, SLOT_LEASE_MS);
    for (let slot = 0; slot < limit; slot++) {
      const taken = await this.pool.query(
        `INSERT INTO merge_slots (account_id, slot, holder, expires_at) VALUES ($1, $2, $3, ${DB_NOW_MS} + $4)
         ON CONFLICT (account_id, slot) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE merge_slots.expires_at < ${DB_NOW_MS}`,
        [accountId, slot, holder, lease],
      );
      if ((taken.rowCount ?? 0) > 0) return this.lease(accountId, slot, holder, lease);
    }
    return null;
  }

  private lease(accountId: number, slot: number, holder: string, leaseMs: number): PgSlotLease {
    const renew = setInterval(() => {
      this.pool
        .query(`UPDATE merge_slots SET expires_at = ${DB_NOW_MS} + $4 WHERE account_id = $1 AND slot = $2 AND holder = $3`, [
          accountId,
          slot,
          holder,
          leaseMs,
        ])
        .catch(() => undefined); // the database is away: the lease runs out, as it would for a dead instance
    }, leaseMs / 3);
    renew.unref();
    let released = false;
    const lease: PgSlotLease = {
      slot,
      holder,
      forget: () => {
        released = true;
        clearInterval(renew);
        this.held.delete(lease);
      },
      release: async () => {
        if (released) return;
        lease.forget();
        await this.pool
          .query('DELETE FROM merge_slots WHERE account_id = $1 AND slot = $2 AND holder = $3', [accountId, slot, holder])
          .catch(() => undefined); // not reachable now: the lease runs out by itself
      },
    };
    this.held.add(lease);
    return lease;
  }
}

const JOB_COLUMNS = jobColumns('octet_length');
const JOB_SELECT = `SELECT ${JOB_COLUMNS} FROM jobs`;

/**
 * Jobs on PostgreSQL: instances take them up with FOR UPDATE SKIP LOCKED, so none waits on another;
 * times are the database's clock, so leases mean the same to every instance.
 */
class PgJobs implements JobRepository {
  constructor(private readonly pool: pg.Pool) {}

  async add(job: NewJob, maxWaiting: number): Promise<'added' | 'limit' | { existing: string }> {
    return inTransaction(this.pool, async (client): Promise<'added' | 'limit' | { existing: string }> => {
      // One account's submissions queue behind each other here, so the count and the key hold.
      await client.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [job.accountId]);
      if (job.idempotencyKey !== undefined) {
        const earlier = await client.query<{ id: string }>('SELECT id FROM jobs WHERE account_id = $1 AND idempotency_key = $2', [
          job.accountId,
          job.idempotencyKey,
        ]);
        if (earlier.rows[0]) return { existing: earlier.rows[0].id };
      }
      const { rows } = await client.query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM jobs WHERE account_id = $1 AND state IN ('queued', 'running')",
        [job.accountId],
      );
      if ((rows[0]?.n ?? 0) >= maxWaiting) return 'limit';
      await client.query(
        `INSERT INTO jobs (id, account_id, kind, state, request, created_at, due_at, callback_url, idempotency_key, summary)
        VALUES ($1, $2, $3, 'queued', $4, ${DB_NOW_MS}, ${DB_NOW_MS}, $5, $6, $7)`,
        [
          job.id,
          job.accountId,
          job.kind,
          job.request,
          job.callbackUrl,
          job.idempotencyKey ?? null,
          job.summary ? JSON.stringify(job.summary) : null,
        ],
      );
      return 'added';
    });
  }

  async get(accountId: number, id: string): Promise<JobRecord | null> {
    const { rows } = await this.pool.query<JobRow>(`${JOB_SELECT} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows[0] ? rowToJob(rows[0]) : null;
  }

  async list(accountId: number, limit: number, after?: JobCursor): Promise<JobRecord[]> {
    const { rows } = after
      ? await this.pool.query<JobRow>(
          `${JOB_SELECT} WHERE account_id = $1 AND (created_at, id) < ($3, $4) ORDER BY created_at DESC, id DESC LIMIT $2`,
          [accountId, limit, after.createdAt.getTime(), after.id],
        )
      : await this.pool.query<JobRow>(`${JOB_SELECT} WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [accountId, limit]);
    return rows.map(rowToJob);
  }

  async queueStats(): Promise<{ waiting: number; oldestQueuedAt: Date | null }> {
    const { rows } = await this.pool.query<{ n: string; oldest: string | null }>(
      "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM jobs WHERE state = 'queued'",
    );
    return { waiting: Number(rows[0]!.n), oldestQueuedAt: rows[0]!.oldest === null ? null : new Date(Number(rows[0]!.oldest)) };
  }

  async result(accountId: number, id: string): Promise<Buffer | null> {
    const { rows } = await this.pool.query<{ result: Buffer | null }>(
      "SELECT result FROM jobs WHERE account_id = $1 AND id = $2 AND state = 'done'",
      [accountId, id],
    );
    return rows[0]?.result ?? null;
  }

  async claim(leaseMs: number): Promise<ClaimedJob | null> {
    const holder = `${process.pid}:${randomUUID()}`;
    const { rows } = await this.pool.query<JobRow & { request: Buffer }>(
      `WITH now AS (SELECT ${DB_NOW_MS} AS ms)
       UPDATE jobs SET state = 'running', holder = $1, lease_until = (SELECT ms FROM now) + $2, started_at = COALESCE(started_at, (SELECT ms FROM now)), attempts = attempts + 1
       WHERE id = (SELECT id FROM jobs WHERE (state = 'queued' AND due_at <= (SELECT ms FROM now)) OR (state = 'running' AND lease_until < (SELECT ms FROM now))
                   ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING ${JOB_COLUMNS}, request`,
      [holder, leaseMs],
    );
    return rows[0] ? { job: rowToJob(rows[0]), request: rows[0].request, holder } : null;
  }

  async renew(id: string, holder: string, leaseMs: number, progress?: JobProgress): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE jobs SET lease_until = ${DB_NOW_MS} + $1, progress = COALESCE($2, progress) WHERE id = $3 AND holder = $4 AND state = 'running'`,
      [leaseMs, progress ? JSON.stringify(progress) : null, id, holder],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async requeue(id: string, holder: string, delayMs: number): Promise<void> {
    await this.pool.query(
      `UPDATE jobs SET state = 'queued', holder = NULL, lease_until = NULL, progress = NULL, attempts = attempts - 1, due_at = ${DB_NOW_MS} + $1 WHERE id = $2 AND holder = $3 AND state = 'running'`,
      [delayMs, id, holder],
    );
  }

  async finish(id: string, holder: string, outcome: JobOutcome, retainMs: number): Promise<boolean> {
    const ok = 'result' in outcome;
    // The job's reserved document settles with it: committed with a result (counted again if the
    // sweep took it back meanwhile), taken back with an error.
    const { rows } = await this.pool.query<{ n: string }>(
      `WITH now AS (SELECT ${DB_NOW_MS} AS ms),
       ended AS (UPDATE jobs SET state = $1, result = $2, error_status = $3, error_message = $4, request = NULL,
         finished_at = (SELECT ms FROM now), expires_at = (SELECT ms FROM now) + $5, holder = NULL, lease_until = NULL, progress = NULL,
         callback_state = CASE WHEN callback_url IS NULL THEN NULL ELSE 'pending' END,
         callback_due_at = CASE WHEN callback_url IS NULL THEN NULL ELSE (SELECT ms FROM now) END
       WHERE id = $6 AND holder = $7 AND state = 'running' RETURNING id),
       settled AS (DELETE FROM document_reservations WHERE work_key IN (SELECT id FROM ended) RETURNING account_id, refunded_at),
       pending AS (SELECT account_id FROM settled WHERE refunded_at IS NULL),
       counted AS (UPDATE accounts SET created_documents = created_documents + CASE WHEN $8::boolean THEN 1 ELSE -1 END
                   WHERE id IN (SELECT account_id FROM settled)
                     AND CASE WHEN $8::boolean THEN NOT EXISTS (SELECT 1 FROM pending) ELSE EXISTS (SELECT 1 FROM pending) AND created_documents > 0 END)
       SELECT COUNT(*) AS n FROM ended`,
      [
        ok ? 'done' : 'failed',
        ok ? outcome.result : null,
        ok ? null : outcome.error.status,
        ok ? null : outcome.error.message,
        retainMs,
        id,
        holder,
        ok,
      ],
    );
    return Number(rows[0]?.n ?? 0) > 0;
  }

  async claimCallbacks(leaseMs: number, limit: number, skipAccounts: readonly number[] = []): Promise<JobRecord[]> {
    const { rows } = await this.pool.query<JobRow>(
      `WITH now AS (SELECT ${DB_NOW_MS} AS ms)
       UPDATE jobs SET callback_due_at = (SELECT ms FROM now) + $1, callback_attempts = callback_attempts + 1
       WHERE id IN (SELECT id FROM jobs WHERE callback_state = 'pending' AND callback_due_at <= (SELECT ms FROM now) AND NOT (account_id = ANY($3::bigint[]))
                    ORDER BY callback_due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${JOB_COLUMNS}`,
      [leaseMs, limit, skipAccounts],
    );
    return rows.map(rowToJob);
  }

  async callbackAttempted(
    id: string,
    outcome: { delivered: true } | { delivered: false; error: string; retryInMs: number | null },
  ): Promise<void> {
    if (outcome.delivered) {
      await this.pool.query("UPDATE jobs SET callback_state = 'delivered', callback_due_at = NULL, callback_error = NULL WHERE id = $1", [
        id,
      ]);
    } else if (outcome.retryInMs === null) {
      await this.pool.query("UPDATE jobs SET callback_state = 'failed', callback_due_at = NULL, callback_error = $1 WHERE id = $2", [
        outcome.error,
        id,
      ]);
    } else {
      await this.pool.query(`UPDATE jobs SET callback_due_at = ${DB_NOW_MS} + $1, callback_error = $2 WHERE id = $3`, [
        outcome.retryInMs,
        outcome.error,
        id,
      ]);
    }
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM jobs WHERE account_id = $1 AND id = $2', [accountId, id])).rowCount ?? 0) > 0;
  }

  async deleteExpired(): Promise<number> {
    // A finished job waits for its callback's last attempt before it goes.
    const result = await this.pool.query(
      `DELETE FROM jobs WHERE expires_at < ${DB_NOW_MS} AND (callback_state IS NULL OR callback_state <> 'pending')`,
    );
    return result.rowCount ?? 0;
  }
}
