/** What went wrong at start-up, in one line an operator can act on. */
import { ConfigError } from './config.js';
import { NewerSchemaError } from './store/errors.js';

interface SystemError extends Error {
  code?: string;
  path?: string;
  syscall?: string;
  address?: string;
  port?: number;
}

export function startupProblem(error: unknown): string {
  if (error instanceof ConfigError || error instanceof NewerSchemaError) return error.message;
  const e = error as SystemError;
  const where = e.path ? ` ${e.path}` : '';
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return `no permission to ${e.syscall ?? 'use'}${where} (${e.code}): give the service's user access to its data folder (DOCSMITH_DATA_DIR), or choose another one`;
    case 'ENOENT':
      return `${where.trim() || 'a file'} does not exist (${e.syscall ?? 'ENOENT'}): check DOCSMITH_DATA_DIR and the paths in the environment`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `${where.trim() || 'a path'} is not a folder (${e.code}): DOCSMITH_DATA_DIR must name a folder docsmith may create and write`;
    case 'EROFS':
    case 'ENOSPC':
      return `cannot write${where} (${e.code}): the data folder's disk is ${e.code === 'ENOSPC' ? 'full' : 'read-only'}`;
    case 'EADDRINUSE':
      return `port ${e.port ?? ''} is in use (EADDRINUSE): stop what uses it or set PORT`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
      return `cannot reach PostgreSQL${e.address ? ` at ${e.address}${e.port ? `:${e.port}` : ''}` : ''} (${e.code}): start it, or fix DOCSMITH_DATABASE_URL`;
    case '28P01':
    case '28000':
      return `PostgreSQL refused the login (${e.code}): fix the user or password in DOCSMITH_DATABASE_URL`;
    case '3D000':
      return `the PostgreSQL database in DOCSMITH_DATABASE_URL does not exist (3D000): create it (createdb) or fix the URL`;
    default:
      return e?.message ? `${e.message}${e.code ? ` (${e.code})` : ''}` : String(error);
  }
}
