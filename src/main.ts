import fs from 'node:fs/promises';
import { ConfigError, loadConfig } from './config.js';
import { openServices, type Logger } from './services.js';
import { buildApp } from './app.js';

async function main(): Promise<void> {
  const config = loadConfig();
  let log: Logger = () => undefined;
  const services = await openServices(config, { withOffice: true, log: (level, message, details) => log(level, message, details) });
  const app = await buildApp(services);
  log = (level, message, details) => app.log[level](details ?? {}, message);

  if (config.bootstrap) {
    const { user, password, licence } = config.bootstrap;
    if (await services.accounts.ensure(user, password, licence)) app.log.info({ user, licence }, 'bootstrap account created');
  }

  const stopSweeping = services.usage.sweepOrphanedReservations((refunded) =>
    app.log.warn({ refunded }, 'documents counted by requests that never finished (instance killed) were taken back'));

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
    const drained = await services.lifecycle.drain(config.shutdownGraceMs);
    if (!drained) app.log.warn({ cutOff: services.lifecycle.running }, 'grace period over: closing with requests still running');
    const closing = app.close();
    if (!drained) app.server.closeAllConnections();
    await closing;
    await services.office?.close();
    await services.converter?.close();
    await fs.rm(services.scratchDir, { recursive: true, force: true });
    await services.renderer.close();
    await services.workers.close();
    await services.store.close();
    app.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info({ storage: services.store.kind, dataDir: config.dataDir }, 'docsmith listening');
  if (services.office) {
    const started = Date.now();
    // Never gives up: a slot that fails to start is tried again with back-off (logged each time),
    // and /readyz answers 200 as soon as one office process is warm.
    void services.office.start().then(
      () => app.log.info({ workers: config.office.workers, ms: Date.now() - started, sandbox: services.sandbox.kind }, 'office engine ready'),
      (error: unknown) => app.log.error({ err: error }, 'the office engine failed to start'),
    );
  } else {
    app.log.warn('office engine turned off (DOCSMITH_OFFICE_WORKERS=0): document operations answer 503');
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`docsmith: ${error.message}`);
  } else {
    console.error('docsmith: failed to start:', error);
  }
  process.exit(1);
});
