import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { sendJson } from '../wire.js';

/** Liveness and readiness for supervisors and load balancers; no authentication. */
export function healthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process is alive' } },
    async (_request, reply) => sendJson(reply, 200, { status: 'ok' }));

  app.get('/readyz', { schema: { tags: ['operations'], summary: 'The service can serve requests (storage reachable, office engine warm)' } },
    async (request, reply) => {
      try {
        await services.store.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'storage not reachable');
        return sendJson(reply, 503, { message: 'The storage is not reachable.' });
      }
      if (services.office && !services.office.ready) {
        return sendJson(reply, 503, { message: 'The office engine is starting.' });
      }
      return sendJson(reply, 200, { status: 'ready', storage: services.store.kind, officeWorkers: services.office?.size ?? 0 });
    });
}
