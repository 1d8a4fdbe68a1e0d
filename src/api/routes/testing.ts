import type { Services } from '../../services.js';
import { accountOf } from '../auth.js';
import { booleanQuery, delivered, queryOf, sendJson, whenDelivered, type Api } from '../wire.js';

/**
 * Only with DOCSMITH_TEST_ROUTES=1: a counted operation that does nothing but wait, so the
 * test suite can drive the real quota, slot and time-limit machinery over HTTP before every
 * document operation exists. Its answer is delivered as the document endpoints deliver theirs
 * (counted once sent); `untilClosed` ends the wait when the client leaves.
 */
export function testingRoutes(app: Api, services: Services): void {
  app.post('/_test/operation', { schema: { hide: true } }, async (request, reply) => {
    const holdMs = Math.min(Number(queryOf(request).holdMs ?? 0) || 0, 120_000);
    const options = { test: booleanQuery(request, 'test', false), merge: booleanQuery(request, 'merge', false) };
    const fail = booleanQuery(request, 'fail', false);
    const untilClosed = booleanQuery(request, 'untilClosed', false);
    const response = reply.raw;
    const work = services.usage.run(
      accountOf(request),
      options,
      async (signal) => {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, holdMs);
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          signal.addEventListener('abort', done);
          if (untilClosed) {
            if (response.destroyed) done();
            else response.once('close', done);
          }
        });
        if (fail) throw new Error('requested failure');
      },
      () => delivered(reply, () => sendJson(reply, 200, true)),
    );
    return whenDelivered(reply, work);
  });
}
