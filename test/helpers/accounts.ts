import { loadConfig } from '../../src/config.js';
import { openServices, type Services } from '../../src/services.js';
import type { AccountInput } from '../../src/accounts/accounts.js';

/** In-process services on the same storage as a server under test, for operator set-up. */
export async function adminServices(options: { dataDir: string; databaseUrl?: string; secret?: string }): Promise<Services> {
  return openServices(loadConfig({
    DOCSMITH_DATA_DIR: options.dataDir,
    DOCSMITH_DATABASE_URL: options.databaseUrl,
    DOCSMITH_SECRET: options.secret,
  }));
}

export async function makeAccount(services: Services, user: string, input: AccountInput = {}): Promise<{ user: string; password: string; id: number }> {
  const password = `pw-${user}-secret`;
  const account = await services.accounts.create(user, { ...input, password });
  return { user, password, id: account.id };
}
