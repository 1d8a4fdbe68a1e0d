import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import pg from 'pg';
import { Database, openSqliteStore } from '../../src/store/sqlite.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from '../../src/store/migrations.js';
import { NewerSchemaError } from '../../src/store/errors.js';
import { StorageUnavailableError } from '../../src/errors.js';
import type { Store } from '../../src/store/types.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';

/** A database, how to open a store on it, and how to add a row to its schema_migrations as a newer docsmith would. */
interface Backend {
  name: string;
  version: number;
  open(): Promise<Store>;
  migrateAs(version: number, oldestReader: number): Promise<void>;
  cleanup(): Promise<void>;
}

async function sqlite(): Promise<Backend> {
  const file = path.join(tempDir(), 'schema.sqlite');
  return {
    name: 'sqlite',
    version: SQLITE_MIGRATIONS.length,
    open: async () => openSqliteStore(file),
    cleanup: async () => undefined,
    async migrateAs(version, oldestReader) {
      const db = new Database(file);
      db.prepare('INSERT INTO schema_migrations (version, applied_at, oldest_reader) VALUES (?, 0, ?)').run(version, oldestReader);
      db.close();
    },
  };
}

async function postgres(): Promise<Backend> {
  const db = await createTestDatabase();
  return {
    name: 'postgres',
    version: POSTGRES_MIGRATIONS.length,
    open: () => openPostgresStore(db.url),
    cleanup: () => db.drop(),
    async migrateAs(version, oldestReader) {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      await client.query('INSERT INTO schema_migrations (version, applied_at, oldest_reader) VALUES ($1, 0, $2)', [version, oldestReader]);
      await client.end();
    },
  };
}

for (const make of [sqlite, postgres]) {
  describe(`rolling upgrades: ${make.name}`, () => {
    it('serves on a newer schema inside its range, and says what to do once outside it', async () => {
      const backend = await make();
      const mine = backend.version;
      const store = await backend.open();
      try {
        assert.deepEqual(await store.ping(), { schema: { database: mine, instance: mine } });
        // A newer release expanded the schema and declares that this one may keep serving on it.
        await backend.migrateAs(mine + 1, mine);
        assert.deepEqual(await store.ping(), { schema: { database: mine + 1, instance: mine } });
        assert.deepEqual(await store.schema(), { schema: { database: mine + 1, instance: mine } });
        const restarted = await backend.open(); // starts beside it, migrating nothing
        assert.deepEqual(await restarted.ping(), { schema: { database: mine + 1, instance: mine } });
        await restarted.close();
        // A later release contracted it: this instance becomes unready, and says why.
        await backend.migrateAs(mine + 2, mine + 1);
        await assert.rejects(
          store.ping(),
          (error: unknown) =>
            error instanceof StorageUnavailableError &&
            new RegExp(
              `schema is at version ${mine + 2}, which docsmith built for schema ${mine + 1} or newer can serve; this instance is built for ${mine}: upgrade it`,
            ).test(error.message),
        );
        await assert.rejects(store.schema(), /this instance is built for/, 'the job runner stops taking jobs on it');
        await assert.rejects(
          backend.open(),
          (error: unknown) =>
            error instanceof NewerSchemaError && /upgrade it to the release that migrated the database/.test(error.message),
        );
      } finally {
        await store.close();
        await backend.cleanup();
      }
    });
  });
}
