import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { sendJson } from '../wire.js';
import { StorageUnavailableError } from '../../errors.js';

/** Liveness and readiness for supervisors and load balancers; no authentication. */
export function healthRoutes(app: FastifyInstance, services: Services): void {
  // Probes come every few seconds: they are not logged unless something is wrong.
  app.get('/healthz', { logLevel: 'warn', schema: { tags: ['operations'], summary: 'The process is alive' } },
    async (_request, reply) => sendJson(reply, 200, { status: 'ok' }));

  app.get('/readyz', { logLevel: 'warn', schema: { tags: ['operations'], summary: 'The service can serve requests (storage reachable, office engine warm)' } },
    async (request, reply) => {
      if (services.lifecycle.draining) return sendJson(reply, 503, { message: 'The service is shutting down; it finishes the requests it has and takes no more.' });
      try {
        await services.store.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'storage not ready');
        const detail = error instanceof StorageUnavailableError ? error.message : 'The storage is not reachable.';
        return sendJson(reply, 503, { message: detail });
      }
      const office = services.office?.status();
      if (services.office && !services.office.ready) {
        const why = office?.lastError ? ` The last start failed: ${office.lastError}` : '';
        return sendJson(reply, 503, { message: `The office engine is starting (0 of ${office?.configured} processes warm).${why}`, office });
      }
      return sendJson(reply, 200, { status: 'ready', storage: services.store.kind, officeWorkers: office?.warm ?? 0, ...(office ? { office } : {}) });
    });
}
