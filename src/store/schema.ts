/**
 * Which database schemas an instance can serve on, so that instances of two releases share one
 * database during a rolling upgrade. Migrations expand (new tables, new nullable columns, new
 * indexes) and older instances keep serving on the expanded schema. A release that removes or
 * changes what older code relies on (a contraction, shipped a release after the code stopped
 * relying on it) raises `oldestReader`; instances older than that become unready and say why.
 *
 * Each migration run records, on the rows it adds to schema_migrations, the oldest schema version
 * whose docsmith may still serve; an older instance reads it from the newest row. Rows written
 * before this column existed count as readable by their own version only.
 */
import { NewerSchemaError, type SchemaFit } from './errors.js';

export interface SchemaState {
  /** The newest applied migration. */
  version: number;
  /** The oldest schema version whose docsmith can serve on this one. */
  oldestReader: number;
}

/** How this instance (built for schema `instance`) stands to the schema it found. */
export function schemaFit(found: SchemaState | null, instance: number): SchemaFit {
  if (!found)
    return {
      serve: false,
      database: null,
      instance,
      reason: 'the database has no docsmith schema; restart docsmith to set it up, or restore a backup',
    };
  if (found.version === instance) return { serve: true, database: found.version, instance };
  if (found.version < instance) {
    return {
      serve: false,
      database: found.version,
      instance,
      reason: `the database schema is at version ${found.version}, older than this docsmith's ${instance} (restored from a backup?); restart docsmith to migrate it`,
    };
  }
  if (found.oldestReader <= instance) return { serve: true, database: found.version, instance };
  return {
    serve: false,
    database: found.version,
    instance,
    reason: `the database schema is at version ${found.version}, which docsmith built for schema ${found.oldestReader} or newer can serve; this instance is built for ${instance}: upgrade it to the release that migrated the database`,
  };
}

/**
 * The migrations (1-based versions) still to apply, given the rows of schema_migrations; none on a
 * newer schema this instance may serve beside; NewerSchemaError on one it may not.
 */
export function pendingMigrations(rows: { version: number; oldest_reader: number | null }[], known: number): number[] {
  const found = stateOf([...rows].sort((a, b) => b.version - a.version)[0]);
  if (found && found.version > known) {
    const fit = schemaFit(found, known);
    if (!fit.serve) throw new NewerSchemaError(fit.reason);
    return [];
  }
  const done = new Set(rows.map((r) => Number(r.version)));
  return Array.from({ length: known }, (_, i) => i + 1).filter((version) => !done.has(version));
}

/** The newest row of schema_migrations as a state (a row without oldest_reader: its own version). */
export function stateOf(row: { version: number | null; oldest_reader: number | null } | undefined): SchemaState | null {
  if (!row || row.version === null) return null;
  return { version: Number(row.version), oldestReader: Number(row.oldest_reader ?? row.version) };
}
