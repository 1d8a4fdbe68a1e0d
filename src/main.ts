import { ConfigError, loadConfig } from './config.js';
import { openServices } from './services.js';
import { buildApp } from './app.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const services = await openServices(config);
  const app = await buildApp(services);

  if (config.bootstrap) {
    const { user, password, licence } = config.bootstrap;
    if (await services.accounts.ensure(user, password, licence)) app.log.info({ user, licence }, 'bootstrap account created');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping');
    await app.close();
    await services.store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info({ storage: services.store.kind, dataDir: config.dataDir }, 'docsmith ready');
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`docsmith: ${error.message}`);
  } else {
    console.error('docsmith: failed to start:', error);
  }
  process.exit(1);
});
