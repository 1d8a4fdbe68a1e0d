import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage, request, type Client } from '../helpers/http.js';
import { docx, mergefield, p, partText, run } from '../helpers/docx.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { silenceableProxy, type SilenceableProxy } from '../helpers/proxy.js';
import { openObjectStorage, type ObjectStorage } from '../../src/store/objects.js';

describe('a server keeping templates and job results in object storage (S3 protocol)', () => {
  let s3: TestS3;
  let objects: ObjectStorage;
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  const keys = async () => (await objects.list()).map((o) => o.key);

  before(async () => {
    s3 = await startS3();
    objects = await openObjectStorage({ ...s3.config, prefix: 'docsmith/' });
    env = await serverWithAccounts({ ann: { licence: 'SN-S3' } }, { ...s3.env, DOCSMITH_JOB_POLL_MS: '100' });
    ann = env.clients.ann!;
  });
  after(async () => {
    await env?.close();
    await s3?.close();
  });

  it('stores uploads in the bucket, merges from there, keeps versions, and removes them with the template', async () => {
    const upload = (text: string) =>
      ann.post('/v1/templates/upload?templateName=letter.docx', { json: docx(p(run(text), mergefield('name'))).toString('base64') });
    assert.equal((await upload('Dear ')).status, 201);
    assert.equal((await upload('Hello ')).status, 201);
    assert.equal((await keys()).filter((k) => k.startsWith('docsmith/templates/')).length, 2);
    const merged = await ann.post('/v1/document/merge?returnFormat=DOCX&templateName=letter.docx', {
      json: { mergeData: [{ name: 'Ann' }] },
    });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(partText(Buffer.from((merged.json() as string[])[0]!, 'base64')), 'Hello Ann');
    const first = await ann.get('/v1/templates/download?templateName=letter.docx&templateVersion=1');
    assert.equal(partText(Buffer.from(first.json() as string, 'base64')), 'Dear «name»');
    const list = (await ann.get('/v1/templates/list')).json() as { templateName: string; size: number }[];
    assert.ok(list[0]!.size > 1000, 'the listed size is the template, not its pointer');

    // A background job's result is kept in the bucket too.
    const job = await ann.post('/v1/document/merge?returnFormat=DOCX&templateName=letter.docx&async=true', {
      json: { mergeData: [{ name: 'Bo' }] },
    });
    assert.equal(job.status, 202, job.text);
    const links = (job.json() as { links: { self: string; result: string } }).links;
    while (!['done', 'failed'].includes(((await ann.get(links.self)).json() as { state: string }).state))
      await new Promise((r) => setTimeout(r, 100));
    const result = await ann.get(links.result);
    assert.equal(partText(Buffer.from((result.json() as string[])[0]!, 'base64')), 'Hello Bo');
    assert.equal((await keys()).filter((k) => k.startsWith('docsmith/jobs/')).length, 1);

    assert.equal((await ann.delete('/v1/templates/delete?templateName=letter.docx')).status, 204);
    assert.deepEqual(
      (await keys()).filter((k) => k.startsWith('docsmith/templates/')),
      [],
    );
  });

  it('answers 503 with Retry-After while the bucket is unreachable, and readiness says why', async () => {
    await s3.close();
    const refused = await ann.post('/v1/templates/upload?templateName=x.docx', { json: docx(p(run('x'))).toString('base64') });
    assert.equal(refused.status, 503, refused.text);
    assert.ok(refused.headers['retry-after']);
    assert.match(errorMessage(refused), /object storage is not reachable/);
    const ready = await request(env.server.url, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.match(ready.text, /object storage/);
    assert.equal((await request(env.server.url, 'GET', '/healthz')).status, 200, 'the process itself is alive');
  });
});

describe('a bucket that stops answering (connections taken, nothing said)', () => {
  let s3: TestS3;
  let proxy: SilenceableProxy;
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  before(async () => {
    s3 = await startS3();
    const target = new URL(s3.url);
    proxy = await silenceableProxy(target.hostname, Number(target.port));
    env = await serverWithAccounts(
      { ann: { licence: 'SN-S3-STALL' } },
      { ...s3.env, DOCSMITH_S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`, DOCSMITH_S3_TIMEOUT_MS: '1000' },
    );
    proxy.silence();
  });
  after(async () => {
    // The bucket's connections are cut first: nothing of the server's stop waits on a silent peer.
    proxy?.close();
    await env?.close();
    await s3?.close();
  });
  it('answers 503 naming the object storage within its limits, and work that needs no stored object goes on', async () => {
    const ann = env.clients.ann!;
    const ready = await request(env.server.url, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.match(ready.text, /object storage/);
    const upload = await ann.post('/v1/templates/upload?templateName=x.docx', { json: docx(p(run('x'))).toString('base64') });
    assert.equal(upload.status, 503, upload.text);
    assert.ok(upload.headers['retry-after']);
    assert.match(errorMessage(upload), /object storage/);
    const merged = await ann.post('/v1/document/merge?returnFormat=DOCX', {
      json: { template: docx(p(run('Dear '), mergefield('name'))).toString('base64'), mergeData: [{ name: 'Ann' }] },
    });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(partText(Buffer.from((merged.json() as string[])[0]!, 'base64')), 'Dear Ann');
  });
});
