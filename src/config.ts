import { usableCpus } from './util/process.js';
import type { ObjectStorageConfig } from './store/objects.js';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { SANDBOX_MODES, type SandboxMode } from './office/sandbox.js';
import { allocatorSetting, type AllocatorSetting } from './office/allocator.js';

/** Everything the service reads from its environment, validated once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Absent: embedded SQLite file in dataDir. */
  databaseUrl: string | undefined;
  /** Templates' bytes and job results in an S3 bucket (DOCSMITH_S3_*); absent: in the database. */
  objectStorage?: ObjectStorageConfig;
  /** PostgreSQL connections of one instance (requests hold one only for a statement). */
  databasePool: number;
  /** How long one PostgreSQL statement may go unanswered before it fails with 503 (a stalled server, not a refusal). */
  databaseTimeoutMs: number;
  /** Master secret for sealing API keys; absent: a file in dataDir. */
  secret: string | undefined;
  /** SHA-256 of DOCSMITH_OPERATOR_TOKEN, the operator API's bearer token; absent: that API is off. */
  operatorTokenHash: Buffer | undefined;
  bootstrap: { user: string; password: string; licence: string } | undefined;
  logLevel: string;
  bodyLimitBytes: number;
  /** Time a client has to send a whole request, head and body (slow senders hold a connection). */
  requestTimeoutMs: number;
  /** Below this much free space on the data or scratch folder's disk, /readyz answers 503. */
  minFreeDiskBytes: number;
  /** The processing limit of one request (DOCSMITH_PROCESSING_LIMIT_MS; background jobs have their own). */
  processingLimitMs: number;
  maxConcurrentMerges: number;
  maxApiKeys: number;
  /** Earlier versions of a template kept when it is replaced (0: none, as ReportingCloud). */
  templateVersions: number;
  /** Days an account's audit log entries are kept. */
  auditDays: number;
  /** Registers routes used by the test suite to drive the quota and slot machinery. */
  testRoutes: boolean;
  /** New accounts get the sample template (samples/reportingcloud/sample_invoice.tx), as the SDK suites expect. */
  sampleTemplates: boolean;
  /** docxtemplater's raw XML tags (`{@x}`) are merged, their values checked (DOCSMITH_RAW_XML=1); refused otherwise. */
  rawXml: boolean;
  office: OfficeConfig;
  /** How long a stop waits for running requests (DOCSMITH_SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** An extra folder of TTF/OTF fonts the office uses (DOCSMITH_FONTS_DIR). */
  fontsDir: string | undefined;
  /** Where Hunspell dictionaries (.aff/.dic) are found. */
  dictionaryDir: string;
  /** Client names of the dictionaries to offer (DOCSMITH_DICTIONARIES); all installed ones when absent. */
  dictionaries: string[] | undefined;
  /** Worker threads for merges and other document work in JavaScript. */
  documentThreads: number;
  /** Hard limits on what one request may ask for. */
  limits: {
    maxRecords: number;
    maxPages: number;
    /** Bytes of documents one request may produce (all records together). */
    maxOutputBytes: number;
    /** Heap of each document thread: work that needs more stops with 413, not the process. */
    workMemoryMb: number;
    /** Bytes one account may keep stored: templates and background jobs together. */
    accountStorageBytes: number;
  };
  /** Lifetime of share links, in days: when a request names none, and at most. */
  share: { defaultDays: number; maxDays: number };
  /** Brute-force protection of sign-ins. */
  authThrottle: { windowMs: number; maxPerUser: number; maxPerAddress: number };
  /** Background jobs (async=true) and their callbacks. */
  jobs: JobsConfig;
  /** Old setting names in use, each with the name to use instead (logged at start-up). */
  deprecations: string[];
  /** Settings that work but are unwise (logged at start-up). */
  warnings: string[];
}

/** Shorter than this DOCSMITH_SECRET is refused; shorter than STRONG_SECRET, warned about. */
const MIN_SECRET = 16;
const STRONG_SECRET = 32;

export interface JobsConfig {
  /** Jobs this instance runs at once; 0: it takes none up (another instance on the store does). */
  concurrency: number;
  /** The processing limit of one job (the request limit does not apply). */
  timeLimitMs: number;
  /** How long finished jobs and their results are kept. */
  retentionMs: number;
  /** Jobs one account may have queued or running. */
  maxWaiting: number;
  /** How often an idle instance looks for jobs other instances queued. */
  pollMs: number;
  /** Where callbacks may go: `public` (any public address), host names, addresses, CIDR ranges; `none`. */
  callbackAllow: string[];
  /** Delivery attempts of one callback, and the wait before the first retry (doubling each time). */
  callbackAttempts: number;
  callbackBackoffMs: number;
  callbackTimeoutMs: number;
}

export interface OfficeConfig {
  /** Office processes in the pool; 0 runs without the office engine. */
  processes: number;
  queueLimit: number;
  queueWaitMs: number;
  maxJobsPerProcess: number;
  maxRssBytes: number;
  sofficePath: string;
  pythonPath: string;
  startTimeoutMs: number;
  /** `auto` (bubblewrap, else Landlock, where it runs), `required`, `bubblewrap`, `landlock` or `off`. */
  sandbox: SandboxMode;
  /** `auto` (jemalloc where installed), `system`, or a malloc library's absolute path to preload. */
  allocator: AllocatorSetting;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function sandboxMode(raw: string | undefined): SandboxMode {
  const value = (raw || 'auto').toLowerCase();
  const mode = SANDBOX_MODES.find((m) => m === value);
  if (!mode) throw new ConfigError(`DOCSMITH_OFFICE_SANDBOX must be ${SANDBOX_MODES.join(', ')}, got "${raw}"`);
  return mode;
}

function allocator(raw: string | undefined): AllocatorSetting {
  const setting = allocatorSetting(raw);
  if (!setting) throw new ConfigError(`DOCSMITH_OFFICE_ALLOCATOR must be auto, system or an absolute path, got "${raw}"`);
  // The loader only warns about a preload it cannot find, and the office would run without it.
  if (setting.startsWith('/') && !fs.existsSync(setting))
    throw new ConfigError(`DOCSMITH_OFFICE_ALLOCATOR names ${setting}, which does not exist (install it, or use auto or system)`);
  return setting;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Settings renamed so each word means one thing ("job" is a background job, "worker" a worker
 * thread): the old name still works, and start-up says which to use instead.
 */
export const RENAMED_SETTINGS: Readonly<Record<string, string>> = {
  DOCSMITH_JOB_TIMEOUT_MS: 'DOCSMITH_PROCESSING_LIMIT_MS',
  DOCSMITH_OFFICE_WORKERS: 'DOCSMITH_OFFICE_PROCESSES',
  DOCSMITH_JOB_WORKERS: 'DOCSMITH_JOB_CONCURRENCY',
};

/** The environment with old setting names read as their new ones (a new name set wins), and a line for each old one in use. */
export function withRenamedSettings(env: Env): { env: Env; deprecations: string[] } {
  const out: Env = { ...env };
  const deprecations: string[] = [];
  for (const [old, current] of Object.entries(RENAMED_SETTINGS)) {
    if (env[old] === undefined || env[old] === '') continue;
    deprecations.push(`${old} is now called ${current}; the old name still works but will be removed in a later release`);
    if (env[current] === undefined || env[current] === '') out[current] = env[old];
  }
  return { env: out, deprecations };
}

/** DOCSMITH_S3_BUCKET turns object storage on; the rest say where and as whom. */
function objectStorageOf(env: Record<string, string | undefined>): { objectStorage?: ObjectStorageConfig } {
  const bucket = env.DOCSMITH_S3_BUCKET;
  if (!bucket) return {};
  const accessKeyId = env.DOCSMITH_S3_ACCESS_KEY_ID;
  const secretAccessKey = env.DOCSMITH_S3_SECRET_ACCESS_KEY;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new ConfigError(
      'DOCSMITH_S3_ACCESS_KEY_ID and DOCSMITH_S3_SECRET_ACCESS_KEY go together (or leave both unset for the AWS credential chain)',
    );
  const endpoint = env.DOCSMITH_S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint))
    throw new ConfigError(`DOCSMITH_S3_ENDPOINT must be an http(s):// URL, got "${endpoint}"`);
  const prefix = env.DOCSMITH_S3_PREFIX ?? 'docsmith/';
  return {
    objectStorage: {
      bucket,
      prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix,
      ...(endpoint ? { endpoint } : {}),
      region: env.DOCSMITH_S3_REGION || env.AWS_REGION || 'us-east-1',
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      timeoutMs: int(env, 'DOCSMITH_S3_TIMEOUT_MS', 10_000, 100, 600_000),
    },
  };
}

export function loadConfig(given: Env = process.env): Config {
  const { env, deprecations } = withRenamedSettings(given);
  const dataDir = path.resolve(env.DOCSMITH_DATA_DIR || './data');
  const databaseUrl = env.DOCSMITH_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DOCSMITH_DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store)');
  }
  const user = env.DOCSMITH_BOOTSTRAP_USER;
  const password = env.DOCSMITH_BOOTSTRAP_PASSWORD;
  if (Boolean(user) !== Boolean(password)) {
    throw new ConfigError('DOCSMITH_BOOTSTRAP_USER and DOCSMITH_BOOTSTRAP_PASSWORD must be set together');
  }
  const logLevel = (env.DOCSMITH_LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`DOCSMITH_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  // The secret seals the stored API keys and signs callbacks: a guessable one gives them away.
  const secret = env.DOCSMITH_SECRET || undefined;
  const make = 'make one with `openssl rand -hex 32`';
  if (secret !== undefined && secret.length < MIN_SECRET)
    throw new ConfigError(`DOCSMITH_SECRET has ${secret.length} characters; it needs at least ${MIN_SECRET} (${make})`);
  const warnings =
    secret !== undefined && secret.length < STRONG_SECRET
      ? [`DOCSMITH_SECRET has ${secret.length} characters; use at least ${STRONG_SECRET} random ones (${make})`]
      : [];
  // The operator API can grant signing to any account: only a token nobody guesses opens it.
  const operatorToken = env.DOCSMITH_OPERATOR_TOKEN || undefined;
  if (operatorToken !== undefined && operatorToken.length < STRONG_SECRET)
    throw new ConfigError(
      `DOCSMITH_OPERATOR_TOKEN has ${operatorToken.length} characters; it needs at least ${STRONG_SECRET} random ones (${make})`,
    );
  return {
    deprecations,
    warnings,
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl,
    databasePool: int(env, 'DOCSMITH_DATABASE_POOL', 20, 1, 1000),
    databaseTimeoutMs: int(env, 'DOCSMITH_DATABASE_TIMEOUT_MS', 15_000, 100, 600_000),
    ...objectStorageOf(env),
    secret,
    operatorTokenHash: operatorToken === undefined ? undefined : createHash('sha256').update(operatorToken).digest(),
    bootstrap: user && password ? { user, password, licence: env.DOCSMITH_BOOTSTRAP_LICENSE || 'TRIAL' } : undefined,
    logLevel,
    bodyLimitBytes: int(env, 'DOCSMITH_BODY_LIMIT', 100 * 1024 * 1024, 1024, 2 ** 31 - 1),
    requestTimeoutMs: int(env, 'DOCSMITH_REQUEST_TIMEOUT_S', 120, 1, 3600) * 1000,
    minFreeDiskBytes: int(env, 'DOCSMITH_MIN_FREE_DISK_MB', 64, 0, 1_000_000) * 1024 * 1024,
    processingLimitMs: int(env, 'DOCSMITH_PROCESSING_LIMIT_MS', 60_000, 100, 3_600_000),
    shutdownGraceMs: int(env, 'DOCSMITH_SHUTDOWN_GRACE_MS', 30_000, 0, 3_600_000),
    maxConcurrentMerges: 2,
    maxApiKeys: 10,
    templateVersions: int(env, 'DOCSMITH_TEMPLATE_VERSIONS', 10, 0, 1000),
    auditDays: int(env, 'DOCSMITH_AUDIT_DAYS', 90, 1, 36500),
    testRoutes: env.DOCSMITH_TEST_ROUTES === '1',
    sampleTemplates: env.DOCSMITH_SAMPLE_TEMPLATES === '1',
    rawXml: env.DOCSMITH_RAW_XML === '1',
    dictionaryDir: env.DOCSMITH_DICTIONARY_DIR || '/usr/share/hunspell',
    fontsDir: env.DOCSMITH_FONTS_DIR ? path.resolve(env.DOCSMITH_FONTS_DIR) : undefined,
    dictionaries: dictionaryList(env.DOCSMITH_DICTIONARIES),
    documentThreads: int(env, 'DOCSMITH_DOCUMENT_THREADS', usableCpus(), 1, 256),
    limits: {
      maxRecords: int(env, 'DOCSMITH_MAX_RECORDS', 10_000, 1, 10_000_000),
      maxPages: int(env, 'DOCSMITH_MAX_PAGES', 2000, 1, 1_000_000),
      maxOutputBytes: int(env, 'DOCSMITH_MAX_OUTPUT_MB', 200, 1, 100_000) * 1024 * 1024,
      workMemoryMb: int(env, 'DOCSMITH_WORK_MEMORY_MB', 2048, 64, 1_000_000),
      accountStorageBytes: int(env, 'DOCSMITH_ACCOUNT_STORAGE_MB', 2048, 1, 100_000_000) * 1024 * 1024,
    },
    share: {
      defaultDays: int(env, 'DOCSMITH_SHARE_DAYS', 7, 1, 3650),
      maxDays: int(env, 'DOCSMITH_SHARE_MAX_DAYS', 90, 1, 3650),
    },
    authThrottle: {
      windowMs: int(env, 'DOCSMITH_AUTH_WINDOW_S', 900, 1, 86_400) * 1000,
      maxPerUser: int(env, 'DOCSMITH_AUTH_MAX_FAILURES_PER_USER', 10, 1, 1_000_000),
      maxPerAddress: int(env, 'DOCSMITH_AUTH_MAX_FAILURES_PER_ADDRESS', 50, 1, 1_000_000),
    },
    jobs: {
      concurrency: int(env, 'DOCSMITH_JOB_CONCURRENCY', 1, 0, 64),
      timeLimitMs: int(env, 'DOCSMITH_JOB_TIME_LIMIT_S', 1800, 1, 86_400) * 1000,
      retentionMs: int(env, 'DOCSMITH_JOB_RETENTION_HOURS', 24, 1, 24 * 365) * 3_600_000,
      maxWaiting: int(env, 'DOCSMITH_JOB_MAX_WAITING', 20, 1, 100_000),
      pollMs: int(env, 'DOCSMITH_JOB_POLL_MS', 1000, 10, 600_000),
      callbackAllow: (env.DOCSMITH_CALLBACK_ALLOW ?? 'public')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
      callbackAttempts: int(env, 'DOCSMITH_CALLBACK_ATTEMPTS', 6, 1, 100),
      callbackBackoffMs: int(env, 'DOCSMITH_CALLBACK_BACKOFF_MS', 10_000, 10, 3_600_000),
      callbackTimeoutMs: int(env, 'DOCSMITH_CALLBACK_TIMEOUT_MS', 10_000, 100, 600_000),
    },
    office: {
      processes: int(env, 'DOCSMITH_OFFICE_PROCESSES', usableCpus(), 0, 64),
      queueLimit: int(env, 'DOCSMITH_OFFICE_QUEUE_LIMIT', 100, 0, 100_000),
      queueWaitMs: int(env, 'DOCSMITH_OFFICE_QUEUE_WAIT_MS', 30_000, 10, 600_000),
      // An office's memory levelled off at about 340 MB after 3,500 one-page PDFs; a start costs about
      // 150 documents' time under load, so a small budget cost throughput. The memory limit guards the rest.
      maxJobsPerProcess: int(env, 'DOCSMITH_OFFICE_MAX_JOBS', 5000, 1, 1_000_000),
      maxRssBytes: int(env, 'DOCSMITH_OFFICE_MAX_RSS_MB', 1024, 64, 65_536) * 1024 * 1024,
      sofficePath: env.DOCSMITH_SOFFICE || '/usr/lib/libreoffice/program/soffice.bin',
      pythonPath: env.DOCSMITH_OFFICE_PYTHON || '/usr/bin/python3',
      startTimeoutMs: int(env, 'DOCSMITH_OFFICE_START_TIMEOUT_MS', 60_000, 1000, 600_000),
      sandbox: sandboxMode(env.DOCSMITH_OFFICE_SANDBOX),
      allocator: allocator(env.DOCSMITH_OFFICE_ALLOCATOR),
    },
  };
}

/** `DOCSMITH_DICTIONARIES`: `all` (the default) or client names, comma-separated (`en_US.dic,de_DE_frami.dic`). */
function dictionaryList(value: string | undefined): string[] | undefined {
  const names = (value ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return names.length === 0 || names.some((n) => n.toLowerCase() === 'all') ? undefined : names;
}
