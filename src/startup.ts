/** What went wrong at start-up, in one line an operator can act on. */
import http from 'node:http';
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

/** Errors that mean "PostgreSQL is not there yet" (down, starting, unreachable), not "configured wrong". */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', '57P03']);

export function databaseUnreachable(error: unknown): boolean {
  const e = error as SystemError;
  return (
    UNREACHABLE.has(String(e?.code)) ||
    /^08/.test(String(e?.code)) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(String(e?.message))
  );
}

/**
 * Opens with `open` until the database answers: meanwhile the port answers /healthz 200 and
 * everything else 503 with Retry-After (a supervisor sees a live process that is not ready),
 * with back-off from 0.5 s to 10 s and one log line per reason. A stop signal ends the wait.
 */
export async function openWhenReachable<T>(
  listen: { port: number; host: string },
  open: () => Promise<T>,
  log: (line: { msg: string; reason: string }) => void,
): Promise<T> {
  let waiting: http.Server | undefined;
  let lastReason = '';
  let delay = 500;
  const stop = () => process.exit(0);
  try {
    for (;;) {
      try {
        return await open();
      } catch (error) {
        if (!databaseUnreachable(error)) throw error;
        const reason = startupProblem(error);
        if (reason !== lastReason) log({ msg: 'waiting for the database; retrying with back-off', reason });
        lastReason = reason;
        if (!waiting) {
          waiting = await waitingServer(listen);
          process.once('SIGTERM', stop);
          process.once('SIGINT', stop);
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(10_000, delay * 2);
      }
    }
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    if (waiting) {
      const server = waiting;
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
    }
  }
}

function waitingServer(listen: { port: number; host: string }): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const alive = request.url === '/healthz';
    const body = alive ? { status: 'ok' } : { message: 'The service is starting: its database is not reachable yet; retry shortly.' };
    response.writeHead(alive ? 200 : 503, {
      'content-type': 'application/json; charset=utf-8',
      connection: 'close',
      ...(alive ? {} : { 'retry-after': '5' }),
    });
    response.end(JSON.stringify(body));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve(server));
  });
}
