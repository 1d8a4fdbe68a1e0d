import path from 'node:path';
import pg from 'pg';
import type { Store } from '../../src/store/types.js';
import { Database, openSqliteStore } from '../../src/store/sqlite.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { tempDir } from './server.js';

/** A database under test: how to open a store on it (again: a second instance), and SQL behind the store's back. */
export interface StoreBackend {
  name: 'sqlite' | 'postgres';
  open(): Promise<Store>;
  /** Runs one statement ($1, $2 ... for PostgreSQL, ? for SQLite) and returns its rows. */
  query<T>(statement: string, params?: unknown[]): Promise<T[]>;
  cleanup(): Promise<void>;
}

export function sqliteBackend(): StoreBackend & { file: string } {
  const file = path.join(tempDir(), 'store.sqlite');
  return {
    name: 'sqlite',
    file,
    open: async () => openSqliteStore(file),
    async query<T>(statement: string, params: unknown[] = []) {
      const db = new Database(file);
      try {
        const prepared = db.prepare(statement);
        return (prepared.reader ? prepared.all(...params) : (prepared.run(...params), [])) as T[];
      } finally {
        db.close();
      }
    },
    cleanup: async () => undefined,
  };
}

export function postgresBackend(): StoreBackend {
  let db: TestDatabase | undefined;
  return {
    name: 'postgres',
    async open() {
      db ??= await createTestDatabase();
      return openPostgresStore(db.url);
    },
    async query<T>(statement: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: db!.url });
      await client.connect();
      try {
        return (await client.query(statement, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    cleanup: async () => db?.drop(),
  };
}
