import type { Services } from '../../services.js';
import { sendJson, type Api } from '../wire.js';
import { StorageUnavailableError } from '../../errors.js';
import { leastFree } from '../../util/disk.js';
import type { StoreHealth } from '../../store/types.js';

/** Liveness and readiness for supervisors and load balancers; no authentication. */
export function healthRoutes(app: Api, services: Services): void {
  // Probes come every few seconds: they are not logged unless something is wrong.
  app.get('/healthz', { logLevel: 'warn', schema: { tags: ['operations'], summary: 'The process is alive' } }, async (_request, reply) =>
    sendJson(reply, 200, { status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: { tags: ['operations'], summary: 'The service can serve requests (storage reachable, disk not full, office engine warm)' },
    },
    async (request, reply) => {
      if (services.lifecycle.draining)
        return sendJson(reply, 503, { message: 'The service is shutting down; it finishes the requests it has and takes no more.' });
      let storage: StoreHealth;
      try {
        storage = await services.store.ping();
      } catch (error) {
        // The reason's details (database names, driver errors) go to the log, not to anonymous callers.
        request.log.warn({ err: error, detail: (error as StorageUnavailableError).detail }, 'storage not ready');
        const message = error instanceof StorageUnavailableError ? error.message : 'The storage is not available right now; retry shortly.';
        return sendJson(reply, 503, { message });
      }
      const disk = await leastFree([services.config.dataDir, services.scratchDir]);
      if (disk.free < services.config.minFreeDiskBytes) {
        request.log.warn({ folder: disk.folder, freeBytes: disk.free }, 'disk nearly full');
        return sendJson(reply, 503, {
          message: `The server's disk is nearly full (${Math.floor(disk.free / 1024 / 1024)} MB free, below DOCSMITH_MIN_FREE_DISK_MB=${services.config.minFreeDiskBytes / 1024 / 1024}); deleting templates or finished jobs frees space.`,
        });
      }
      if (services.scratch && !(await services.scratch.writable())) {
        request.log.warn({ folder: services.scratch.dir }, 'the scratch folder cannot be written');
        return sendJson(reply, 503, {
          message: "The server's scratch folder for office work cannot be written; office work fails until it can.",
        });
      }
      const office = services.office?.status();
      if (services.office && !services.office.ready) {
        const why = office?.lastError ? ` The last start failed: ${office.lastError}` : '';
        return sendJson(reply, 503, {
          message: `The office engine is starting (0 of ${office?.configured} processes warm).${why}`,
          office,
        });
      }
      // During a rolling upgrade the database's schema may be newer than this instance's, inside its range.
      return sendJson(reply, 200, {
        status: 'ready',
        storage: services.store.kind,
        schema: storage.schema,
        officeWorkers: office?.warm ?? 0,
        ...(office ? { office } : {}),
      });
    },
  );
}
