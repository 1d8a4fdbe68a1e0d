import { loadConfig } from '../../src/config.js';
import { openServices, type Services } from '../../src/services.js';
import type { AccountInput } from '../../src/accounts/accounts.js';
import { startServer, tempDir, type RunningServer } from './server.js';
import { client, request, type Client } from './http.js';

/** In-process services on the same storage as a server under test, for operator set-up. */
export async function adminServices(options: { dataDir: string; databaseUrl?: string; secret?: string }): Promise<Services> {
  return openServices(
    loadConfig({
      DOCSMITH_DATA_DIR: options.dataDir,
      DOCSMITH_DATABASE_URL: options.databaseUrl,
      DOCSMITH_SECRET: options.secret,
    }),
  );
}

export async function makeAccount(
  services: Services,
  user: string,
  input: AccountInput = {},
): Promise<{ user: string; password: string; id: number }> {
  const password = `pw-${user}-secret`;
  const account = await services.accounts.create(user, { ...input, password });
  return { user, password, id: account.id };
}

/** One account made on the storage a server will use (SQLite in `dataDir`, or PostgreSQL), before the server starts. */
export async function accountIn(
  storage: { dataDir: string; databaseUrl?: string },
  user: string,
  input: AccountInput = {},
): Promise<{ user: string; password: string; id: number }> {
  const admin = await adminServices(storage);
  try {
    return await makeAccount(admin, user, input);
  } finally {
    await admin.store.close();
  }
}

/** A server process on a fresh data folder with the given accounts, ready to serve. */
export async function serverWithAccounts(
  accounts: Record<string, AccountInput>,
  env: Record<string, string> = {},
): Promise<{ server: RunningServer; clients: Record<string, Client>; admin: Services; dataDir: string; close(): Promise<void> }> {
  const dataDir = tempDir();
  const admin = await adminServices({ dataDir });
  const clients: Record<string, Client> = {};
  const made = await Promise.all(
    Object.entries(accounts).map(async ([user, input]) => [user, await makeAccount(admin, user, input)] as const),
  );
  const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, ...env });
  for (const [user, account] of made) clients[user] = client(server.url, { basic: [account.user, account.password] });
  await untilFullyReady(server.url);
  return {
    server,
    clients,
    admin,
    dataDir,
    async close() {
      await server.stop();
      await admin.store.close();
    },
  };
}

/** Ready (one office process warm is enough for /readyz) and every office process warm, so tests see the whole pool. */
export async function untilFullyReady(url: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const reply = await request(url, 'GET', '/readyz');
    const office = reply.status === 200 ? (reply.json() as { office?: { warm: number; configured: number } }).office : undefined;
    if (reply.status === 200 && (!office || office.warm >= office.configured)) return;
    if (Date.now() > deadline) throw new Error(`not fully ready within ${ms} ms: ${reply.status} ${reply.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
