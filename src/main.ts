import type { ObjectBackedStore } from './store/objectBacked.js';
import fs from 'node:fs';
import { ConfigError, loadConfig } from './config.js';
import { openServices } from './services.js';
import type { Logger } from './util/log.js';
import { buildApp } from './app.js';
import { openWhenReachable, startupProblem } from './startup.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.fontsDir && !fs.existsSync(config.fontsDir)) {
    throw new ConfigError(
      `the fonts folder ${config.fontsDir} (DOCSMITH_FONTS_DIR) does not exist: create it, or unset DOCSMITH_FONTS_DIR`,
    );
  }
  if (config.office.processes > 0 && !fs.existsSync(config.office.sofficePath)) {
    throw new ConfigError(
      `the office program ${config.office.sofficePath} does not exist: install LibreOffice (apt-get install libreoffice-writer-nogui libreoffice-calc-nogui python3-uno), fix DOCSMITH_SOFFICE, or set DOCSMITH_OFFICE_PROCESSES=0 to run without document conversion`,
    );
  }
  let log: Logger = () => undefined;
  // PostgreSQL that is not there yet (down, starting, unreachable) is waited for, not a reason to exit.
  const services = await openWhenReachable(
    config,
    () => openServices(config, { withOffice: true, log: (level, message, details) => log(level, message, details) }),
    (line) => console.log(JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, ...line })),
  );
  if ((await services.apiKeys.secretMatches()) === false) {
    await services.store.close();
    throw new ConfigError(
      `the API keys in the database were sealed with another master secret: start with the DOCSMITH_SECRET (or the data folder's secret.key) this database was used with`,
    );
  }
  const jobs = services.jobRunner;
  const app = await buildApp(services);
  log = (level, message, details) => app.log[level](details ?? {}, message);
  for (const line of [...config.deprecations, ...config.warnings]) app.log.warn(line);

  if (config.bootstrap) {
    const { user, password, licence } = config.bootstrap;
    try {
      if (await services.accounts.ensure(user, password, licence)) app.log.info({ user, licence }, 'bootstrap account created');
    } catch (error) {
      await services.store.close();
      throw new ConfigError(
        `the bootstrap account (DOCSMITH_BOOTSTRAP_USER, DOCSMITH_BOOTSTRAP_PASSWORD, DOCSMITH_BOOTSTRAP_LICENSE) cannot be made: ${(error as Error).message}`,
      );
    }
  }

  // Fonts added to DOCSMITH_FONTS_DIR: each office process is replaced when free, reading them.
  const stopWatchingFonts = services.fonts.watch(() => {
    app.log.info({ fontsDir: config.fontsDir }, 'fonts changed: replacing the office processes');
    services.office?.recycleAll();
  });
  services.usage.onLost = (error) =>
    app.log.error({ reason: error.message }, 'a delivered document could not be counted for ten minutes: the database did not answer');
  const stopPruning = services.audit.start();
  // Objects in the bucket no row points to any more (versions given up, jobs expired): hourly.
  const sweep = () => {
    const store = services.store as Partial<ObjectBackedStore>;
    void store.sweep?.().then(
      (removed) => removed > 0 && app.log.info({ removed }, 'removed objects no template or job points to'),
      (error: Error) => app.log.warn({ reason: error.message }, 'sweeping the object storage failed'),
    );
  };
  const sweeping = config.objectStorage ? setInterval(sweep, 60 * 60_000) : undefined;
  sweeping?.unref();
  const stopSweeping = services.usage.sweepOrphanedReservations((refunded) =>
    app.log.warn({ refunded }, 'documents counted by requests that never finished (instance killed) were taken back'),
  );

  let signals = 0;
  const stop = async (signal: string) => {
    if (++signals > 1) {
      app.log.warn({ signal }, 'second stop signal: exiting now');
      process.exit(1);
    }
    // Readiness turns 503 at once; running requests (and any still sent) are served until none
    // is left or the grace period ends.
    app.log.info({ signal, running: services.lifecycle.running, graceMs: config.shutdownGraceMs }, 'stopping: draining requests');
    stopSweeping();
    stopPruning();
    clearInterval(sweeping);
    stopWatchingFonts();
    const [drained] = await Promise.all([
      services.lifecycle.drain(config.shutdownGraceMs),
      // Jobs still running when the grace period ends go back to the queue for the next instance.
      jobs.stop(config.shutdownGraceMs).then(() => app.log.info('jobs stopped')),
    ]);
    if (!drained) app.log.warn({ cutOff: services.lifecycle.running }, 'grace period over: closing with requests still running');
    const closing = app.close();
    if (!drained) app.server.closeAllConnections();
    await closing;
    // The data first: whatever happens to the rest of the stop, the database is closed and whole.
    await services.store.close();
    await services.office?.close();
    await fs.promises.rm(services.scratchDir, { recursive: true, force: true });
    await services.workers.close();
    app.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const objects = config.objectStorage && {
    bucket: config.objectStorage.bucket,
    prefix: config.objectStorage.prefix,
    endpoint: config.objectStorage.endpoint ?? `AWS ${config.objectStorage.region}`,
  };
  app.log.info({ storage: services.store.kind, dataDir: config.dataDir, ...(objects ? { objects } : {}) }, 'docsmith listening');
  // The document threads' first merges cost most of a second each: paid now, not by the first requests.
  void services.workers.warm();
  if (config.jobs.concurrency > 0) jobs.start();
  if (services.office) {
    const started = Date.now();
    // Never gives up: a slot that fails to start is tried again with back-off (logged each time),
    // and /readyz answers 200 as soon as one office process is warm.
    void services.office.start().then(
      () =>
        app.log.info({ workers: config.office.processes, ms: Date.now() - started, sandbox: services.sandbox.kind }, 'office engine ready'),
      (error: unknown) => app.log.error({ err: error }, 'the office engine failed to start'),
    );
  } else {
    app.log.warn('office engine turned off (DOCSMITH_OFFICE_PROCESSES=0): document operations answer 503');
  }
}

main().catch((error: unknown) => {
  // One line that says what to fix; the stack only when asked for (DOCSMITH_LOG_LEVEL=debug).
  console.error(`docsmith: cannot start: ${startupProblem(error)}`);
  if (process.env.DOCSMITH_LOG_LEVEL === 'debug' || process.env.DOCSMITH_LOG_LEVEL === 'trace') console.error(error);
  process.exit(1);
});
