import type { Config } from './config.js';
import type { Store } from './store/types.js';
import { openStore } from './store/index.js';
import { Authenticator } from './auth/authenticate.js';
import { KeyRing } from './auth/apikeys.js';
import { loadMasterSecret } from './auth/secret.js';
import { AccountAdmin, ApiKeys } from './accounts/accounts.js';
import { UsageGuard } from './accounts/usage.js';
import { TemplateLibrary } from './templates/library.js';
import { OfficePool } from './office/pool.js';
import { networkIsolation } from './office/process.js';
import { Converter } from './convert/converter.js';
import { Normaliser } from './convert/normalise.js';
import { TemplateCache } from './merge/cache.js';
import { DocumentPipeline } from './documents/pipeline.js';
import { PageRenderer } from './render/renderer.js';
import { Thumbnails } from './render/thumbnails.js';
import os from 'node:os';
import { Spelling } from './proofing/spelling.js';
import { ShareTokens } from './auth/shareTokens.js';
import fs from 'node:fs';
import path from 'node:path';

/** The parts a request passes through, wired once per process (server or CLI). */
export interface Services {
  config: Config;
  store: Store;
  authenticator: Authenticator;
  accounts: AccountAdmin;
  apiKeys: ApiKeys;
  templates: TemplateLibrary;
  usage: UsageGuard;
  /** Null when the office engine is turned off (DOCSMITH_OFFICE_WORKERS=0) or for the CLI. */
  office: OfficePool | null;
  converter: Converter | null;
  /** DOC/RTF/HTML to DOCX, cached by content hash; null without the office engine. */
  normaliser: Normaliser | null;
  /** Template in, document out: shared by merge, find-and-replace and template info. */
  pipeline: DocumentPipeline;
  thumbnails: Thumbnails;
  renderer: PageRenderer;
  spelling: Spelling;
  shareTokens: ShareTokens;
}

export type Logger = (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => void;

/** Job files live in memory (/dev/shm) where the machine has it, else in the data folder. */
function jobDirectory(dataDir: string): string {
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    return path.join('/dev/shm', `docsmith-${process.pid}`);
  } catch {
    return path.join(dataDir, 'tmp');
  }
}

/** Wires everything; the office pool is created (not started) only when `withOffice`. */
export async function openServices(config: Config, options: { withOffice?: boolean; log?: Logger } = {}): Promise<Services> {
  const store = await openStore(config);
  const isolation = networkIsolation();
  const office = options.withOffice && config.office.workers > 0
    ? new OfficePool({
      size: config.office.workers,
      queueLimit: config.office.queueLimit,
      queueWaitMs: config.office.queueWaitMs,
      jobTimeoutMs: config.jobTimeoutMs,
      maxJobsPerProcess: config.office.maxJobsPerProcess,
      maxRssBytes: config.office.maxRssBytes,
      process: {
        workDir: path.join(config.dataDir, 'office'),
        sofficePath: config.office.sofficePath,
        pythonPath: config.office.pythonPath,
        isolation,
        startTimeoutMs: config.office.startTimeoutMs,
      },
      log: options.log,
    })
    : null;
  const converter = office
    ? new Converter(office, jobDirectory(config.dataDir), { sofficePath: config.office.sofficePath, isolation, timeoutMs: config.jobTimeoutMs })
    : null;
  const normaliser = converter ? new Normaliser(converter, path.join(config.dataDir, 'cache', 'docx')) : null;
  const templates = new TemplateLibrary(store);
  const renderer = new PageRenderer(Math.max(1, os.cpus().length));
  const masterSecret = loadMasterSecret(config.secret, config.dataDir);
  const keyRing = new KeyRing(masterSecret);
  return {
    config,
    store,
    authenticator: new Authenticator(store),
    accounts: new AccountAdmin(store),
    apiKeys: new ApiKeys(store, keyRing, config.maxApiKeys),
    templates,
    usage: new UsageGuard(store, config),
    office,
    converter,
    normaliser,
    pipeline: new DocumentPipeline(templates, new TemplateCache(), converter, normaliser),
    thumbnails: new Thumbnails(renderer, converter),
    renderer,
    spelling: new Spelling(config.dictionaryDir),
    shareTokens: new ShareTokens(masterSecret),
  };
}
