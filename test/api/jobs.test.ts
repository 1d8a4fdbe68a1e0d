import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { unzipSync } from 'fflate';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import { startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { adminServices, makeAccount, serverWithAccounts, untilFullyReady } from '../helpers/accounts.js';
import { client, errorMessage as message, request, type Client } from '../helpers/http.js';
import { docx, mergefield, p, partText } from '../helpers/docx.js';
import { pdfFacts, slowRtf } from '../helpers/office.js';
import { until } from '../helpers/wait.js';

interface Job {
  id: string;
  kind: string;
  state: string;
  attempts: number;
  progress: { stage: string; done?: number; total?: number } | null;
  error: { status: number; message: string } | null;
  callback: { url: string; state: string; attempts: number; lastError: string | null } | null;
  links: { self: string; result: string };
  summary: { format: string; template?: string; records?: number; documents?: number } | null;
  resultBytes: number | null;
}

const template = docx(p(run('Dear '), mergefield('name'))).toString('base64');
function run(text: string) {
  return `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
}

/** A local callback receiver; answers 500 to the first `failures` deliveries. */
async function receiver(failures = 0) {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let left = failures;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = left-- > 0 ? 500 : 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received,
    close: () => new Promise((r) => server.close(r)),
  };
}

const jobOf = async (c: Client, id: string) => (await c.get(`/v1/jobs/${id}`)).json() as Job;
const finished = (c: Client, id: string) =>
  until(`job ${id} finished`, async () => {
    const job = await jobOf(c, id);
    return job.state === 'done' || job.state === 'failed' ? job : undefined;
  });

describe('background jobs (async=true) with callbacks', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  let bob: Client;
  before(async () => {
    env = await serverWithAccounts(
      { ann: { licence: 'SN-1' }, bob: { licence: 'SN-2' } },
      {
        DOCSMITH_OFFICE_PROCESSES: '1',
        DOCSMITH_PROCESSING_LIMIT_MS: '700',
        DOCSMITH_JOB_POLL_MS: '100',
        DOCSMITH_CALLBACK_ALLOW: 'public,127.0.0.1',
        DOCSMITH_CALLBACK_BACKOFF_MS: '100',
        DOCSMITH_CALLBACK_ATTEMPTS: '3',
      },
    );
    ann = env.clients.ann!;
    bob = env.clients.bob!;
  });
  after(() => env.close());

  it('merges in the background: 202 with the job, the same result as a request, a signed callback retried after a failure', async () => {
    const hook = await receiver(1);
    try {
      const body = { template, mergeData: [{ name: 'Ann' }, { name: 'Bob' }] };
      const reply = await ann.post(
        `/v1/document/merge?returnFormat=DOCX&append=false&async=true&callbackUrl=${encodeURIComponent(hook.url)}`,
        { json: body },
      );
      assert.equal(reply.status, 202, reply.text);
      const queued = reply.json() as Job;
      assert.equal(reply.headers.location, `/v1/jobs/${queued.id}`);
      assert.equal(queued.kind, 'merge');
      assert.deepEqual(queued.links, { self: `/v1/jobs/${queued.id}`, result: `/v1/jobs/${queued.id}/result` });
      assert.deepEqual(queued.summary, { format: 'DOCX', records: 2 }, 'what it works on: an uploaded template');
      assert.equal(queued.resultBytes, null);

      const done = await finished(ann, queued.id);
      assert.equal(done.state, 'done', JSON.stringify(done));
      const result = await ann.get(done.links.result);
      assert.equal(result.status, 200);
      assert.ok(done.resultBytes && Math.abs(done.resultBytes - result.text.length) < result.text.length / 2, `${done.resultBytes}`);
      const documents = (result.json() as string[]).map((d) => partText(Buffer.from(d, 'base64')));
      const direct = ((await ann.post('/v1/document/merge?returnFormat=DOCX&append=false', { json: body })).json() as string[]).map((d) =>
        partText(Buffer.from(d, 'base64')),
      );
      assert.deepEqual(documents, direct);
      assert.match(documents[1]!, /Dear Bob/);

      // The first delivery got a 500; the second one is delivered.
      const job = await until('callback delivered', async () => {
        const j = await jobOf(ann, queued.id);
        return j.callback?.state === 'delivered' ? j : undefined;
      });
      assert.equal(job.callback?.attempts, 2);
      assert.equal(hook.received.length, 2);
      const secret = (await ann.get('/v1/jobs/callbacksecret')).json() as string;
      for (const [i, delivery] of hook.received.entries()) {
        const payload = JSON.parse(delivery.body) as { id: string; state: string; result: string };
        assert.deepEqual([payload.id, payload.state, payload.result], [queued.id, 'done', `/v1/jobs/${queued.id}/result`]);
        assert.equal(delivery.headers['x-docsmith-job'], queued.id);
        assert.equal(delivery.headers['x-docsmith-delivery-attempt'], String(i + 1));
        assert.equal(delivery.headers['x-docsmith-delivery'], `${queued.id}.callback`, 'the same delivery id on every attempt');
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers['x-docsmith-signature']))!;
        assert.equal(
          v1,
          createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest('hex'),
          'the signature checks out with the account secret',
        );
      }
      assert.notEqual((await bob.get('/v1/jobs/callbacksecret')).json(), secret, 'each account signs with its own secret');
      const metrics = (await request(env.server.url, 'GET', '/metrics')).text;
      assert.match(metrics, /docsmith_jobs_finished_total\{outcome="done"\} [1-9]/);
      assert.match(metrics, /docsmith_job_callbacks_total\{result="failed"\} 1\b/);
      assert.match(metrics, /docsmith_job_callbacks_total\{result="delivered"\} 1\b/);
    } finally {
      await hook.close();
    }
  });

  it('answers the synchronous document endpoints as files when asked (Accept); a form it cannot send costs and counts nothing', async () => {
    const created = async () => ((await ann.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const start = await created();
    const merge = (query: string, accept?: string) =>
      ann.post(`/v1/document/merge?${query}`, {
        json: { template, mergeData: [{ name: 'A' }, { name: 'B' }] },
        ...(accept ? { headers: { accept } } : {}),
      });
    const pdf = await merge('returnFormat=PDF&append=true', 'application/pdf');
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.headers['content-disposition'], 'attachment; filename="document.pdf"');
    assert.equal(pdf.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    const zip = await merge('returnFormat=DOCX&append=false', 'application/zip');
    assert.equal(zip.headers['content-type'], 'application/zip');
    const entries = unzipSync(zip.bytes);
    assert.deepEqual(Object.keys(entries), ['document-1.docx', 'document-2.docx']);
    assert.match(partText(Buffer.from(entries['document-2.docx']!)), /Dear B/);
    // Without Accept, or with */*, the vendor's JSON.
    assert.equal(((await merge('returnFormat=PDF&append=false')).json() as string[]).length, 2);
    assert.equal((await merge('returnFormat=PDF', '*/*')).headers['content-type'], 'application/json; charset=utf-8');
    // Java's default header, which the vendor's Java SDK sends, names HTML and JPEG beside */*: JSON.
    const java = 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2';
    assert.equal((await merge('returnFormat=HTML&append=false', java)).headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(await created(), start + 5, 'each answer counted once');
    // Refused before any work, or after it with nothing counted.
    const none = await merge('returnFormat=PDF', 'text/csv');
    assert.equal(none.status, 406);
    assert.match(message(none), /application\/json, application\/zip or application\/pdf; the Accept header asks for none of them/);
    const several = await merge('returnFormat=PDF&append=false', 'application/pdf');
    assert.equal(several.status, 406);
    assert.match(message(several), /made 2 documents: ask for them as one ZIP/);
    assert.equal(await created(), start + 5, 'nothing counted for either');
    // Page images: one image as itself.
    const pages = await ann.post('/v1/document/thumbnails?zoomFactor=50&fromPage=1&toPage=1&imageFormat=PNG', {
      json: pdf.bytes.toString('base64'),
      headers: { accept: 'image/png' },
    });
    assert.equal(pages.status, 200);
    assert.equal(pages.headers['content-type'], 'image/png');
    assert.equal(pages.bytes.subarray(1, 4).toString('latin1'), 'PNG');
    const jpegs = await ann.post('/v1/document/thumbnails?zoomFactor=50&imageFormat=JPG', {
      json: pdf.bytes.toString('base64'),
      headers: { accept: java },
    });
    assert.equal(jpegs.headers['content-type'], 'application/json; charset=utf-8');
  });

  it("sends a finished job's documents as files when asked (Accept): the document itself, several in a ZIP; JSON stays the default", async () => {
    const two = (
      await ann.post('/v1/document/merge?returnFormat=PDF&append=false&async=true', {
        json: { template, mergeData: [{ name: 'A' }, { name: 'B' }] },
      })
    ).json() as Job;
    const one = (
      await ann.post('/v1/document/merge?returnFormat=DOCX&append=true&async=true', {
        json: { template, mergeData: [{ name: 'A' }, { name: 'B' }] },
      })
    ).json() as Job;
    await finished(ann, two.id);
    await finished(ann, one.id);
    const json = await ann.get(`/v1/jobs/${two.id}/result`, { headers: { accept: 'application/json' } });
    assert.equal((json.json() as string[]).length, 2, 'JSON as before');
    assert.equal(
      (await ann.get(`/v1/jobs/${two.id}/result`, { headers: { accept: '*/*' } })).headers['content-type'],
      'application/json; charset=utf-8',
    );
    const zip = await ann.get(`/v1/jobs/${two.id}/result`, { headers: { accept: 'application/zip' } });
    assert.equal(zip.status, 200);
    assert.equal(zip.headers['content-type'], 'application/zip');
    const entries = unzipSync(zip.bytes);
    assert.deepEqual(Object.keys(entries), ['document-1.pdf', 'document-2.pdf']);
    assert.equal(Buffer.from(entries['document-2.pdf']!).subarray(0, 5).toString('latin1'), '%PDF-');
    const several = await ann.get(`/v1/jobs/${two.id}/result`, { headers: { accept: 'application/pdf' } });
    assert.equal(several.status, 406);
    assert.match((several.json() as { message: string }).message, /made 2 documents: ask for them as one ZIP \(Accept: application\/zip\)/);
    const docx = await ann.get(`/v1/jobs/${one.id}/result`, {
      headers: { accept: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
    });
    assert.equal(docx.status, 200);
    assert.match(String(docx.headers['content-disposition']), new RegExp(`attachment; filename="job-${one.id}\\.docx"`));
    assert.match(partText(docx.bytes), /A[^]*B/);
    assert.deepEqual(
      docx.bytes,
      Buffer.from((JSON.parse((await ann.get(`/v1/jobs/${one.id}/result`)).text) as string[])[0]!, 'base64'),
      'the same bytes as in JSON',
    );
    const refused = await ann.get(`/v1/jobs/${one.id}/result`, { headers: { accept: 'image/png' } });
    assert.equal(refused.status, 406);
    assert.match(
      (refused.json() as { message: string }).message,
      /application\/json, application\/zip or application\/vnd\.openxmlformats/,
    );
  });

  it('keeps jobs to their account', async () => {
    const reply = await ann.post('/v1/document/merge?returnFormat=DOCX&async=true', { json: { template, mergeData: [{ name: 'A' }] } });
    const { id } = reply.json() as Job;
    await finished(ann, id);
    assert.equal((await bob.get(`/v1/jobs/${id}`)).status, 404);
    assert.equal((await bob.get(`/v1/jobs/${id}/result`)).status, 404);
    assert.equal((await bob.delete(`/v1/jobs/${id}`)).status, 404);
    assert.ok(((await ann.get('/v1/jobs')).json() as Job[]).some((j) => j.id === id));
    assert.ok(!((await bob.get('/v1/jobs')).json() as Job[]).some((j) => j.id === id));
    assert.equal((await ann.delete(`/v1/jobs/${id}`)).status, 204);
    assert.equal((await ann.get(`/v1/jobs/${id}`)).status, 404);
  });

  it('answers what it can at once: bad input, a missing template, a callback to an internal address', async () => {
    const jobsBefore = ((await ann.get('/v1/jobs')).json() as Job[]).length;
    const bad = await ann.post('/v1/document/merge?returnFormat=DOCX&async=true', { json: { template: 'not base64!', mergeData: [{}] } });
    assert.equal(bad.status, 400);
    assert.match(message(bad), /Base64/);
    const missing = await ann.post('/v1/document/merge?returnFormat=DOCX&async=true&templateName=nothing.docx', {
      json: { mergeData: [{}] },
    });
    assert.equal(missing.status, 400);
    assert.match(message(missing), /no template named "nothing.docx"/);
    // A stored template is named in the job's summary.
    assert.equal((await ann.post('/v1/templates/upload?templateName=letter.docx', { json: template })).status, 201);
    const stored = await ann.post('/v1/document/merge?returnFormat=PDF&async=true&templateName=letter.docx', {
      json: { mergeData: [{ name: 'Cy' }] },
    });
    assert.equal(stored.status, 202, stored.text);
    assert.deepEqual((stored.json() as Job).summary, { format: 'PDF', records: 1, template: 'letter.docx' });
    assert.equal((await finished(ann, (stored.json() as Job).id)).state, 'done');
    await ann.delete(`/v1/jobs/${(stored.json() as Job).id}`);
    await ann.delete('/v1/templates/delete?templateName=letter.docx');
    const culture = await ann.post('/v1/document/merge?returnFormat=DOCX&async=true', {
      json: { template: docx(p(mergefield('x'))).toString('base64'), mergeData: [{}], mergeSettings: { culture: 'zz-ZZZ-bad' } },
    });
    assert.equal(culture.status, 400, 'an unknown culture is refused at submission, not in the job');
    assert.match(message(culture), /mergeSettings\.culture "zz-ZZZ-bad" is not a culture name we know/);
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.8/hook',
      'http://[::1]/hook',
      'file:///etc/passwd',
      'http://user:pw@example.com/',
    ]) {
      const refused = await ann.post(`/v1/document/convert?returnFormat=TXT&async=true&callbackUrl=${encodeURIComponent(url)}`, {
        json: Buffer.from('<p>x</p>').toString('base64'),
      });
      assert.equal(refused.status, 400, url);
      assert.match(message(refused), /callbackUrl/);
    }
    const noAsync = await ann.post(`/v1/document/append?returnFormat=DOCX&callbackUrl=${encodeURIComponent('http://127.0.0.1/x')}`, {
      json: { documents: [{ document: template }] },
    });
    assert.equal(noAsync.status, 400);
    assert.match(message(noAsync), /async=true/);
    const result = await ann.get('/v1/jobs/no-such-job/result');
    assert.equal(result.status, 404);
    const maybe = await ann.post('/v1/document/merge?returnFormat=DOCX&async=maybe', { json: { template, mergeData: [{}] } });
    assert.equal(maybe.status, 400);
    assert.match(message(maybe), /"async" must be true or false/);
    assert.equal((await ann.get(`/v1/jobs/${'x'.repeat(65)}`)).status, 400, 'an id longer than any job id');
    assert.equal(((await ann.get('/v1/jobs')).json() as Job[]).length, jobsBefore, 'none of the refused requests left a job behind');
  });

  it('gives jobs their own time limit, reports progress, and records a failure as the request would have had it', async () => {
    // Twelve 25-page documents to PDF take longer than the request limit here (0.7 s), not than the job limit.
    const records = Array.from({ length: 12 }, (_, i) => ({ name: `Reader ${i}` }));
    const long = {
      template: docx(Array.from({ length: 1200 }, (_, i) => p(run(`Line ${i} `), mergefield('name'))).join('')).toString('base64'),
      mergeData: records,
    };
    const sync = await ann.post('/v1/document/merge?returnFormat=PDF&append=false', { json: long });
    assert.equal(sync.status, 504, sync.text.slice(0, 200));
    const reply = await ann.post('/v1/document/merge?returnFormat=PDF&append=false&async=true', { json: long });
    const { id } = reply.json() as Job;
    const seen = await until('progress while converting', async () => {
      const job = await jobOf(ann, id);
      return job.progress?.stage === 'converting' || job.state === 'done' ? job : undefined;
    });
    if (seen.state !== 'done') assert.equal(seen.progress?.total, 12);
    const done = await finished(ann, id);
    assert.equal(done.state, 'done', JSON.stringify(done.error));
    const pdfs = ((await ann.get(done.links.result)).json() as string[]).map((d) => pdfFacts(Buffer.from(d, 'base64')));
    assert.equal(pdfs.length, 12);
    assert.match(pdfs[11]!.text, /Reader 11/);

    // A job that fails keeps the status and message the request would have answered.
    const broken = await ann.post('/v1/document/append?returnFormat=PDF&async=true', {
      json: { documents: [{ document: Buffer.from('PK\x03\x04 broken').toString('base64') }] },
    });
    const failed = await finished(ann, (broken.json() as Job).id);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error?.status, 400);
    const noResult = await ann.get(failed.links.result);
    assert.equal(noResult.status, 409);
    assert.match(message(noResult), /failed/);
  });

  it('gives up a callback after the configured attempts', async () => {
    const hook = await receiver(100);
    try {
      const reply = await ann.post(`/v1/document/merge?returnFormat=TXT&async=true&callbackUrl=${encodeURIComponent(hook.url)}`, {
        json: { template, mergeData: [{ name: 'A' }] },
      });
      const { id } = reply.json() as Job;
      const job = await until('callback failed', async () => {
        const j = await jobOf(ann, id);
        return j.callback?.state === 'failed' ? j : undefined;
      });
      assert.equal(job.callback?.attempts, 3);
      assert.equal(job.callback?.lastError, 'HTTP 500');
      assert.equal(hook.received.length, 3);
    } finally {
      await hook.close();
    }
  });
});

describe('background jobs across instances and restarts', () => {
  it('pages the job list with a cursor (newest first, each job once, however many are added meanwhile), and gives a submission sent again with its Idempotency-Key the job it made', async () => {
    const env = await serverWithAccounts({ ann: { licence: 'SN-1' } }, { DOCSMITH_JOB_CONCURRENCY: '0', DOCSMITH_JOB_MAX_WAITING: '20' });
    try {
      const ann = env.clients.ann!;
      const submit = async (name: string) =>
        ((await ann.post('/v1/document/merge?returnFormat=DOCX&async=true', { json: { template, mergeData: [{ name }] } })).json() as Job)
          .id;
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push(await submit(`N${i}`));
      const seen: string[] = [];
      const times: number[] = [];
      let next: string | null = '/v1/jobs?limit=3';
      while (next) {
        const page = await ann.get(next);
        assert.equal(page.status, 200, page.text);
        seen.push(...(page.json() as Job[]).map((j) => j.id));
        times.push(...(page.json() as (Job & { createdAt: string })[]).map((j) => Date.parse(j.createdAt)));
        const link = page.headers.link as string | undefined;
        next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
        if (link) assert.ok(next!.endsWith(`after=${String(page.headers['x-next-cursor'])}`));
        if (seen.length === 3) await submit('added while paging'); // newer: on no later page
      }
      assert.deepEqual([...seen].sort(), [...ids].sort(), 'each job once, the one added meanwhile on no later page');
      assert.deepEqual(
        times,
        [...times].sort((x, y) => y - x),
        'newest first',
      );
      assert.equal(((await ann.get('/v1/jobs')).json() as Job[]).length, 8);
      assert.equal((await ann.get('/v1/jobs?limit=0')).status, 400);
      // A submission sent again with its Idempotency-Key (its answer was lost) gets the job it made.
      const keyed = async (key: string) =>
        ann.post('/v1/document/merge?returnFormat=DOCX&async=true', {
          json: { template, mergeData: [{ name: 'K' }] },
          headers: { 'idempotency-key': key },
        });
      const first = await keyed('order-4711');
      const again = await keyed('order-4711');
      assert.equal(first.status, 202);
      assert.equal(again.status, 202);
      assert.equal((again.json() as Job).id, (first.json() as Job).id);
      assert.equal(((await ann.get('/v1/jobs?limit=100')).json() as Job[]).filter((j) => j.id === (first.json() as Job).id).length, 1);
      assert.notEqual(((await keyed('order-4712')).json() as Job).id, (first.json() as Job).id);
      const bad = await keyed('not a key');
      assert.equal(bad.status, 400);
      assert.match(message(bad), /Idempotency-Key/);
      assert.equal((await ann.get('/v1/jobs?limit=501')).status, 400);
      const forged = await ann.get('/v1/jobs?after=bm90LWEtY3Vyc29y');
      assert.equal(forged.status, 400);
      assert.match(message(forged), /X-Next-Cursor/);
    } finally {
      await env.close();
    }
  });

  it('queues jobs on an instance that runs none, cancels and limits them, and another instance runs them; the job limit stops a long job', async () => {
    const dataDir = tempDir();
    const admin = await adminServices({ dataDir });
    const account = await makeAccount(admin, 'ann', { licence: 'SN-1' });
    await admin.store.close();
    let server: RunningServer = await startServer({
      DOCSMITH_DATA_DIR: dataDir,
      DOCSMITH_JOB_CONCURRENCY: '0',
      DOCSMITH_JOB_MAX_WAITING: '3',
    });
    let ann = client(server.url, { basic: [account.user, account.password] });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const reply = await ann.post('/v1/document/merge?returnFormat=DOCX&async=true', {
          json: { template, mergeData: [{ name: `N${i}` }] },
        });
        assert.equal(reply.status, 202);
        ids.push((reply.json() as Job).id);
      }
      const over = await ann.post('/v1/document/merge?returnFormat=DOCX&async=true', { json: { template, mergeData: [{ name: 'x' }] } });
      assert.equal(over.status, 429);
      assert.match(message(over), /DOCSMITH_JOB_MAX_WAITING/);
      assert.equal((await ann.delete(`/v1/jobs/${ids[0]}`)).status, 204, 'a queued job is cancelled');
      // Some 5,000 pages: far beyond the 15 s job limit below on any machine (the small merges stay far inside it, even on a busy one).
      const slow = await ann.post('/v1/document/convert?returnFormat=PDF&async=true', {
        json: fs.readFileSync(slowRtf(200_000)).toString('base64'),
      });
      assert.equal(slow.status, 202, slow.text);
      assert.equal((await ann.get(`/v1/jobs/${ids[1]}/result`)).status, 409);
      const metrics = (await request(server.url, 'GET', '/metrics')).text;
      assert.match(metrics, /^docsmith_jobs_waiting 3$/m, 'three jobs wait for an instance that runs them');
      assert.match(metrics, /^docsmith_jobs_oldest_waiting_seconds \d/m);
      await server.stop();

      // The next instance (jobs on, a 15 s job limit) runs what was queued; nothing is lost.
      server = await startServer({
        DOCSMITH_DATA_DIR: dataDir,
        DOCSMITH_OFFICE_PROCESSES: '1',
        DOCSMITH_JOB_TIME_LIMIT_S: '15',
        DOCSMITH_JOB_POLL_MS: '100',
      });
      await untilFullyReady(server.url);
      ann = client(server.url, { basic: [account.user, account.password] });
      for (const [i, id] of ids.slice(1).entries()) {
        const done = await finished(ann, id);
        assert.equal(done.state, 'done');
        const [document] = (await ann.get(done.links.result)).json() as string[];
        assert.match(partText(Buffer.from(document!, 'base64')), new RegExp(`Dear N${i + 1}`));
      }
      const stopped = await finished(ann, (slow.json() as Job).id);
      assert.equal(stopped.state, 'failed');
      assert.equal(stopped.error?.status, 504);
      assert.equal((await ann.get(`/v1/jobs/${ids[0]}`)).status, 404);
      await server.stop();

      // An instance that stops while a job runs puts it back in the queue after its grace period.
      server = await startServer({
        DOCSMITH_DATA_DIR: dataDir,
        DOCSMITH_OFFICE_PROCESSES: '1',
        DOCSMITH_SHUTDOWN_GRACE_MS: '300',
        DOCSMITH_JOB_POLL_MS: '100',
      });
      await untilFullyReady(server.url);
      ann = client(server.url, { basic: [account.user, account.password] });
      const long = (
        await ann.post('/v1/document/convert?returnFormat=PDF&async=true', { json: fs.readFileSync(slowRtf(20_000)).toString('base64') })
      ).json() as Job;
      await until('the long job runs', async () => ((await jobOf(ann, long.id)).state === 'running' ? true : undefined));
      await server.stop();
      server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_JOB_CONCURRENCY: '0' });
      ann = client(server.url, { basic: [account.user, account.password] });
      const requeued = await jobOf(ann, long.id);
      assert.equal(requeued.state, 'queued');
      assert.equal(requeued.attempts, 0, 'a stop is not counted as a failed attempt');
    } finally {
      await server.stop();
    }
  });
});
