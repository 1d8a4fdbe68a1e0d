import { randomBytes } from 'node:crypto';
import type { Logger } from './util/log.js';
import { StorageQuota } from './accounts/storage.js';
import type { Config } from './config.js';
import { Lifecycle } from './lifecycle.js';
import { Fonts } from './office/fonts.js';
import type { Store } from './store/types.js';
import { openStore } from './store/index.js';
import { openObjectStorage } from './store/objects.js';
import { withObjectStorage } from './store/objectBacked.js';
import { Authenticator } from './auth/authenticate.js';
import { AuthThrottle } from './auth/throttle.js';
import { KeyRing } from './auth/apikeys.js';
import { loadMasterSecret } from './auth/secret.js';
import { sampleTemplates } from './accounts/samples.js';
import { AccountAdmin, ApiKeys } from './accounts/accounts.js';
import { AuditLog } from './accounts/audit.js';
import { PdfSigning } from './documents/signing.js';
import { EInvoices } from './documents/einvoice.js';
import { UsageGuard } from './accounts/usage.js';
import { TemplateLibrary } from './templates/library.js';
import { OfficePool } from './office/pool.js';
import { openSandbox, type Sandbox } from './office/sandbox.js';
import { Converter } from './convert/converter.js';
import { removeAbandonedScratch, ScratchFolder } from './util/scratch.js';
import { freeBytesSync } from './util/disk.js';
import { Normaliser } from './convert/normalise.js';
import { DocumentPipeline } from './operations/io.js';
import { DEFAULT_THUMBNAIL_LIMITS, Thumbnails } from './render/thumbnails.js';
import { Spelling } from './proofing/spelling.js';
import { ShareLinks } from './auth/shareLinks.js';
import { DocumentWorkers } from './workers/pool.js';
import { DocumentOperations } from './operations/index.js';
import { Door } from './operations/door/door.js';
import { CallbackPolicy, callbackSecret } from './jobs/callbacks.js';
import { JobQueue } from './jobs/queue.js';
import { JobRunner } from './jobs/runner.js';
import fs from 'node:fs';
import path from 'node:path';
import { officeAllocator } from './office/allocator.js';

/** The parts a request passes through, wired once per process (server or CLI). */
export interface Services {
  config: Config;
  store: Store;
  authenticator: Authenticator;
  accounts: AccountAdmin;
  apiKeys: ApiKeys;
  templates: TemplateLibrary;
  usage: UsageGuard;
  /** Null when the office engine is turned off (DOCSMITH_OFFICE_PROCESSES=0) or for the CLI. */
  office: OfficePool | null;
  /** How the office is isolated (see office/sandbox.ts). */
  sandbox: Sandbox;
  /** This process's scratch folder (job files, office temp): removed at shutdown. */
  scratchDir: string;
  /** The scratch folder, held with a lock, where this process runs the office; /readyz checks it can be written. */
  scratch?: ScratchFolder;
  converter: Converter | null;
  /** DOC/RTF/HTML to DOCX, cached by content hash; null without the office engine. */
  normaliser: Normaliser | null;
  /** Template in, document out: shared by merge, find-and-replace and template info. */
  pipeline: DocumentPipeline;
  thumbnails: Thumbnails;
  spelling: Spelling;
  shareLinks: ShareLinks;
  /** Worker threads for document work in JavaScript (merges). */
  workers: DocumentWorkers;
  /** The one door for document work: every request kind performed under its policy (guard, time limit, abort). */
  door: Door;
  /** Where job callbacks may go, and each account's signing secret. */
  callbacks: { policy: CallbackPolicy; secretFor(accountId: number): string };
  /** Requests queued as background jobs (async=true). */
  jobs: JobQueue;
  /** The certificate PDF output is signed with, sealed in the database. */
  signing: PdfSigning;
  /** Factur-X e-invoices attached to merged PDFs. */
  einvoices: EInvoices;
  /** Each account's audit log (pruned by the server, not the CLI). */
  audit: AuditLog;
  /** Runs jobs from the store (started by the server, not the CLI). */
  jobRunner: JobRunner;
  /** Requests in flight and whether the service is draining for a stop. */
  lifecycle: Lifecycle;
  /** The fonts the office renders with, the operator's folder included. */
  fonts: Fonts;
}

/** Memory for job files: a container's default /dev/shm (64 MB) would hold one big job at most, and fail the disk check. */
const SHM_MIN_BYTES = 1024 ** 3;

/** This process's own: a process id alone is not unique where instances in other PID namespaces share /dev/shm. */
const SCRATCH_NAME = `${process.pid}-${randomBytes(4).toString('hex')}`;

/** Job files live in memory (/dev/shm) where the machine has 1 GiB of it free, else in the data folder. */
export function scratchDirectory(dataDir: string, shm = '/dev/shm', freeOf: (folder: string) => number = freeBytesSync): string {
  try {
    fs.accessSync(shm, fs.constants.W_OK);
    if (freeOf(shm) >= SHM_MIN_BYTES) return path.join(shm, `docsmith-${SCRATCH_NAME}`);
  } catch {
    // not writable: the data folder
  }
  return path.join(dataDir, 'tmp', SCRATCH_NAME);
}

/** Wires everything; the office pool is created (not started) only when `withOffice`. */
export async function openServices(
  config: Config,
  options: { withOffice?: boolean; log?: Logger; officeStartAttempts?: number } = {},
): Promise<Services> {
  const database = await openStore(config);
  // Templates' bytes and job results in a bucket when one is configured; the database keeps the rest.
  const store = config.objectStorage ? withObjectStorage(database, await openObjectStorage(config.objectStorage)) : database;
  const withOffice = Boolean(options.withOffice && config.office.processes > 0);
  const sandbox = openSandbox(withOffice ? config.office.sandbox : 'off', config.office.pythonPath);
  const scratch = scratchDirectory(config.dataDir);
  let scratchFolder: ScratchFolder | undefined;
  if (withOffice) {
    // Folders of docsmith processes that are gone (killed without clean-up), told by their locks.
    removeAbandonedScratch(['/dev/shm', path.join(config.dataDir, 'tmp')], scratch, options.log);
    scratchFolder = await ScratchFolder.open(scratch, options.log);
    if (!sandbox.confinesFiles) {
      options.log?.(
        'warn',
        'the office runs without a file sandbox (neither bubblewrap nor Landlock is usable here): documents are still made inert, but install bubblewrap or run on Linux 5.13+ with Landlock for defence in depth',
        { sandbox: sandbox.kind },
      );
    }
  }
  const fonts = new Fonts(config.fontsDir, path.join(scratch, 'fonts'));
  const allocator = withOffice ? officeAllocator(config.office.allocator) : undefined;
  const office = withOffice
    ? new OfficePool({
        size: config.office.processes,
        queueLimit: config.office.queueLimit,
        queueWaitMs: config.office.queueWaitMs,
        processingLimitMs: config.processingLimitMs,
        maxJobsPerProcess: config.office.maxJobsPerProcess,
        maxRssBytes: config.office.maxRssBytes,
        process: {
          workDir: path.join(config.dataDir, 'office'),
          runDir: path.join(scratch, 'office'),
          sofficePath: config.office.sofficePath,
          pythonPath: config.office.pythonPath,
          sandbox,
          startTimeoutMs: config.office.startTimeoutMs,
          ...(allocator ? { allocator } : {}),
          ...(fonts.configFile && fonts.dir ? { fonts: { configFile: fonts.configFile, dir: fonts.dir } } : {}),
        },
        log: options.log,
        maxStartAttempts: options.officeStartAttempts,
      })
    : null;
  // Document work in JavaScript runs in these threads, making documents inert before the office too.
  const workers = new DocumentWorkers(config.documentThreads, { workMemoryMb: config.limits.workMemoryMb });
  // A damaged PDF can make MuPDF say tens of thousands of lines: one log line per task instead.
  workers.onReaderLog = (task, log) =>
    options.log?.('warn', 'the PDF reader reported problems with a document', { task, messages: log.total, distinct: log.messages });
  const converter = office
    ? new Converter(
        office,
        {
          sofficePath: config.office.sofficePath,
          sandbox,
          timeoutMs: config.processingLimitMs,
          workDir: path.join(scratch, 'oneshot'),
          ...(allocator ? { allocator } : {}),
        },
        (bytes, format, signal, options) => workers.inert(bytes, format, signal, options),
        (bytes, signal) => workers.tidy(bytes, signal),
      )
    : null;
  const normaliser = converter ? new Normaliser(converter, path.join(config.dataDir, 'cache', 'docx')) : null;
  const quota = new StorageQuota(store, config.limits.accountStorageBytes);
  const templates = new TemplateLibrary(store, quota, config.templateVersions);
  const masterSecret = loadMasterSecret(config.secret, config.dataDir);
  const keyRing = new KeyRing(masterSecret);
  const pipeline = new DocumentPipeline(
    templates,
    converter,
    normaliser,
    (bytes, signal) => workers.txToDocx(bytes, signal),
    (docx, test, signal, source) => workers.docxToTx(docx, test, signal, source),
  );
  const thumbnails = new Thumbnails(workers, converter, { ...DEFAULT_THUMBNAIL_LIMITS, maxPages: config.limits.maxPages });
  const spelling = new Spelling(config.dictionaryDir, config.dictionaries);
  const operations = new DocumentOperations({
    spelling,
    pipeline,
    workers,
    thumbnails,
    converter,
    maxOutputBytes: config.limits.maxOutputBytes,
    maxPages: config.limits.maxPages,
    officeProcesses: config.office.processes,
    rawXml: config.rawXml,
  });
  const usage = new UsageGuard(store, config);
  const policy = new CallbackPolicy(config.jobs.callbackAllow);
  const signing = new PdfSigning(store, keyRing, workers);
  const einvoices = new EInvoices(workers);
  const audit = new AuditLog(store, config.auditDays, (...args) => options.log?.(...args));
  const door = new Door({ usage, pipeline, operations, templates, processingLimitMs: config.processingLimitMs, signing, einvoices, audit });
  const jobs = new JobQueue({ store, config: config.jobs, usage, pipeline, policy, quota, door });
  const callbacks = { policy, secretFor: (accountId: number) => callbackSecret(masterSecret, accountId) };
  const jobRunner = new JobRunner({ store, door, config: config.jobs, callbacks, quota, log: (...args) => options.log?.(...args) });
  jobs.onQueued = () => jobRunner.wake();
  return {
    audit,
    signing,
    einvoices,
    lifecycle: new Lifecycle(),
    fonts,
    config,
    store,
    authenticator: new Authenticator(store, new AuthThrottle(store, config.authThrottle), undefined, (account, address) =>
      audit.signInFailed(account.id, { actor: 'password', address }, 'wrong password'),
    ),
    accounts: new AccountAdmin(store, config.sampleTemplates ? sampleTemplates() : []),
    apiKeys: new ApiKeys(store, keyRing, config.maxApiKeys),
    templates,
    usage,
    office,
    sandbox,
    scratchDir: scratch,
    scratch: scratchFolder,
    converter,
    normaliser,
    pipeline,
    thumbnails,
    spelling,
    shareLinks: new ShareLinks(store, config.share),
    workers,
    door,
    callbacks,
    jobs,
    jobRunner,
  };
}
