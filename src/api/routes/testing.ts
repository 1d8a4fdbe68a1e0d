import type { Services } from '../../services.js';
import { accountOf } from '../auth.js';
import { booleanQuery, delivered, queryOf, sendJson, whenDelivered, type Api } from '../wire.js';

/**
 * Only with DOCSMITH_TEST_ROUTES=1: a counted operation that does nothing but wait, so the
 * test suite can drive the real quota, slot and time-limit machinery over HTTP before every
 * document operation exists. Its answer is delivered as the document endpoints deliver theirs
 * (counted once sent); `untilClosed` ends the wait when the client leaves; `gate=NAME` ends it
 * when the test opens that gate (a condition the test controls, not a time a busy machine may miss).
 */
export function testingRoutes(app: Api, services: Services): void {
  app.post('/_test/operation', { schema: { hide: true } }, async (request, reply) => {
    const gate = queryOf(request).gate;
    const holdMs = Math.min(Number(queryOf(request).holdMs ?? (gate ? 120_000 : 0)) || 0, 120_000);
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
            if (gate) gates.leave(gate, done);
            resolve();
          };
          signal.addEventListener('abort', done);
          if (gate) gates.wait(gate, done);
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

/** Named gates, per process: once opened, a gate stays open, so an opening that arrives first is not lost. */
const gates = new (class Gates {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly opened = new Set<string>();

  wait(name: string, go: () => void): void {
    if (this.opened.has(name)) return go();
    const set = this.waiting.get(name) ?? new Set();
    set.add(go);
    this.waiting.set(name, set);
  }

  leave(name: string, go: () => void): void {
    this.waiting.get(name)?.delete(go);
  }

  count(name: string): number {
    return this.waiting.get(name)?.size ?? 0;
  }

  open(name: string): number {
    this.opened.add(name);
    const set = this.waiting.get(name) ?? new Set();
    this.waiting.delete(name);
    for (const go of set) go();
    return set.size;
  }
})();

/**
 * Opens a gate, or says how many operations wait at it, without credentials or the database: a
 * test opens it while the database is gone, and sees work held without sending work that competes.
 */
export function testingGateRoutes(app: Api): void {
  app.get('/_test/gate', { schema: { hide: true } }, async (request, reply) => {
    const name = queryOf(request).gate;
    if (!name) return sendJson(reply, 400, 'gate is required');
    return sendJson(reply, 200, gates.count(name));
  });
  app.post('/_test/open', { schema: { hide: true } }, async (request, reply) => {
    const name = queryOf(request).gate;
    if (!name) return sendJson(reply, 400, 'gate is required');
    return sendJson(reply, 200, gates.open(name));
  });
}
