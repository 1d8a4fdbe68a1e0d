import { randomUUID } from 'node:crypto';
import { request, type Client, type Reply } from './http.js';
import { until } from './wait.js';

/**
 * Opens a gate on servers run with DOCSMITH_TEST_ROUTES=1: test operations sent with `gate=NAME`
 * hold until then (or their time limit), so a test holds slots for as long as it needs them.
 */
export async function openGate(bases: string[], name: string): Promise<void> {
  for (const base of bases) {
    const reply = await request(base, 'POST', `/_test/open?gate=${encodeURIComponent(name)}`);
    if (reply.status !== 200) throw new Error(`opening gate ${name}: ${reply.status} ${reply.text}`);
  }
}

/** Waits until `count` test operations wait at the gate, over all the servers: seen without sending work that would compete for slots. */
export async function heldAtGate(bases: string[], name: string, count: number): Promise<void> {
  await until(`${count} held at gate ${name}`, async () => {
    let held = 0;
    for (const base of bases) held += (await request(base, 'GET', `/_test/gate?gate=${encodeURIComponent(name)}`)).json() as number;
    return held >= count;
  });
}

/**
 * `count` merges sent at once, spread over `clients`, held until `refused` of them have been
 * refused, then let go on every server: however late a busy machine starts them, the ones that
 * run hold their slots until the others have been answered.
 */
export async function mergesHeldUntilRefused(clients: Client[], bases: string[], count: number, refused: number): Promise<Reply[]> {
  const gate = randomUUID();
  let seen = 0;
  const pending = Array.from({ length: count }, (_, i) =>
    clients[i % clients.length]!.post(`/v1/_test/operation?merge=1&gate=${gate}`).then((reply) => {
      if (reply.status === 403) seen++;
      return reply;
    }),
  );
  await until(`${refused} merges refused`, () => seen >= refused);
  await openGate(bases, gate);
  return Promise.all(pending);
}
