/**
 * The one storage interface. Two implementations (SQLite, PostgreSQL) pass the same contract
 * tests; everything above this layer is unaware which one runs.
 */

export interface Account {
  id: number;
  username: string;
  passwordHash: string;
  /** `FREE`, `TRIAL` or a serial number. */
  licence: string;
  maxDocuments: number;
  maxTemplates: number;
  maxProofingTransactions: number;
  validUntil: Date | null;
  createdDocuments: number;
  proofingTransactions: number;
  createdAt: Date;
  /** PDF and PDF/A output is signed by default (docsmith): 'none', 'invisible' or 'visible'; only with the grant. */
  pdfSignature: string;
  /** The operator lets this account sign PDFs (docsmith): none may by default. */
  signingGrant: boolean;
}

export interface NewAccount {
  username: string;
  passwordHash: string;
  licence: string;
  maxDocuments: number;
  maxTemplates: number;
  maxProofingTransactions: number;
  validUntil: Date | null;
}

export type AccountPatch = Partial<Omit<NewAccount, 'username'>> & {
  createdDocuments?: number;
  pdfSignature?: string;
  signingGrant?: boolean;
};

/** Server-wide settings kept in the database (the PDF signing certificate, sealed). */
export interface SettingRepository {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export interface ApiKeyRecord {
  id: number;
  accountId: number;
  /** SHA-256 of the key, hex: the lookup handle. */
  keyHash: string;
  /** The key sealed with the master secret, so its owner can list it. */
  keySealed: string;
  active: boolean;
  createdAt: Date;
  /** The owner's label for the key ('' when none). */
  name: string;
  /** When the key last signed a request in, to the minute (null: never). */
  lastUsedAt: Date | null;
  /** What the key may do (auth/scopes.ts): 'full', 'merge' or 'read'; fixed at creation. */
  scope: string;
}

export interface TemplateMeta {
  name: string;
  format: string;
  size: number;
  sha256: string;
  modifiedAt: Date;
  /** 1 for the first upload under the name, one more for each replacement. */
  version: number;
  /** The syntax its tags are typed in (merge/syntax/): 'word' for merge fields. */
  syntax: string;
}

/** A stored version of a template: the current one or an earlier one kept. */
export interface TemplateVersionMeta extends TemplateMeta {
  current: boolean;
}

export interface TemplateRecord extends TemplateMeta {
  data: Buffer;
}

export interface NewTemplate {
  name: string;
  format: string;
  /** Absent: 'word'. */
  syntax?: string;
  sha256: string;
  data: Buffer;
  /** The template's size when `data` only points to where it is kept (object storage); default: data's length. */
  size?: number;
}

/** What a stored `data` or job result starts with when the bytes are kept in object storage (store/objects.ts). */
export const OBJECT_POINTER = 'docsmith-object:';

export interface AccountRepository {
  /** Throws {@link DuplicateError} when the user name is taken. */
  create(account: NewAccount): Promise<Account>;
  /** Creates the account unless the user name exists; returns whether it did. */
  createIfMissing(account: NewAccount): Promise<boolean>;
  byId(id: number): Promise<Account | null>;
  byUsername(username: string): Promise<Account | null>;
  /** The account an active API key (by its hash) belongs to, in one read. */
  byApiKey(keyHash: string): Promise<Account | null>;
  list(): Promise<Account[]>;
  update(id: number, patch: AccountPatch): Promise<Account | null>;
  /** Removes the account with its keys and templates. */
  delete(id: number): Promise<boolean>;
  /** Bytes the account keeps stored: its templates, and its jobs' requests and results. */
  storageBytes(id: number): Promise<number>;
}

export interface ApiKeyRepository {
  /** Adds the key unless the account already holds `maxKeys`. */
  add(
    accountId: number,
    key: { keyHash: string; keySealed: string; name?: string; scope?: string },
    maxKeys: number,
  ): Promise<'added' | 'limit'>;
  list(accountId: number): Promise<ApiKeyRecord[]>;
  byHash(keyHash: string): Promise<ApiKeyRecord | null>;
  delete(accountId: number, keyHash: string): Promise<boolean>;
  /** Labels the account's key; false when it has no key with this id. */
  rename(accountId: number, id: number, name: string): Promise<boolean>;
  /** Records a use of the key at `at` (a later use is never overwritten by an earlier one). */
  touch(keyHash: string, at: Date): Promise<void>;
  /** Up to `limit` keys of any account (the start-up check that the secret is the right one). */
  sample(limit: number): Promise<ApiKeyRecord[]>;
}

export interface TemplateRepository {
  /**
   * Stores durably before resolving; a new name beyond `maxTemplates` is refused. Replacing keeps
   * the `keepVersions` most recent earlier versions (0: none), in the same transaction.
   */
  put(accountId: number, template: NewTemplate, maxTemplates: number, keepVersions?: number): Promise<'created' | 'replaced' | 'limit'>;
  /** The current version and the earlier ones kept, newest first; empty when there is no such template. */
  versions(accountId: number, name: string): Promise<TemplateVersionMeta[]>;
  /** One version's bytes, current or kept; null when there is no such version. */
  getVersion(accountId: number, name: string, version: number): Promise<TemplateRecord | null>;
  get(accountId: number, name: string): Promise<TemplateRecord | null>;
  meta(accountId: number, name: string): Promise<TemplateMeta | null>;
  list(accountId: number): Promise<TemplateMeta[]>;
  count(accountId: number): Promise<number>;
  /** Removes the template with its earlier versions. */
  delete(accountId: number, name: string): Promise<boolean>;
}

/** One entry of an account's audit log: who did what, when, from where. */
export interface AuditEvent {
  id: number;
  accountId: number;
  at: Date;
  /** "sign-in failed", "key created", "template replaced", ... */
  action: string;
  /** Who: 'key 3 "Billing"', 'password', 'operator (CLI)'. */
  actor: string;
  /** The client's address (null: the CLI). */
  address: string | null;
  /** What it was done to: a template's name, a key's ends, the changed settings. */
  detail: string;
}

export type NewAuditEvent = Omit<AuditEvent, 'id' | 'at'> & { at?: Date };

export interface AuditRepository {
  add(event: NewAuditEvent): Promise<void>;
  /** Newest first, at most `limit`, those older than the event `before` (an id) when given. */
  list(accountId: number, options: { limit: number; before?: number }): Promise<AuditEvent[]>;
  /** Removes events from before `cutoff`; how many. */
  prune(cutoff: Date): Promise<number>;
}

/** A held merge slot; release it exactly once when the work ends. */
export interface SlotLease {
  release(): Promise<void>;
}

export interface DocumentReservation {
  /** The work succeeded: the document stays counted. */
  commit(): Promise<void>;
  /** The work failed: the document is taken back. */
  refund(): Promise<void>;
}

/** What a counted request takes before its work: a merge slot and one document of the quota, each when asked for. */
export interface UsageClaim {
  slot?: { limit: number; leaseMs: number };
  /** Reserve one document (not for test runs), with this lease (see `reserveDocument`). */
  documentLeaseMs?: number;
  /**
   * Names the work (a job's id): a reservation left by an earlier attempt of it is taken over, not
   * counted again, and the job's outcome settles it (`JobRepository.finish`), not the hold.
   */
  workKey?: string;
  /** A stored template the work will read: its current version comes back with the grant, in the same round trip. */
  template?: string;
}

/** A granted claim; settle it exactly once when the work ends. */
export interface UsageHold {
  /**
   * `kept`: the work succeeded and its answer was delivered: the document stays counted (one whose
   * lease ran out meanwhile is counted again); otherwise it is taken back. A reservation with a
   * work key is left to the job's outcome when kept. The slot is freed either way.
   */
  settle(kept: boolean): Promise<void>;
  /**
   * Frees the merge slot now: the work ended, and a client that has its answer may start the next
   * merge at once. The document still settles after the answer is delivered. (SQLite: other
   * processes on the file see the slot free within milliseconds, see SqliteUsage.releaseSoon.)
   */
  releaseSlot(): Promise<void>;
}

/** Granted: the hold, and the template asked for as it is now (null: there is none of that name, or none was asked for). */
export type ClaimResult = { granted: UsageHold; template: TemplateMeta | null } | { refused: 'slots' | 'documents' };

export interface UsageRepository {
  /**
   * The slot, the reservation and the template's version together, in one round trip (a counted
   * merge costs three: sign-in, claim, settle): refused 'slots' when every slot is held, 'documents'
   * when the quota is used up (then nothing is held).
   */
  claim(accountId: number, claim: UsageClaim): Promise<ClaimResult>;
  /**
   * Adds one created document if the account is below its quota, held as a reservation until
   * the work settles it; null when the quota is exhausted. A reservation neither committed nor
   * refunded within `leaseMs` (its instance died) is taken back by `refundExpired`.
   */
  reserveDocument(accountId: number, leaseMs: number, workKey?: string): Promise<DocumentReservation | null>;
  /** Takes back every reservation whose lease has run out; returns how many. */
  refundExpired(): Promise<number>;
  /** Adds one proofing transaction if the account is below its limit; false when exhausted. */
  reserveProofing(accountId: number): Promise<boolean>;
  /** One of `limit` slots for the account, or null when all are held (by any instance). */
  acquireSlot(accountId: number, limit: number, leaseMs: number): Promise<SlotLease | null>;
}

export interface ShareLinkRecord {
  /** Public id, for listing and revoking; not the token. */
  id: string;
  accountId: number;
  templateName: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Share links to stored templates. Only a hash of each token is kept. */
export interface ShareLinkRepository {
  add(link: ShareLinkRecord & { tokenHash: string }): Promise<void>;
  /** The live (unexpired) link with this token hash, or null. */
  byTokenHash(tokenHash: string, now: Date): Promise<ShareLinkRecord | null>;
  /** An account's live links, newest first. */
  list(accountId: number, now: Date): Promise<ShareLinkRecord[]>;
  /** Ends one link of the account; false when it has none with that id. */
  revoke(accountId: number, id: string): Promise<boolean>;
  /** Ends every link to a template (replaced or deleted); returns how many. */
  revokeForTemplate(accountId: number, templateName: string): Promise<number>;
}

/** Failed sign-in attempts, by key (an address or a user name), shared by every instance on the store. */
export interface AuthFailureRepository {
  /** Records one failed attempt under each key, at `at` (epoch ms). */
  record(keys: string[], at: number): Promise<void>;
  /** For each key: attempts since `since`, and when the oldest of them happened (null when none). */
  since(keys: string[], since: number): Promise<{ count: number; oldest: number | null }[]>;
  /** Forgets a key's attempts (a successful sign-in). */
  clear(key: string): Promise<void>;
  /** Drops attempts older than `before`. */
  prune(before: number): Promise<void>;
}

export type JobKind = 'merge' | 'append' | 'convert';
export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** Where a running job is: a stage and, where it counts documents, how many of how many. */
export interface JobProgress {
  stage: string;
  done?: number;
  total?: number;
}

/** Delivery of a job's callback (HMAC-signed POST to the URL the request named). */
export interface JobCallback {
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Why the last attempt failed. */
  lastError: string | null;
}

/** A job as its owner sees it (request and result bytes are read separately). */
export interface JobRecord {
  id: string;
  accountId: number;
  kind: JobKind;
  state: JobState;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Done or failed: when the job and its result are removed. */
  expiresAt: Date | null;
  /** How many times an instance took it up (more than one: an instance stopped while running it). */
  attempts: number;
  progress: JobProgress | null;
  /** What the job works on, as said at submission (null: a job from before summaries). */
  summary: JobSummary | null;
  /** A done job's stored result, in bytes. */
  resultBytes: number | null;
  /** A failed job: the answer the request would have had. */
  error: { status: number; message: string } | null;
  callback: JobCallback | null;
}

/** What a job works on, for its owner's list: the stored template's name, the records, the output format. */
export interface JobSummary {
  format: string;
  template?: string;
  records?: number;
  documents?: number;
}

/** Where a page of jobs ended: the last job's creation time and id. */
export interface JobCursor {
  createdAt: Date;
  id: string;
}

export interface NewJob {
  id: string;
  accountId: number;
  kind: JobKind;
  /** The parsed request, serialised (jobs/stored.ts). */
  request: Buffer;
  callbackUrl: string | null;
  summary?: JobSummary;
  /** The client's name for this submission: the same key again names the job it made (while that is kept). */
  idempotencyKey?: string;
}

/** A job an instance took up, with its request, under a lease the instance renews. */
export interface ClaimedJob {
  job: JobRecord;
  request: Buffer;
  /** Names the lease: only its holder may report progress or finish the job. */
  holder: string;
}

export type JobOutcome = { result: Buffer } | { error: { status: number; message: string } };

/**
 * Jobs for work that outlives a request. Any instance on the store may take up a queued job, and a
 * running job whose lease ran out (its instance died) is taken up again, so a restart loses none.
 */
export interface JobRepository {
  /**
   * Queues the job unless the account already has `maxWaiting` jobs queued or running; with an
   * idempotency key the account used before, nothing is queued and that job's id comes back.
   */
  add(job: NewJob, maxWaiting: number): Promise<'added' | 'limit' | { existing: string }>;
  get(accountId: number, id: string): Promise<JobRecord | null>;
  /** The account's jobs, newest first; with `after`, those that come after that job in this order (cursor paging). */
  list(accountId: number, limit: number, after?: JobCursor): Promise<JobRecord[]>;
  /** Jobs of every account waiting to run, and when the oldest of them was queued (for /metrics). */
  queueStats(): Promise<{ waiting: number; oldestQueuedAt: Date | null }>;
  /** The result of a done job (the body the synchronous endpoint answers), or null. */
  result(accountId: number, id: string): Promise<Buffer | null>;
  /** Takes up the oldest job that is due (queued, or running with its lease run out). */
  claim(leaseMs: number): Promise<ClaimedJob | null>;
  /** Extends the lease and records progress; false when the holder lost the job (deleted, taken over). */
  renew(id: string, holder: string, leaseMs: number, progress?: JobProgress): Promise<boolean>;
  /** Puts a running job back in the queue, due after `delayMs` (waiting for a merge slot, or a stop); the take-up does not count as an attempt. */
  requeue(id: string, holder: string, delayMs: number): Promise<void>;
  /**
   * Ends the job; kept `retainMs`; a job with a callback URL gets its delivery due at once. In the
   * same transaction the document reserved under the job's id is committed (a result) or taken back
   * (an error), so a job counts once however often it was taken up.
   */
  finish(id: string, holder: string, outcome: JobOutcome, retainMs: number): Promise<boolean>;
  /**
   * Takes up to `limit` due callback deliveries, each leased for `leaseMs` against other
   * instances, none of the accounts in `skipAccounts` (those with enough deliveries under way).
   * Each counts as an attempt from here (`callback.attempts` is this attempt's number), so one
   * whose instance died before recording it is numbered truly when taken up again.
   */
  claimCallbacks(leaseMs: number, limit: number, skipAccounts?: readonly number[]): Promise<JobRecord[]>;
  /** Records how the attempt taken up by claimCallbacks went: delivered, failed for good, or due again after `retryInMs`. */
  callbackAttempted(
    id: string,
    outcome: { delivered: true } | { delivered: false; error: string; retryInMs: number | null },
  ): Promise<void>;
  /** Removes a job (cancelling it if it has not started; a running one stops at its next renewal). */
  delete(accountId: number, id: string): Promise<boolean>;
  /** Removes finished jobs past their retention; returns how many. */
  deleteExpired(): Promise<number>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly jobs: JobRepository;
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly templates: TemplateRepository;
  readonly usage: UsageRepository;
  readonly authFailures: AuthFailureRepository;
  readonly shareLinks: ShareLinkRepository;
  readonly audit: AuditRepository;
  readonly settings: SettingRepository;
  /** Statements sent to a database server so far (PostgreSQL; SQLite runs in the process and has none). */
  statements?(): number;
  /** Resolves when the store can serve, every part of it (object storage too); throws otherwise (a 503 that says why). */
  ping(): Promise<StoreHealth>;
  /** As ping, asking the database alone (one small statement): whether its schema is one this instance serves. */
  schema(): Promise<StoreHealth>;
  /** Every stored pointer to object storage ({@link OBJECT_POINTER}...): templates, kept versions, job results. */
  objectPointers(): Promise<string[]>;
  /**
   * A consistent copy of the whole database in one file, taken while it serves (SQLite's online
   * backup). PostgreSQL refuses with the pg_dump line to use instead.
   */
  backup(file: string): Promise<void>;
  close(): Promise<void>;
}

/** A store that can serve, and on which schema (a newer one than the instance's during a rolling upgrade). */
export interface StoreHealth {
  schema: { database: number; instance: number };
}

export class DuplicateError extends Error {}
