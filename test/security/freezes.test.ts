import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serverWithAccounts } from '../helpers/accounts.js';
import { request, type Client } from '../helpers/http.js';
import type { RunningServer } from '../helpers/server.js';
import { docx, p, run } from '../helpers/docx.js';
import zlib from 'node:zlib';
import { unzipSync } from 'fflate';
import { handmadeZip } from '../helpers/hostile.js';

/** A valid PDF of `pages` pages (one shared content stream), built directly: 100,000 pages in about 7 MB. */
function manyPagesPdf(pages: number): Buffer {
  const parts: string[] = ['%PDF-1.4\n'];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (body: string) => {
    offsets.push(length);
    const object = `${offsets.length} 0 obj\n${body}\nendobj\n`;
    parts.push(object);
    length += object.length;
  };
  const content = 'BT /F1 24 Tf 72 700 Td (A page) Tj ET';
  add('<</Type/Catalog/Pages 2 0 R>>');
  const kids = Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ');
  add(`<</Type/Pages/Count ${pages}/Kids[${kids}]>>`);
  add(`<</Length ${content.length}>>\nstream\n${content}\nendstream`);
  add('<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>');
  for (let i = 0; i < pages; i++) add('<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 3 0 R/Resources<</Font<</F1 4 0 R>>>>>>');
  const xref = [
    `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  return Buffer.from(
    `${parts.join('')}${xref}trailer\n<</Size ${offsets.length + 1}/Root 1 0 R>>\nstartxref\n${length}\n%%EOF\n`,
    'latin1',
  );
}

function logTail(server: RunningServer): string {
  try {
    return readFileSync(server.logPath, 'utf8').slice(-3000);
  } catch {
    return '(no log)';
  }
}

/** The server's longest event-loop delay since the last scrape (prom-client resets it on each one). */
async function eventLoopLagMs(url: string): Promise<number> {
  const metrics = await request(url, 'GET', '/metrics');
  const found = /^docsmith_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(metrics.text);
  assert.ok(found, 'the event-loop lag is in /metrics');
  return Number(found[1]) * 1000;
}

/**
 * The server's longest event-loop delay while `work` runs, as the server measured it (so the
 * client's own work on a busy machine does not count), with /healthz asked all along: a request
 * whose work ran on the event loop stalls it for the work's whole length (the 100,000-page PDF:
 * 100 s), a request whose work runs off it by milliseconds (JSON and Base64 of its body).
 */
async function lagWhile<T>(server: RunningServer, work: () => Promise<T>): Promise<{ result: T; worstMs: number; durationMs: number }> {
  await eventLoopLagMs(server.url);
  let done = false;
  const watcher = (async () => {
    while (!done) {
      const reply = await request(server.url, 'GET', '/healthz');
      assert.equal(reply.status, 200, `/healthz answered ${reply.status}; the server's log ends:\n${logTail(server)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const started = performance.now();
    const result = await work();
    const durationMs = performance.now() - started;
    const worstMs = await eventLoopLagMs(server.url);
    return { result, worstMs, durationMs };
  } catch (error) {
    throw new Error(`${(error as Error).message}; the server's log ends:\n${logTail(server)}`, { cause: error });
  } finally {
    done = true;
    await watcher;
  }
}

/**
 * Far above what a request's own event-loop steps take, far below a freeze. Parsing a 16 MB JSON
 * body and decoding its Base64 is the loop's work (0.3 s for the three PDF requests here on an
 * idle machine, 0.9 s with the build running beside it); a freeze is the document read on the loop
 * (the 100,000-page PDF: 100 s). A busy machine stretches the first, so the limit is not near it.
 */
const FREEZE_MS = 3000;

/**
 * Work done off the event loop leaves it free for most of the request: the loop's longest stall
 * is a small share of the request's time, however fast the machine (work done on the loop
 * stalls it for about the whole request: 0.7 s of 0.9 for a million characters of proofing). Half
 * separates the two on any machine: a quiet one gave a 95 MB body parsed off the loop 0.59 s of 2.3
 * (collecting the body and collecting its garbage are the loop's), more than a quarter.
 */
function assertOffTheLoop(worstMs: number, durationMs: number): void {
  assert.ok(
    worstMs < durationMs / 2,
    `the server's event loop stalled ${Math.round(worstMs)} ms of the request's ${Math.round(durationMs)} ms: its work ran on the loop`,
  );
}

describe('no single request freezes the server', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  const pdf = manyPagesPdf(100_000);
  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-FRZ' } }, { DOCSMITH_MAX_PAGES: '2000' });
    c = env.clients.ann!;
  });
  after(() => env.close());

  it('thumbnails of a 100,000-page PDF: page 1 rendered, the whole range refused with 413, /healthz answering throughout', async () => {
    const body = pdf.toString('base64');
    const { result: first, worstMs } = await lagWhile(env.server, async () => {
      const one = await c.post('/v1/document/thumbnails?zoomFactor=25&imageFormat=PNG&fromPage=1&toPage=1', { json: body });
      const all = await c.post('/v1/document/thumbnails?zoomFactor=25&imageFormat=PNG', { json: body });
      const last = await c.post('/v1/document/thumbnails?zoomFactor=25&imageFormat=PNG&fromPage=100000&toPage=100000', { json: body });
      return { one, all, last };
    });
    assert.equal(first.one.status, 200, first.one.text.slice(0, 300));
    assert.equal((first.one.json() as string[]).length, 1);
    assert.equal(first.all.status, 413, first.all.text.slice(0, 300));
    assert.match(first.all.text, /100000 pages; at most 2000 .*DOCSMITH_MAX_PAGES/);
    assert.equal(first.last.status, 200, first.last.text.slice(0, 300));
    assert.ok(worstMs < FREEZE_MS, `the server's event loop stalled ${Math.round(worstMs)} ms while the PDF was read`);
  });

  it('deeply nested merge data gets a 400 naming the field and the limit, synchronously and as a background job', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const template = docx(p(run('x'))).toString('base64');
    for (const path of ['/v1/document/merge?returnFormat=PDF', '/v1/document/merge?returnFormat=PDF&async=true']) {
      const reply = await c.post(path, {
        body: `{"template":"${template}","mergeData":[${deep}]}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(reply.status, 400, `${path}: ${reply.text.slice(0, 200)}`);
      assert.match(reply.text, /more than 100 levels deep in \\"mergeData\\"; at most 100/);
    }
    const fine = `${'{"a":'.repeat(60)}1${'}'.repeat(60)}`;
    const reply = await c.post('/v1/document/merge?returnFormat=DOCX', {
      body: `{"template":"${template}","mergeData":[${fine}]}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(reply.status, 200, reply.text.slice(0, 200));
  });

  it('the processing limit stops reading a PDF, in a worker thread', async () => {
    const limited = await serverWithAccounts({ bob: { licence: 'SN-FRZ2' } }, { DOCSMITH_PROCESSING_LIMIT_MS: '100' });
    try {
      // A PDF whose page tree is missing: MuPDF rebuilds it by reading every object, far beyond 100 ms.
      const broken = Buffer.from(
        manyPagesPdf(100_000).toString('latin1').replace('/Type/Pages/Count 100000', '/Type/Pages/Count 0000001'),
        'latin1',
      );
      const body = broken.toString('base64');
      const { result, worstMs } = await lagWhile(limited.server, () =>
        limited.clients.bob!.post('/v1/document/thumbnails?zoomFactor=25&fromPage=1&toPage=1', { json: body }),
      );
      assert.ok([200, 504].includes(result.status), `${result.status} ${result.text.slice(0, 200)}`);
      assert.ok(worstMs < FREEZE_MS, `the server's event loop stalled ${Math.round(worstMs)} ms`);
    } finally {
      await limited.close();
    }
  });

  it('tracked changes of a 500 KB DOCX that inflates to 500 MB are read in a worker thread', async (t) => {
    const real = unzipSync(docx(p(run('x'))));
    const spaces = zlib.deflateRawSync(Buffer.alloc(7_900_000, 0x20), { level: 9 });
    const entries = [
      ...Object.entries(real).map(([name, data]) => ({ name, deflated: zlib.deflateRawSync(data), declared: data.length })),
      ...Array.from({ length: 64 }, (_, i) => ({ name: `word/padding${i}.bin`, deflated: spaces, declared: 7_900_000 })),
    ];
    const body = handmadeZip(entries).toString('base64');
    const { result, worstMs, durationMs } = await lagWhile(env.server, () =>
      c.post('/v1/processing/review/trackedchanges', { json: body }),
    );
    assert.ok([200, 400].includes(result.status), `${result.status} ${result.text.slice(0, 200)}`);
    t.diagnostic(`the event loop stalled at most ${Math.round(worstMs)} ms of ${Math.round(durationMs)} ms`);
    assertOffTheLoop(worstMs, durationMs);
  });

  it('proofing a text of a million characters runs in a worker thread', async (t) => {
    const words = ['recieve', 'the', 'adress', 'of', 'teh', 'seperate', 'house'];
    let text = '';
    for (let i = 0; text.length < 990_000; i++) text += `${words[i % words.length]} `;
    const { result, worstMs, durationMs } = await lagWhile(env.server, () =>
      c.get(`/v1/proofing/check?language=en_US.dic&text=${text.trimEnd().replaceAll(' ', '+')}`),
    );
    assert.equal(result.status, 200, result.text.slice(0, 200));
    assert.ok((result.json() as unknown[]).length > 90_000, `${(result.json() as unknown[]).length} words`);
    t.diagnostic(`the event loop stalled at most ${Math.round(worstMs)} ms of ${Math.round(durationMs)} ms`);
    assertOffTheLoop(worstMs, durationMs);
  });

  it('a 95 MB request body is parsed off the event loop', async (t) => {
    const body = JSON.stringify({ documents: [{ document: Buffer.alloc(70_000_000, 7).toString('base64') }] });
    const { result, worstMs, durationMs } = await lagWhile(env.server, () =>
      c.post('/v1/document/append?returnFormat=DOCX', { body, headers: { 'content-type': 'application/json' } }),
    );
    assert.equal(result.status, 400, result.text.slice(0, 200));
    t.diagnostic(`the event loop stalled at most ${Math.round(worstMs)} ms of ${Math.round(durationMs)} ms`);
    assertOffTheLoop(worstMs, durationMs);
  });
});
