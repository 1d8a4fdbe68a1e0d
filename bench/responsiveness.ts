/**
 * Does a heavy request hold up the others? In one run on this machine, against the same server:
 * p50/p99 latency of GET /healthz and of a 5-row merge, first on an idle server, then while
 * 20,000-row merges run back to back. Reported with the ratio loaded/idle (before the merge
 * moved to worker threads, the loaded p99 was about 2 s: the whole merge).
 */
import { performance } from 'node:perf_hooks';
import { block, docx, mergefield, p, run } from '../test/helpers/docx.js';
import { benchServer } from './support.js';

const percentile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

async function main(): Promise<void> {
  const server = await benchServer({ DOCSMITH_OFFICE_PROCESSES: '0' });
  const { authorization } = server;
  const template = docx(p(mergefield('company')) + block('items', p(mergefield('name'), run('\t'), mergefield('qty'))));
  await fetch(`${server.url}/v1/templates/upload?templateName=rows.docx`, {
    method: 'POST',
    headers: { authorization },
    body: JSON.stringify(template.toString('base64')),
  });
  const rows = (n: number) =>
    JSON.stringify({
      mergeData: [{ company: 'ACME', items: Array.from({ length: n }, (_, i) => ({ name: `Article ${i}`, qty: i % 7 })) }],
    });
  const big = rows(20_000);
  const small = rows(5);
  const merge = (body: string) =>
    fetch(`${server.url}/v1/document/merge?returnFormat=DOCX&templateName=rows.docx`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body,
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`merge answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    });
  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const sample = async () => {
    const health: number[] = [];
    const merges: number[] = [];
    for (let i = 0; i < 60; i++) {
      health.push(await timed(() => fetch(`${server.url}/healthz`).then((r) => r.text())));
      if (i % 3 === 0) merges.push(await timed(() => merge(small)));
      await new Promise((r) => setTimeout(r, 20));
    }
    return { health, merges };
  };
  try {
    for (let i = 0; i < 3; i++) await merge(small); // warm the template cache in the threads
    const idle = await sample();
    let running = true;
    let bigDone = 0;
    const bigTimes: number[] = [];
    const load = (async () => {
      while (running) {
        bigTimes.push(await timed(() => merge(big)));
        bigDone++;
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const loaded = await sample();
    running = false;
    await load;
    const line = (name: string, a: number[], b: number[]) => {
      const [p50a, p99a, p50b, p99b] = [percentile(a, 0.5), percentile(a, 0.99), percentile(b, 0.5), percentile(b, 0.99)];
      console.log(
        `  ${name.padEnd(14)} idle p50 ${p50a.toFixed(1)} ms, p99 ${p99a.toFixed(1)} ms | during 20,000-row merges p50 ${p50b.toFixed(1)} ms, p99 ${p99b.toFixed(1)} ms (p99 ${(p99b / p99a).toFixed(1)}x idle)`,
      );
    };
    console.log(
      `Responsiveness while 20,000-row merges run back to back (${bigDone} of them, median ${percentile(bigTimes, 0.5).toFixed(0)} ms each):`,
    );
    line('GET /healthz', idle.health, loaded.health);
    line('5-row merge', idle.merges, loaded.merges);
  } finally {
    await server.stop();
  }
}

await main();
