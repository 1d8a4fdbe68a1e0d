import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3 13 is built on Node-API and ships binaries that load on Node 22 and later; 12
 * (compiled at install) is the one that runs on Node 20. On Node 24, 12 aborts the process when
 * the garbage collector frees a statement (node::ObjectWrap's cleanup hook), so each Node gets
 * the line that works there.
 */
export const Database = createRequire(import.meta.url)(
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20',
) as typeof BetterSqlite3;
type Database = BetterSqlite3.Database;
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
  UsageRepository,
} from './types.js';
import { DuplicateError, OBJECT_POINTER } from './types.js';
import { asStorageUnavailable, BackupError, healthOf, NO_SCHEMA } from './errors.js';
import { pendingMigrations, schemaFit, stateOf, type SchemaState } from './schema.js';
import { processAlive } from '../util/process.js';
import { freeBytesSync } from '../util/disk.js';
import { StorageUnavailableError } from '../errors.js';
import { SQLITE_MIGRATIONS, SQLITE_OLDEST_READER } from './migrations.js';
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
  rowToAuditEvent,
  AUDIT_INSERT,
  auditValues,
  type AuditRow,
  rowToJob,
  rowToTemplateMeta,
  storedSyntax,
  type TemplateRow,
} from './rows.js';

/** Takes group and other permissions away (the secret key beside the database is 0600 already). */
function restrictMode(file: string, mode: number): void {
  try {
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, mode);
  } catch {
    // not there (yet), or not ours to change
  }
}

/**
 * Space set aside beside the database: a delete writes too (its journal), so on a full disk it
 * would fail and the API could free nothing. A delete that finds the disk full gives this file
 * up and tries again; the file comes back when there is room (see SqliteStore.ping).
 */
export class DiskReserve {
  constructor(
    readonly file: string,
    private readonly bytes = 16 * 1024 * 1024,
  ) {}

  /** Puts the reserve back when it is missing and the disk has room for it and more. */
  ensure(): void {
    try {
      if (fs.existsSync(this.file)) return;
      if (freeBytesSync(path.dirname(this.file)) < this.bytes * 2) return;
      fs.writeFileSync(this.file, Buffer.alloc(this.bytes), { mode: 0o600 });
    } catch {
      fs.rmSync(this.file, { force: true });
    }
  }

  /** Runs `work`; if the disk is full, once more after giving up the reserve. */
  freeing<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (!String((error as { code?: string }).code).startsWith('SQLITE_FULL') || !fs.existsSync(this.file)) throw error;
      fs.rmSync(this.file, { force: true });
      return work();
    }
  }
}

/**
 * Gives freed pages back to the file system (the database is in incremental auto-vacuum mode),
 * a megabyte at a time between other work: each step moves pages through the journal and the
 * checkpoint after it shortens the file, so it needs little room even on a full disk.
 */
export class SpaceReturner {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Database,
    private readonly reserve: DiskReserve,
  ) {}

  /**
   * Runs a delete, on a full disk too (see DiskReserve.freeing), and gives the space back soon
   * when it removed anything (a true or non-zero result).
   */
  delete<T>(work: () => T): T {
    const result = this.reserve.freeing(work);
    if (result) this.soon();
    return result;
  }

  soon(): void {
    if (this.timer || !this.db.open) return;
    this.timer = setTimeout(() => this.step(), 0);
    this.timer.unref();
  }

  private step(): void {
    this.timer = null;
    try {
      if (!this.db.open || (this.db.pragma('freelist_count', { simple: true }) as number) === 0) return;
      this.reserve.freeing(() => this.db.pragma('incremental_vacuum(256)'));
      // The checkpoint may first write pages past the file's end (commits not yet copied in).
      this.reserve.freeing(() => this.db.pragma('wal_checkpoint(PASSIVE)'));
    } catch {
      return; // busy, or no room even so: the pages stay free inside the file and are used again
    }
    this.soon();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The embedded store: one SQLite file in WAL mode, fsync on every commit. */
export function openSqliteStore(file: string): Store {
  // The data folder and the database are the owner's alone (SQLite gives its WAL the file's mode).
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  restrictMode(path.dirname(file), 0o700);
  for (const part of [file, `${file}-wal`, `${file}-shm`]) restrictMode(part, 0o600);
  const db = new Database(file);
  // Deleted templates and job results give their space back to the disk, not only to the file:
  // set on a new database; an older one is converted once (VACUUM), if the disk has room for it.
  if (db.pragma('auto_vacuum', { simple: true }) !== 2) {
    db.pragma('auto_vacuum = INCREMENTAL');
    try {
      db.exec('VACUUM');
    } catch {
      // no room for the copy VACUUM makes: the next start tries again
    }
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 10000');
  migrate(db);
  // Counters and leases are written on every document request: they go through a connection of
  // their own that commits without an fsync (WAL with synchronous=NORMAL survives a process
  // crash, not a power cut), while templates, accounts and keys keep a full fsync per commit.
  const counters = new Database(file);
  counters.pragma('synchronous = NORMAL');
  // A checkpoint (its fsync) every 4,000 pages, not 1,000: the same few pages are written over and
  // over, so a checkpoint costs about the same however far apart; a claim and release cycle measured
  // 15 % less time. The WAL keeps up to about 16 MB, the size of the disk reserve.
  counters.pragma('wal_autocheckpoint = 4000');
  counters.pragma('foreign_keys = ON');
  counters.pragma('busy_timeout = 10000');
  const reserve = new DiskReserve(path.join(path.dirname(file), 'docsmith.reserve'));
  reserve.ensure();
  return new SqliteStore(db, counters, reserve);
}

/** A delivered document's reservation waiting to be committed (SqliteUsage.commitSoon). */
interface PendingCommit {
  reservation: number;
  accountId: number;
  resolve(): void;
  reject(error: Error): void;
}

/** A claim's outcome: refused, its reservation, or null (nothing counted). */
type ClaimOutcome = 'slots' | 'documents' | number | null;

/** A claim waiting to be written with the others of its turn of the event loop (SqliteUsage.writeClaims). */
interface QueuedClaim {
  accountId: number;
  wanted: UsageClaim;
  holder: string;
  resolve: (outcome: ClaimOutcome) => void;
  reject: (error: unknown) => void;
}

/** What waits for this instance's next write (SqliteUsage.withPending): commits, and slots to free (their holders). */
interface PendingWrites {
  commits: readonly PendingCommit[];
  releases: readonly string[];
}

/** How long a delivered document's commit, or a freed slot, waits for a claim to be written with. */
const WRITE_WITHIN_MS = 10;
/** When such a write failed on its own (the database is away): when it is tried again. */
const RETRY_WITHIN_MS = 1000;

/** How long a reservation the sweep took back is remembered, for a commit that comes late. */
const REFUNDED_KEPT_MS = 7 * 24 * 3600_000;

/** Prepared statements by connection and SQL: preparing costs more than running a small one. */
const statements = new WeakMap<Database, Map<string, BetterSqlite3.Statement>>();

function prepared(db: Database, sql: string): BetterSqlite3.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}

function migrate(db: Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  db.transaction(() => {
    const columns = db.prepare('PRAGMA table_info(schema_migrations)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'oldest_reader')) db.exec('ALTER TABLE schema_migrations ADD COLUMN oldest_reader INTEGER');
    const rows = db.prepare('SELECT version, oldest_reader FROM schema_migrations').all() as {
      version: number;
      oldest_reader: number | null;
    }[];
    for (const version of pendingMigrations(rows, SQLITE_MIGRATIONS.length)) {
      db.exec(SQLITE_MIGRATIONS[version - 1]!);
      db.prepare('INSERT INTO schema_migrations (version, applied_at, oldest_reader) VALUES (?, ?, ?)').run(
        version,
        Date.now(),
        SQLITE_OLDEST_READER,
      );
    }
  }).immediate();
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_CONSTRAINT_UNIQUE');
}

const ACCOUNT_SELECT = `SELECT ${accountColumns} FROM accounts`;

class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly templates: TemplateRepository;
  readonly usage: UsageRepository;
  readonly authFailures: AuthFailureRepository;
  readonly shareLinks: ShareLinkRepository;
  readonly audit: AuditRepository;
  readonly settings: SettingRepository;
  readonly jobs: JobRepository;

  private readonly space: SpaceReturner;
  private readonly sqliteUsage: SqliteUsage;

  constructor(
    private readonly db: Database,
    private readonly counters: Database,
    private readonly reserve: DiskReserve,
  ) {
    this.space = new SpaceReturner(db, reserve);
    this.jobs = new SqliteJobs(db, this.space);
    this.shareLinks = new SqliteShareLinks(db);
    this.audit = new SqliteAudit(db);
    this.settings = new SqliteSettings(db);
    this.authFailures = new SqliteAuthFailures(db);
    this.accounts = new SqliteAccounts(db, this.space, counters);
    this.apiKeys = new SqliteApiKeys(db);
    this.templates = new SqliteTemplates(db, this.space);
    this.sqliteUsage = new SqliteUsage(counters);
    this.usage = this.sqliteUsage;
  }

  async ping(): Promise<StoreHealth> {
    const health = await this.schema();
    this.reserve.ensure();
    return health;
  }

  async schema(): Promise<StoreHealth> {
    let found: SchemaState | null;
    try {
      const row = prepared(this.db, 'SELECT * FROM schema_migrations ORDER BY version DESC LIMIT 1').get() as
        { version: number; oldest_reader?: number | null } | undefined;
      found = stateOf(row && { version: row.version, oldest_reader: row.oldest_reader ?? null });
    } catch (error) {
      if (/42P01|no such table/.test(`${(error as { code?: string }).code} ${(error as Error).message}`))
        throw new StorageUnavailableError(NO_SCHEMA, NO_SCHEMA);
      throw asStorageUnavailable(error) ?? error;
    }
    return healthOf(schemaFit(found, SQLITE_MIGRATIONS.length));
  }

  async objectPointers(): Promise<string[]> {
    const prefix = Buffer.from(OBJECT_POINTER);
    const rows = prepared(
      this.db,
      `SELECT data AS p FROM templates WHERE substr(data, 1, ${prefix.length}) = @prefix
       UNION SELECT data FROM template_versions WHERE substr(data, 1, ${prefix.length}) = @prefix
       UNION SELECT result FROM jobs WHERE substr(result, 1, ${prefix.length}) = @prefix`,
    ).all({ prefix }) as { p: Buffer }[];
    return rows.map((r) => Buffer.from(r.p).toString('utf8'));
  }

  async backup(file: string): Promise<void> {
    const target = path.resolve(file);
    const live = path.resolve(this.db.name);
    const same = (a: string, b: string) => {
      try {
        const [x, y] = [fs.statSync(a), fs.statSync(b)];
        return x.dev === y.dev && x.ino === y.ino;
      } catch {
        return path.resolve(a) === path.resolve(b);
      }
    };
    if ([live, `${live}-wal`, `${live}-shm`, `${live}-journal`].some((part) => same(target, part))) {
      throw new BackupError(
        `--out ${file} is the live database (or its journal); a backup written there would destroy it. Choose another file.`,
      );
    }
    if (fs.existsSync(target) && fs.statSync(target).isDirectory()) {
      throw new BackupError(`--out ${file} is a folder; name a file in it, e.g. ${path.join(file, 'docsmith-backup.sqlite')}`);
    }
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const partial = `${target}.partial`;
    fs.rmSync(partial, { force: true });
    try {
      await this.db.backup(partial);
      fs.chmodSync(partial, 0o600);
      fs.renameSync(partial, target);
    } catch (error) {
      fs.rmSync(partial, { force: true });
      throw new BackupError(`the backup to ${file} failed: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.space.stop();
    this.sqliteUsage.writeBeforeClose();
    if (this.counters.open) this.counters.close();
    if (this.db.open) {
      // Everything back into the one file, so copying docsmith.sqlite alone after a stop is a backup.
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      this.db.close();
    }
  }
}

class SqliteAccounts implements AccountRepository {
  constructor(
    private readonly db: Database,
    private readonly space: SpaceReturner,
    /**
     * The counting connection, for the read every signed-in request makes: its page cache stays
     * valid across its own writes (a claim, a release), where this connection's is dropped after
     * each of them and read again.
     */
    private readonly counters: Database,
  ) {}

  async create(account: NewAccount): Promise<Account> {
    try {
      const info = this.insert(account);
      return (await this.byId(Number(info.lastInsertRowid)))!;
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateError(`user "${account.username}" exists already`);
      throw error;
    }
  }

  async createIfMissing(account: NewAccount): Promise<boolean> {
    try {
      this.insert(account);
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  private insert(a: NewAccount): BetterSqlite3.RunResult {
    return this.db
      .prepare(
        `INSERT INTO accounts (username, password_hash, licence, max_documents, max_templates, max_proofing, valid_until, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        a.username,
        a.passwordHash,
        a.licence,
        a.maxDocuments,
        a.maxTemplates,
        a.maxProofingTransactions,
        a.validUntil ? a.validUntil.getTime() : null,
        Date.now(),
      );
  }

  async byId(id: number): Promise<Account | null> {
    const row = prepared(this.counters, `${ACCOUNT_SELECT} WHERE id = ?`).get(id) as AccountRow | undefined;
    return row ? rowToAccount(row) : null;
  }

  async byUsername(username: string): Promise<Account | null> {
    const row = prepared(this.db, `${ACCOUNT_SELECT} WHERE username = ?`).get(username) as AccountRow | undefined;
    return row ? rowToAccount(row) : null;
  }

  async byApiKey(keyHash: string): Promise<Account | null> {
    const row = prepared(this.db, `${ACCOUNT_SELECT} WHERE id = (SELECT account_id FROM api_keys WHERE key_hash = ? AND active = 1)`).get(
      keyHash,
    ) as AccountRow | undefined;
    return row ? rowToAccount(row) : null;
  }

  async storageBytes(id: number): Promise<number> {
    // length() of a blob reads its size from the record header, not its pages.
    return (
      prepared(
        this.db,
        `SELECT (SELECT COALESCE(SUM(size), 0) FROM templates WHERE account_id = ?)
      + (SELECT COALESCE(SUM(size), 0) FROM template_versions WHERE account_id = ?)
      + (SELECT COALESCE(SUM(COALESCE(length(request), 0) + COALESCE(length(result), 0)), 0) FROM jobs WHERE account_id = ?) AS n`,
      ).get(id, id, id) as { n: number }
    ).n;
  }

  async list(): Promise<Account[]> {
    return (prepared(this.db, `${ACCOUNT_SELECT} ORDER BY id`).all() as AccountRow[]).map(rowToAccount);
  }

  async update(id: number, patch: AccountPatch): Promise<Account | null> {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    const add = (column: string, value: string | number | null) => {
      sets.push(`${column} = ?`);
      values.push(value);
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
      prepared(this.db, `UPDATE accounts SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
    }
    return this.byId(id);
  }

  async delete(id: number): Promise<boolean> {
    return this.space.delete(() => prepared(this.db, 'DELETE FROM accounts WHERE id = ?').run(id).changes > 0);
  }
}

class SqliteApiKeys implements ApiKeyRepository {
  constructor(private readonly db: Database) {}

  async add(
    accountId: number,
    key: { keyHash: string; keySealed: string; name?: string; scope?: string },
    maxKeys: number,
  ): Promise<'added' | 'limit'> {
    return this.db
      .transaction((): 'added' | 'limit' => {
        const { n } = prepared(this.db, 'SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?').get(accountId) as { n: number };
        if (n >= maxKeys) return 'limit';
        this.db
          .prepare('INSERT INTO api_keys (account_id, key_hash, key_sealed, active, created_at, name, scope) VALUES (?, ?, ?, 1, ?, ?, ?)')
          .run(accountId, key.keyHash, key.keySealed, Date.now(), key.name ?? '', key.scope ?? 'full');
        return 'added';
      })
      .immediate();
  }

  async list(accountId: number): Promise<ApiKeyRecord[]> {
    const rows = prepared(this.db, 'SELECT * FROM api_keys WHERE account_id = ? ORDER BY id').all(accountId) as ApiKeyRow[];
    return rows.map(rowToApiKey);
  }

  async byHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = prepared(this.db, 'SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as ApiKeyRow | undefined;
    return row ? rowToApiKey(row) : null;
  }

  async delete(accountId: number, keyHash: string): Promise<boolean> {
    return prepared(this.db, 'DELETE FROM api_keys WHERE account_id = ? AND key_hash = ?').run(accountId, keyHash).changes > 0;
  }

  async rename(accountId: number, id: number, name: string): Promise<boolean> {
    return prepared(this.db, 'UPDATE api_keys SET name = ? WHERE account_id = ? AND id = ?').run(name, accountId, id).changes > 0;
  }

  async touch(keyHash: string, at: Date): Promise<void> {
    const time = at.getTime();
    prepared(this.db, 'UPDATE api_keys SET last_used_at = ? WHERE key_hash = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(
      time,
      keyHash,
      time,
    );
  }

  async sample(limit: number): Promise<ApiKeyRecord[]> {
    return (prepared(this.db, 'SELECT * FROM api_keys ORDER BY id DESC LIMIT ?').all(limit) as ApiKeyRow[]).map(rowToApiKey);
  }
}

const TEMPLATE_META = 'name, format, size, sha256, modified_at, version, syntax';

class SqliteTemplates implements TemplateRepository {
  constructor(
    private readonly db: Database,
    private readonly space: SpaceReturner,
  ) {}

  async put(accountId: number, t: NewTemplate, maxTemplates: number, keepVersions = 0): Promise<'created' | 'replaced' | 'limit'> {
    return this.db
      .transaction((): 'created' | 'replaced' | 'limit' => {
        const sql = (text: string) => prepared(this.db, text);
        const current = sql('SELECT version FROM templates WHERE account_id = ? AND name = ?').get(accountId, t.name) as
          { version: number } | undefined;
        if (!current) {
          const { n } = sql('SELECT COUNT(*) AS n FROM templates WHERE account_id = ?').get(accountId) as { n: number };
          if (n >= maxTemplates) return 'limit';
          // A version number goes on from any earlier versions left by a delete that raced, never back.
          sql('DELETE FROM template_versions WHERE account_id = ? AND name = ?').run(accountId, t.name);
          sql(
            'INSERT INTO templates (account_id, name, format, size, sha256, modified_at, data, version, syntax) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)',
          ).run(accountId, t.name, t.format, t.size ?? t.data.length, t.sha256, Date.now(), t.data, storedSyntax(t));
          return 'created';
        }
        if (keepVersions > 0)
          sql(`INSERT OR REPLACE INTO template_versions (account_id, name, version, format, size, sha256, modified_at, data, syntax)
               SELECT account_id, name, version, format, size, sha256, modified_at, data, syntax FROM templates WHERE account_id = ? AND name = ?`).run(
            accountId,
            t.name,
          );
        sql(`UPDATE templates SET format = ?, size = ?, sha256 = ?, modified_at = ?, data = ?, version = version + 1, syntax = ?
             WHERE account_id = ? AND name = ?`).run(
          t.format,
          t.size ?? t.data.length,
          t.sha256,
          Date.now(),
          t.data,
          storedSyntax(t),
          accountId,
          t.name,
        );
        sql('DELETE FROM template_versions WHERE account_id = ? AND name = ? AND version <= ?').run(
          accountId,
          t.name,
          current.version - keepVersions,
        );
        return 'replaced';
      })
      .immediate();
  }

  async versions(accountId: number, name: string): Promise<TemplateVersionMeta[]> {
    const rows = prepared(
      this.db,
      `SELECT ${TEMPLATE_META}, 1 AS current FROM templates WHERE account_id = ? AND name = ?
       UNION ALL SELECT ${TEMPLATE_META}, 0 AS current FROM template_versions
       WHERE account_id = ? AND name = ? AND EXISTS (SELECT 1 FROM templates WHERE account_id = ? AND name = ?)
       ORDER BY version DESC`,
    ).all(accountId, name, accountId, name, accountId, name) as (TemplateRow & { current: number })[];
    return rows.map((r) => ({ ...rowToTemplateMeta(r), current: r.current === 1 }));
  }

  async getVersion(accountId: number, name: string, version: number): Promise<TemplateRecord | null> {
    const row = prepared(
      this.db,
      `SELECT ${TEMPLATE_META}, data FROM templates WHERE account_id = ? AND name = ? AND version = ?
       UNION ALL SELECT ${TEMPLATE_META}, data FROM template_versions v WHERE account_id = ? AND name = ? AND version = ?
       AND EXISTS (SELECT 1 FROM templates t WHERE t.account_id = v.account_id AND t.name = v.name)`,
    ).get(accountId, name, version, accountId, name, version) as (TemplateRow & { data: Buffer }) | undefined;
    return row ? { ...rowToTemplateMeta(row), data: row.data } : null;
  }

  async get(accountId: number, name: string): Promise<TemplateRecord | null> {
    const row = this.db.prepare(`SELECT ${TEMPLATE_META}, data FROM templates WHERE account_id = ? AND name = ?`).get(accountId, name) as
      (TemplateRow & { data: Buffer }) | undefined;
    return row ? { ...rowToTemplateMeta(row), data: row.data } : null;
  }

  async meta(accountId: number, name: string): Promise<TemplateMeta | null> {
    const row = this.db.prepare(`SELECT ${TEMPLATE_META} FROM templates WHERE account_id = ? AND name = ?`).get(accountId, name) as
      TemplateRow | undefined;
    return row ? rowToTemplateMeta(row) : null;
  }

  async list(accountId: number): Promise<TemplateMeta[]> {
    const rows = this.db
      .prepare(`SELECT ${TEMPLATE_META} FROM templates WHERE account_id = ? ORDER BY name`)
      .all(accountId) as TemplateRow[];
    return rows.map(rowToTemplateMeta);
  }

  async count(accountId: number): Promise<number> {
    return (prepared(this.db, 'SELECT COUNT(*) AS n FROM templates WHERE account_id = ?').get(accountId) as { n: number }).n;
  }

  async delete(accountId: number, name: string): Promise<boolean> {
    return this.space.delete(() =>
      this.db.transaction(() => {
        prepared(this.db, 'DELETE FROM template_versions WHERE account_id = ? AND name = ?').run(accountId, name);
        return prepared(this.db, 'DELETE FROM templates WHERE account_id = ? AND name = ?').run(accountId, name).changes > 0;
      })(),
    );
  }
}

/**
 * Slots are lease rows so that every process sharing the file sees them. A lease ends when it
 * is released, when it expires, or when the process holding it is gone.
 */
interface ShareRow {
  id: string;
  account_id: number;
  template_name: string;
  created_at: number;
  expires_at: number;
}
const shareLink = (r: ShareRow): ShareLinkRecord => ({
  id: r.id,
  accountId: r.account_id,
  templateName: r.template_name,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
});

class SqliteSettings implements SettingRepository {
  constructor(private readonly db: Database) {}

  async get(key: string): Promise<string | null> {
    return (prepared(this.db, 'SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null;
  }

  async set(key: string, value: string): Promise<void> {
    prepared(this.db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      value,
    );
  }

  async delete(key: string): Promise<boolean> {
    return prepared(this.db, 'DELETE FROM settings WHERE key = ?').run(key).changes > 0;
  }
}

class SqliteAudit implements AuditRepository {
  constructor(private readonly db: Database) {}

  async add(e: NewAuditEvent): Promise<void> {
    prepared(this.db, `${AUDIT_INSERT} VALUES (?, ?, ?, ?, ?, ?)`).run(...auditValues(e));
  }

  async list(accountId: number, options: { limit: number; before?: number }): Promise<AuditEvent[]> {
    const rows = prepared(this.db, 'SELECT * FROM audit_events WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?').all(
      accountId,
      options.before ?? Number.MAX_SAFE_INTEGER,
      options.limit,
    ) as AuditRow[];
    return rows.map(rowToAuditEvent);
  }

  async prune(cutoff: Date): Promise<number> {
    return prepared(this.db, 'DELETE FROM audit_events WHERE at < ?').run(cutoff.getTime()).changes;
  }
}

class SqliteShareLinks implements ShareLinkRepository {
  constructor(private readonly db: Database) {}

  async add(link: ShareLinkRecord & { tokenHash: string }): Promise<void> {
    prepared(
      this.db,
      'INSERT INTO share_links (token_hash, id, account_id, template_name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(link.tokenHash, link.id, link.accountId, link.templateName, link.createdAt.getTime(), link.expiresAt.getTime());
  }

  async byTokenHash(tokenHash: string, now: Date): Promise<ShareLinkRecord | null> {
    const row = prepared(this.db, 'SELECT * FROM share_links WHERE token_hash = ? AND expires_at > ?').get(tokenHash, now.getTime()) as
      ShareRow | undefined;
    return row ? shareLink(row) : null;
  }

  async list(accountId: number, now: Date): Promise<ShareLinkRecord[]> {
    return (
      prepared(this.db, 'SELECT * FROM share_links WHERE account_id = ? AND expires_at > ? ORDER BY created_at DESC, id').all(
        accountId,
        now.getTime(),
      ) as ShareRow[]
    ).map(shareLink);
  }

  async revoke(accountId: number, id: string): Promise<boolean> {
    return prepared(this.db, 'DELETE FROM share_links WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0;
  }

  async revokeForTemplate(accountId: number, templateName: string): Promise<number> {
    return prepared(this.db, 'DELETE FROM share_links WHERE account_id = ? AND template_name = ?').run(accountId, templateName).changes;
  }
}

class SqliteAuthFailures implements AuthFailureRepository {
  constructor(private readonly db: Database) {}

  async record(keys: string[], at: number): Promise<void> {
    const insert = prepared(this.db, 'INSERT INTO auth_failures (key, at) VALUES (?, ?)');
    this.db.transaction(() => {
      for (const key of keys) insert.run(key, at);
    })();
  }

  async since(keys: string[], since: number): Promise<{ count: number; oldest: number | null }[]> {
    const query = prepared(this.db, 'SELECT COUNT(*) AS count, MIN(at) AS oldest FROM auth_failures WHERE key = ? AND at >= ?');
    return keys.map((key) => query.get(key, since) as { count: number; oldest: number | null });
  }

  async clear(key: string): Promise<void> {
    prepared(this.db, 'DELETE FROM auth_failures WHERE key = ?').run(key);
  }

  async prune(before: number): Promise<void> {
    prepared(this.db, 'DELETE FROM auth_failures WHERE at < ?').run(before);
  }
}

class SqliteUsage implements UsageRepository {
  // Made once: better-sqlite3 builds a transaction function per call otherwise.
  private readonly reserveTx: (accountId: number, leaseMs: number, workKey: string | null) => number | null;
  private readonly refundTx: (id: number, accountId: number) => void;
  private readonly refundExpiredTx: () => number;
  private readonly acquireTx: (accountId: number, limit: number, leaseMs: number, holder: string, batch: PendingWrites) => number | null;
  private readonly proofingTx: (accountId: number) => boolean;
  private readonly claimTx: (accountId: number, wanted: UsageClaim, holder: string, batch: PendingWrites) => ClaimOutcome;
  /** Claims asked for in one turn of the event loop, each in a savepoint of one transaction; an error is that claim's alone. */
  private readonly claimsTx: (claims: readonly QueuedClaim[], batch: PendingWrites) => ({ claimed: ClaimOutcome } | { error: unknown })[];
  private readonly settleTx: (accountId: number, reservation: number | null, kept: boolean, holder: string | null) => void;
  private readonly writePendingTx: (batch: PendingWrites) => void;
  /** Claims waiting for the end of this turn of the event loop (writeClaims). */
  private queued: QueuedClaim[] = [];
  private claimsDue: NodeJS.Immediate | undefined;
  /** Delivered documents whose reservations are yet to be committed (commitSoon). */
  private pending: PendingCommit[] = [];
  /** Holders whose slots are yet to be freed in the table (releaseSoon). */
  private releases: string[] = [];
  private pendingTimer: NodeJS.Timeout | undefined;
  private readonly commitTx: (id: number, accountId: number) => void;

  constructor(private readonly db: Database) {
    const sql = (text: string) => prepared(db, text);
    const count = sql(countUsageSql('documents', '@month', '@id'));
    const countProofing = sql(countUsageSql('proofing', '@month', '@id'));
    // With a work key, an earlier attempt's reservation is taken over instead of counting again.
    const reserveRow = (accountId: number, leaseMs: number, workKey: string | null): number | null => {
      if (workKey !== null) {
        const earlier = sql(
          'UPDATE document_reservations SET expires_at = ? WHERE work_key = ? AND refunded_at IS NULL AND account_id = ? RETURNING id',
        ).get(Date.now() + leaseMs, workKey, accountId) as { id: number } | undefined;
        if (earlier) return earlier.id;
      }
      if (count.run({ id: accountId, month: usageMonth() }).changes === 0) return null;
      return Number(
        sql('INSERT INTO document_reservations (account_id, expires_at, work_key) VALUES (?, ?, ?)').run(
          accountId,
          Date.now() + leaseMs,
          workKey,
        ).lastInsertRowid,
      );
    };
    const reserve = db.transaction(reserveRow);
    this.reserveTx = (accountId, leaseMs, workKey) => reserve.immediate(accountId, leaseMs, workKey);
    // One the sweep took back meanwhile (a slow delivery) is counted again; none left: committed already.
    const commitRow = (id: number, accountId: number) => {
      const gone = sql('DELETE FROM document_reservations WHERE id = ? RETURNING refunded_at').get(id) as
        { refunded_at: number | null } | undefined;
      if (gone && gone.refunded_at !== null)
        sql('UPDATE accounts SET created_documents = created_documents + 1 WHERE id = ?').run(accountId);
    };
    const commit = db.transaction(commitRow);
    this.commitTx = (id, accountId) => commit.immediate(id, accountId);
    const refundRow = (id: number, accountId: number) => {
      const gone = sql('DELETE FROM document_reservations WHERE id = ? RETURNING refunded_at').get(id) as
        { refunded_at: number | null } | undefined;
      if (gone && gone.refunded_at === null) {
        sql('UPDATE accounts SET created_documents = created_documents - 1 WHERE id = ? AND created_documents > 0').run(accountId);
      }
    };
    const refund = db.transaction(refundRow);
    this.refundTx = (id, accountId) => refund.immediate(id, accountId);
    const refundExpired = db.transaction((): number => {
      const now = Date.now();
      // Marked, not removed: a commit that comes later counts it again (see migrations.ts, workKeys).
      sql('DELETE FROM document_reservations WHERE refunded_at < ?').run(now - REFUNDED_KEPT_MS);
      const rows = sql(
        'UPDATE document_reservations SET refunded_at = ? WHERE expires_at < ? AND refunded_at IS NULL RETURNING account_id',
      ).all(now, now) as { account_id: number }[];
      for (const row of rows) {
        sql('UPDATE accounts SET created_documents = created_documents - 1 WHERE id = ? AND created_documents > 0').run(row.account_id);
      }
      return rows.length;
    });
    this.refundExpiredTx = () => refundExpired.immediate();
    const acquireRow = (accountId: number, limit: number, leaseMs: number, holder: string): number | null => {
      const now = Date.now();
      const rows = sql('SELECT slot, holder, expires_at FROM merge_slots WHERE account_id = ?').all(accountId) as {
        slot: number;
        holder: string;
        expires_at: number;
      }[];
      const taken = new Set<number>();
      for (const row of rows) {
        const pid = Number(row.holder.split(':')[0]);
        if (row.expires_at <= now || !processAlive(pid)) {
          sql('DELETE FROM merge_slots WHERE account_id = ? AND slot = ?').run(accountId, row.slot);
        } else {
          taken.add(row.slot);
        }
      }
      for (let candidate = 0; candidate < limit; candidate++) {
        if (taken.has(candidate)) continue;
        sql('INSERT INTO merge_slots (account_id, slot, holder, expires_at) VALUES (?, ?, ?, ?)').run(
          accountId,
          candidate,
          holder,
          now + leaseMs,
        );
        return candidate;
      }
      return null;
    };
    const releaseSlot = (holder: string) => sql('DELETE FROM merge_slots WHERE holder = ?').run(holder);
    const writePending = (batch: PendingWrites) => {
      for (const holder of batch.releases) releaseSlot(holder);
      for (const c of batch.commits) commitRow(c.reservation, c.accountId);
    };
    const acquire = db.transaction((accountId: number, limit: number, leaseMs: number, holder: string, batch: PendingWrites) => {
      writePending(batch);
      return acquireRow(accountId, limit, leaseMs, holder);
    });
    this.acquireTx = (accountId, limit, leaseMs, holder, batch) => acquire.immediate(accountId, limit, leaseMs, holder, batch);
    const claimRow = (accountId: number, wanted: UsageClaim, holder: string): ClaimOutcome => {
      if (wanted.slot && acquireRow(accountId, wanted.slot.limit, wanted.slot.leaseMs, holder) === null) return 'slots';
      if (wanted.documentLeaseMs === undefined) return null;
      const reservation = reserveRow(accountId, wanted.documentLeaseMs, wanted.workKey ?? null);
      if (reservation !== null) return reservation;
      if (wanted.slot) releaseSlot(holder);
      return 'documents';
    };
    const claim = db.transaction((accountId: number, wanted: UsageClaim, holder: string, batch: PendingWrites): ClaimOutcome => {
      writePending(batch);
      return claimRow(accountId, wanted, holder);
    });
    this.claimTx = (accountId, wanted, holder, batch) => claim.immediate(accountId, wanted, holder, batch);
    // Called inside a transaction, a transaction function is a savepoint: a claim that fails leaves the others written.
    const claimOne = db.transaction(claimRow);
    const claims = db.transaction((queued: readonly QueuedClaim[], batch: PendingWrites) => {
      writePending(batch);
      return queued.map((c) => {
        try {
          return { claimed: claimOne(c.accountId, c.wanted, c.holder) };
        } catch (error) {
          return { error };
        }
      });
    });
    this.claimsTx = (queued, batch) => claims.immediate(queued, batch);
    const settle = db.transaction((accountId: number, reservation: number | null, kept: boolean, holder: string | null) => {
      if (reservation !== null) {
        if (kept) commitRow(reservation, accountId);
        else refundRow(reservation, accountId);
      }
      if (holder !== null) releaseSlot(holder);
    });
    this.settleTx = (accountId, reservation, kept, holder) => settle.immediate(accountId, reservation, kept, holder);
    const writeBatch = db.transaction(writePending);
    this.writePendingTx = (batch) => writeBatch.immediate(batch);
    const proofing = db.transaction((accountId: number): boolean => countProofing.run({ id: accountId, month: usageMonth() }).changes > 0);
    this.proofingTx = (accountId) => proofing.immediate(accountId);
  }

  async claim(accountId: number, wanted: UsageClaim): Promise<ClaimResult> {
    // Nothing to count or hold (a test run that is not a merge): no write at all.
    if (!wanted.slot && wanted.documentLeaseMs === undefined)
      return {
        granted: { settle: async () => undefined, releaseSlot: async () => undefined },
        template: this.templateMeta(accountId, wanted.template),
      };
    let holder = wanted.slot ? `${process.pid}:${randomUUID()}` : null;
    const claimed = await new Promise<ClaimOutcome>((resolve, reject) => {
      this.queued.push({ accountId, wanted, holder: holder ?? '', resolve, reject });
      this.claimsDue ??= setImmediate(() => this.writeClaims());
    });
    if (claimed === 'slots' || claimed === 'documents') return { refused: claimed };
    let settled = false;
    return {
      template: this.templateMeta(accountId, wanted.template),
      granted: {
        settle: async (kept) => {
          if (settled || !this.db.open) return;
          // A kept job's document is committed with its outcome (SqliteJobs.finish).
          const reservation = kept && wanted.workKey !== undefined ? null : claimed;
          if (kept && holder === null && reservation !== null) await this.commitSoon(reservation, accountId);
          else if (reservation !== null || holder !== null) this.settleTx(accountId, reservation, kept, holder);
          settled = true;
        },
        releaseSlot: async () => {
          if (holder === null || !this.db.open) return;
          this.releaseSoon(holder);
          holder = null;
        },
      },
    };
  }

  /**
   * Writes the claims asked for in this turn of the event loop: under load, several requests reach
   * their claim in one turn, and one transaction for all of them costs about what one costs alone
   * (its begin and commit are most of it: 87 us for one claim, 45 each for two, 26 each for four).
   */
  private writeClaims(): void {
    clearImmediate(this.claimsDue);
    this.claimsDue = undefined;
    const queued = this.queued;
    this.queued = [];
    if (queued.length === 0) return;
    try {
      if (queued.length === 1) {
        const [c] = queued as [QueuedClaim];
        c.resolve(this.withPending((batch) => this.claimTx(c.accountId, c.wanted, c.holder, batch)));
        return;
      }
      const outcomes = this.withPending((batch) => this.claimsTx(queued, batch));
      outcomes.forEach((o, i) => ('claimed' in o ? queued[i]!.resolve(o.claimed) : queued[i]!.reject(o.error)));
    } catch (error) {
      for (const c of queued) c.reject(error);
    }
  }

  /**
   * Commits a delivered document's reservation (its slot is free already) with this instance's
   * next claim, or within WRITE_WITHIN_MS. The count was taken at the claim; the commit only keeps
   * the sweep from taking it back.
   */
  private commitSoon(reservation: number, accountId: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ reservation, accountId, resolve, reject });
      this.writeWithin(WRITE_WITHIN_MS);
    });
  }

  /**
   * Frees a slot in the table with this instance's next claim, or within WRITE_WITHIN_MS: this
   * instance's own claims see it free at once (they write it first), other instances on the same
   * file within those milliseconds. With commitSoon, a merge request costs one write transaction.
   */
  private releaseSoon(holder: string): void {
    this.releases.push(holder);
    this.writeWithin(WRITE_WITHIN_MS);
  }

  /** Writes what waits within `ms`, unless a write is due already. */
  private writeWithin(ms: number): void {
    this.pendingTimer ??= setTimeout(() => this.writePending(), ms);
  }

  /** Writes the waiting commits and releases now (the timer, and the store before it closes). */
  writePending(): void {
    clearTimeout(this.pendingTimer);
    this.pendingTimer = undefined;
    if ((this.pending.length === 0 && this.releases.length === 0) || !this.db.open) return;
    try {
      this.withPending((batch) => this.writePendingTx(batch));
    } catch {
      // Told to each waiting settle (the usage guard tries again); the releases are tried again.
    }
  }

  /**
   * The last write, as the store closes. Releases that fail to write now are not tried again: no
   * retry keeps the process up, and the next claim on the file frees the slots of a process that
   * is gone (or when their leases run out).
   */
  writeBeforeClose(): void {
    this.writeClaims();
    this.writePending();
    clearTimeout(this.pendingTimer);
    this.pendingTimer = undefined;
  }

  /**
   * Runs a write with the waiting commits and releases in its transaction. The commits are settled
   * by its outcome; releases that could not be written wait for the next write.
   */
  private withPending<T>(write: (batch: PendingWrites) => T): T {
    const batch = { commits: this.pending, releases: this.releases };
    if (batch.commits.length > 0 || batch.releases.length > 0) {
      this.pending = [];
      this.releases = [];
      clearTimeout(this.pendingTimer);
      this.pendingTimer = undefined;
    }
    let result: T;
    try {
      result = write(batch);
    } catch (error) {
      for (const c of batch.commits) c.reject(error as Error);
      if (batch.releases.length > 0) {
        this.releases.unshift(...batch.releases);
        this.writeWithin(RETRY_WITHIN_MS);
      }
      throw error;
    }
    for (const c of batch.commits) c.resolve();
    return result;
  }

  private templateMeta(accountId: number, name: string | undefined): TemplateMeta | null {
    if (name === undefined) return null;
    const row = prepared(this.db, `SELECT ${TEMPLATE_META} FROM templates WHERE account_id = ? AND name = ?`).get(accountId, name) as
      TemplateRow | undefined;
    return row ? rowToTemplateMeta(row) : null;
  }

  async reserveDocument(accountId: number, leaseMs: number, workKey?: string): Promise<DocumentReservation | null> {
    const id = this.reserveTx(accountId, leaseMs, workKey ?? null);
    if (id === null) return null;
    return {
      commit: async () => {
        this.commitTx(id, accountId);
      },
      refund: async () => {
        this.refundTx(id, accountId);
      },
    };
  }

  async refundExpired(): Promise<number> {
    return this.refundExpiredTx();
  }

  async reserveProofing(accountId: number): Promise<boolean> {
    return this.proofingTx(accountId);
  }

  async acquireSlot(accountId: number, limit: number, leaseMs: number): Promise<SlotLease | null> {
    const holder = `${process.pid}:${randomUUID()}`;
    const slot = this.withPending((batch) => this.acquireTx(accountId, limit, leaseMs, holder, batch));
    if (slot === null) return null;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        if (this.db.open) prepared(this.db, 'DELETE FROM merge_slots WHERE holder = ?').run(holder);
      },
    };
  }
}

const JOB_COLUMNS = jobColumns('length');
const JOB_SELECT = `SELECT ${JOB_COLUMNS} FROM jobs`;
const WAITING = "state IN ('queued', 'running')";

class SqliteJobs implements JobRepository {
  private readonly addTx: (job: NewJob, maxWaiting: number) => 'added' | 'limit' | { existing: string };
  private readonly claimTx: (leaseMs: number, holder: string) => ClaimedJob | null;
  private readonly claimCallbacksTx: (leaseMs: number, limit: number, skipAccounts: string) => JobRecord[];
  private readonly finishTx: (id: string, holder: string, outcome: JobOutcome, retainMs: number) => boolean;

  constructor(
    private readonly db: Database,
    private readonly space: SpaceReturner,
  ) {
    const sql = (text: string) => prepared(db, text);
    const add = db.transaction((job: NewJob, maxWaiting: number): 'added' | 'limit' | { existing: string } => {
      if (job.idempotencyKey !== undefined) {
        const earlier = sql('SELECT id FROM jobs WHERE account_id = ? AND idempotency_key = ?').get(job.accountId, job.idempotencyKey) as
          { id: string } | undefined;
        if (earlier) return { existing: earlier.id };
      }
      const { n } = sql(`SELECT COUNT(*) AS n FROM jobs WHERE account_id = ? AND ${WAITING}`).get(job.accountId) as { n: number };
      if (n >= maxWaiting) return 'limit';
      const now = Date.now();
      sql(`INSERT INTO jobs (id, account_id, kind, state, request, created_at, due_at, callback_url, idempotency_key, summary)
        VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)`).run(
        job.id,
        job.accountId,
        job.kind,
        job.request,
        now,
        now,
        job.callbackUrl,
        job.idempotencyKey ?? null,
        job.summary ? JSON.stringify(job.summary) : null,
      );
      return 'added';
    });
    this.addTx = (job, maxWaiting) => add.immediate(job, maxWaiting);
    const claim = db.transaction((leaseMs: number, holder: string): ClaimedJob | null => {
      const now = Date.now();
      const due = sql(`SELECT id FROM jobs WHERE (state = 'queued' AND due_at <= ?) OR (state = 'running' AND lease_until < ?)
        ORDER BY created_at LIMIT 1`).get(now, now) as { id: string } | undefined;
      if (!due) return null;
      sql(`UPDATE jobs SET state = 'running', holder = ?, lease_until = ?, started_at = COALESCE(started_at, ?), attempts = attempts + 1
        WHERE id = ?`).run(holder, now + leaseMs, now, due.id);
      const row = sql(`SELECT ${JOB_COLUMNS}, request FROM jobs WHERE id = ?`).get(due.id) as JobRow & { request: Buffer };
      return { job: rowToJob(row), request: row.request, holder };
    });
    this.claimTx = (leaseMs, holder) => claim.immediate(leaseMs, holder);
    const claimCallbacks = db.transaction((leaseMs: number, limit: number, skipAccounts: string): JobRecord[] => {
      const now = Date.now();
      const rows = sql(`${JOB_SELECT} WHERE callback_state = 'pending' AND callback_due_at <= ?
        AND account_id NOT IN (SELECT value FROM json_each(?)) ORDER BY callback_due_at LIMIT ?`).all(now, skipAccounts, limit) as JobRow[];
      // The attempt counts when it is taken up: one whose instance died before recording it is not numbered again.
      for (const row of rows)
        sql('UPDATE jobs SET callback_due_at = ?, callback_attempts = callback_attempts + 1 WHERE id = ?').run(now + leaseMs, row.id);
      return rows.map((row) => rowToJob({ ...row, callback_attempts: Number(row.callback_attempts) + 1 }));
    });
    this.claimCallbacksTx = (leaseMs, limit, skipAccounts) => claimCallbacks.immediate(leaseMs, limit, skipAccounts);
    // The job's reserved document settles with it: committed with a result, taken back with an error.
    const finish = db.transaction((id: string, holder: string, outcome: JobOutcome, retainMs: number): boolean => {
      const now = Date.now();
      const ok = 'result' in outcome;
      const ended = sql(`UPDATE jobs SET state = ?, result = ?, error_status = ?, error_message = ?, request = NULL,
          finished_at = ?, expires_at = ?, holder = NULL, lease_until = NULL, progress = NULL,
          callback_state = CASE WHEN callback_url IS NULL THEN NULL ELSE 'pending' END,
          callback_due_at = CASE WHEN callback_url IS NULL THEN NULL ELSE ? END
        WHERE id = ? AND holder = ? AND state = 'running' RETURNING account_id`).get(
        ok ? 'done' : 'failed',
        ok ? outcome.result : null,
        ok ? null : outcome.error.status,
        ok ? null : outcome.error.message,
        now,
        now + retainMs,
        now,
        id,
        holder,
      ) as { account_id: number } | undefined;
      if (!ended) return false;
      // Its reserved document settles with it: committed with a result (counted again if the sweep
      // took it back meanwhile), taken back with an error.
      const settled = sql('DELETE FROM document_reservations WHERE work_key = ? RETURNING refunded_at').all(id) as {
        refunded_at: number | null;
      }[];
      const pending = settled.some((r) => r.refunded_at === null);
      if (ok && settled.length > 0 && !pending)
        sql('UPDATE accounts SET created_documents = created_documents + 1 WHERE id = ?').run(ended.account_id);
      if (!ok && pending)
        sql('UPDATE accounts SET created_documents = created_documents - 1 WHERE id = ? AND created_documents > 0').run(ended.account_id);
      return true;
    });
    this.finishTx = (id, holder, outcome, retainMs) => finish.immediate(id, holder, outcome, retainMs);
  }

  async add(job: NewJob, maxWaiting: number): Promise<'added' | 'limit' | { existing: string }> {
    return this.addTx(job, maxWaiting);
  }

  async get(accountId: number, id: string): Promise<JobRecord | null> {
    const row = prepared(this.db, `${JOB_SELECT} WHERE account_id = ? AND id = ?`).get(accountId, id) as JobRow | undefined;
    return row ? rowToJob(row) : null;
  }

  async list(accountId: number, limit: number, after?: JobCursor): Promise<JobRecord[]> {
    const rows = after
      ? prepared(
          this.db,
          `${JOB_SELECT} WHERE account_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
        ).all(accountId, after.createdAt.getTime(), after.createdAt.getTime(), after.id, limit)
      : prepared(this.db, `${JOB_SELECT} WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`).all(accountId, limit);
    return (rows as JobRow[]).map(rowToJob);
  }

  async queueStats(): Promise<{ waiting: number; oldestQueuedAt: Date | null }> {
    const row = prepared(this.db, "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM jobs WHERE state = 'queued'").get() as {
      n: number;
      oldest: number | null;
    };
    return { waiting: row.n, oldestQueuedAt: row.oldest === null ? null : new Date(row.oldest) };
  }

  async result(accountId: number, id: string): Promise<Buffer | null> {
    const row = prepared(this.db, "SELECT result FROM jobs WHERE account_id = ? AND id = ? AND state = 'done'").get(accountId, id) as
      { result: Buffer | null } | undefined;
    return row?.result ?? null;
  }

  async claim(leaseMs: number): Promise<ClaimedJob | null> {
    return this.claimTx(leaseMs, `${process.pid}:${randomUUID()}`);
  }

  async renew(id: string, holder: string, leaseMs: number, progress?: JobProgress): Promise<boolean> {
    return (
      prepared(
        this.db,
        "UPDATE jobs SET lease_until = ?, progress = COALESCE(?, progress) WHERE id = ? AND holder = ? AND state = 'running'",
      ).run(Date.now() + leaseMs, progress ? JSON.stringify(progress) : null, id, holder).changes > 0
    );
  }

  async requeue(id: string, holder: string, delayMs: number): Promise<void> {
    prepared(
      this.db,
      "UPDATE jobs SET state = 'queued', holder = NULL, lease_until = NULL, progress = NULL, attempts = attempts - 1, due_at = ? WHERE id = ? AND holder = ? AND state = 'running'",
    ).run(Date.now() + delayMs, id, holder);
  }

  async finish(id: string, holder: string, outcome: JobOutcome, retainMs: number): Promise<boolean> {
    return this.finishTx(id, holder, outcome, retainMs);
  }

  async claimCallbacks(leaseMs: number, limit: number, skipAccounts: readonly number[] = []): Promise<JobRecord[]> {
    return this.claimCallbacksTx(leaseMs, limit, JSON.stringify(skipAccounts));
  }

  async callbackAttempted(
    id: string,
    outcome: { delivered: true } | { delivered: false; error: string; retryInMs: number | null },
  ): Promise<void> {
    if (outcome.delivered) {
      prepared(this.db, "UPDATE jobs SET callback_state = 'delivered', callback_due_at = NULL, callback_error = NULL WHERE id = ?").run(id);
    } else if (outcome.retryInMs === null) {
      prepared(this.db, "UPDATE jobs SET callback_state = 'failed', callback_due_at = NULL, callback_error = ? WHERE id = ?").run(
        outcome.error,
        id,
      );
    } else {
      prepared(this.db, 'UPDATE jobs SET callback_due_at = ?, callback_error = ? WHERE id = ?').run(
        Date.now() + outcome.retryInMs,
        outcome.error,
        id,
      );
    }
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return this.space.delete(() => prepared(this.db, 'DELETE FROM jobs WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0);
  }

  async deleteExpired(): Promise<number> {
    // A finished job waits for its callback's last attempt before it goes.
    return this.space.delete(
      () =>
        prepared(this.db, "DELETE FROM jobs WHERE expires_at < ? AND (callback_state IS NULL OR callback_state <> 'pending')").run(
          Date.now(),
        ).changes,
    );
  }
}
