import { StorageUnavailableError } from '../errors.js';
import type { StoreHealth } from './types.js';

/** PostgreSQL error classes and codes that mean "the database is not there", not "the request is wrong". */
const PG_UNAVAILABLE = /^(08|53|57P0[123]|3D000|42P01)/;
const SQLITE_UNAVAILABLE = /^SQLITE_(CANTOPEN|IOERR|NOTADB|CORRUPT|READONLY|BUSY|FULL)/;
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/**
 * The error as a 503 when it says the storage is unavailable (connection lost, database
 * dropped, schema gone, disk unreadable); undefined for every other error.
 */
export function asStorageUnavailable(error: unknown): StorageUnavailableError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error instanceof StorageUnavailableError) return error;
  const code = 'code' in error ? String((error as { code: unknown }).code) : '';
  const message = error.message;
  if (/timeout exceeded when trying to connect/i.test(message)) {
    return new StorageUnavailableError(message, 'the database is busy or not reachable');
  }
  if (/Query read timeout/i.test(message)) {
    return new StorageUnavailableError(message, 'the database did not answer in time');
  }
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === 'EDQUOT' || code === '53100') {
    return new StorageUnavailableError(
      `${code}: ${message.split('\n')[0]}`,
      "the server's disk is full; deleting templates or finished jobs frees space",
    );
  }
  if (
    NETWORK.has(code) ||
    PG_UNAVAILABLE.test(code) ||
    SQLITE_UNAVAILABLE.test(code) ||
    /Connection terminated|connection is not open|no such table|Client has encountered a connection error/i.test(message)
  ) {
    return new StorageUnavailableError(code ? `${code}: ${message.split('\n')[0]}` : message.split('\n')[0]!);
  }
  return undefined;
}

export const NO_SCHEMA = 'the database has no docsmith schema (was it re-created?); restart docsmith to set it up, or restore a backup';

/** The database was migrated by a newer docsmith that this one cannot serve beside (see store/schema.ts). */
export class NewerSchemaError extends Error {}

/** A backup that was refused or failed; the message says why (the CLI prints it without a trace). */
export class BackupError extends Error {}

/** How this instance stands to the schema it found (store/schema.ts schemaFit). */
export type SchemaFit =
  { serve: true; database: number; instance: number } | { serve: false; database: number | null; instance: number; reason: string };

/** A readiness answer from the schema's fit: the health, or a 503 that says what to do. */
export function healthOf(fit: SchemaFit): StoreHealth {
  if (!fit.serve) throw new StorageUnavailableError(fit.reason, fit.reason);
  return { schema: { database: fit.database, instance: fit.instance } };
}
