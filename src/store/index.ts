import path from 'node:path';
import type { Store } from './types.js';
import { openSqliteStore } from './sqlite.js';
import { openPostgresStore } from './postgres.js';

export type { Store } from './types.js';

/** The embedded database's file in a data folder. */
export function sqliteFile(dataDir: string): string {
  return path.resolve(dataDir, 'docsmith.sqlite');
}

/** PostgreSQL when a URL is given, else the embedded SQLite file in the data directory. */
export async function openStore(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  databasePool?: number;
  databaseTimeoutMs?: number;
}): Promise<Store> {
  if (options.databaseUrl)
    return openPostgresStore(options.databaseUrl, { size: options.databasePool, timeoutMs: options.databaseTimeoutMs });
  return openSqliteStore(sqliteFile(options.dataDir));
}
