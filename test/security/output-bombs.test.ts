import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage, type Client } from '../helpers/http.js';
import { docx, mergefield, p } from '../helpers/docx.js';

/** A merge template (one field) carrying `media` as a picture part, packed as Word packs it (deflated). */
function templateWith(media: Uint8Array): Buffer {
  const parts = unzipSync(docx(p(mergefield('name'))));
  parts['word/media/image1.png'] = new Uint8Array(media);
  return Buffer.from(zipSync(parts, { level: 6 }));
}

describe('output bombs', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-BOMB' } }, { DOCSMITH_MAX_OUTPUT_MB: '5', DOCSMITH_WORK_MEMORY_MB: '96' });
    c = env.clients.ann!;
  });
  after(() => env.close());

  it('a small template with a large compressible picture gives small documents', async () => {
    const template = templateWith(new Uint8Array(8 * 1024 * 1024).fill(0x7f));
    assert.ok(template.length < 100_000, `the template is ${template.length} bytes`);
    const records = Array.from({ length: 20 }, (_, i) => ({ name: `N${i}` }));
    const reply = await c.post('/v1/document/merge?returnFormat=DOCX&append=false', {
      json: { template: template.toString('base64'), mergeData: records },
    });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    const documents = reply.json() as string[];
    assert.equal(documents.length, 20);
    for (const document of documents) assert.ok(document.length < 200_000, `a merged document is ${document.length} Base64 characters`);
    assert.equal(
      Buffer.from(unzipSync(Buffer.from(documents[0]!, 'base64'))['word/media/image1.png']!).length,
      8 * 1024 * 1024,
      'the picture is whole',
    );
  });

  it('output past DOCSMITH_MAX_OUTPUT_MB is a 413 naming the setting, synchronously and as a job', async () => {
    const template = templateWith(randomBytes(1024 * 1024)).toString('base64');
    const records = Array.from({ length: 20 }, (_, i) => ({ name: `N${i}` }));
    const reply = await c.post('/v1/document/merge?returnFormat=DOCX&append=false', { json: { template, mergeData: records } });
    assert.equal(reply.status, 413, reply.text.slice(0, 300));
    assert.match(errorMessage(reply), /more than 5 MB.*DOCSMITH_MAX_OUTPUT_MB/);
    const appended = await c.post('/v1/document/merge?returnFormat=DOCX&append=true', { json: { template, mergeData: records } });
    assert.equal(appended.status, 413, appended.text.slice(0, 300));
    const fine = await c.post('/v1/document/merge?returnFormat=DOCX&append=false', { json: { template, mergeData: records.slice(0, 3) } });
    assert.equal(fine.status, 200, fine.text.slice(0, 300));
  });

  it('work that needs more memory than DOCSMITH_WORK_MEMORY_MB is a 413 naming it, and the server goes on', async () => {
    const template = docx(p(mergefield('name'))).toString('base64');
    // 60 MB of text in 600 records: far past a 96 MB heap once parsed and rendered.
    const text = 'x'.repeat(100_000);
    const records = Array.from({ length: 600 }, () => ({ name: text }));
    const reply = await c.post('/v1/document/merge?returnFormat=DOCX&append=true', { json: { template, mergeData: records } });
    assert.equal(reply.status, 413, reply.text.slice(0, 300));
    assert.match(errorMessage(reply), /more than 96 MB of memory.*DOCSMITH_WORK_MEMORY_MB/);
    const after = await c.post('/v1/document/merge?returnFormat=DOCX', { json: { template, mergeData: [{ name: 'A' }] } });
    assert.equal(after.status, 200, after.text.slice(0, 300));
  });
});

describe('storage per account', () => {
  it('templates and job results count against DOCSMITH_ACCOUNT_STORAGE_MB; deleting gives the room back', async () => {
    const env = await serverWithAccounts(
      { ann: { licence: 'SN-STORE' }, bob: { licence: 'SN-STORE2' } },
      { DOCSMITH_ACCOUNT_STORAGE_MB: '1', DOCSMITH_JOB_POLL_MS: '100' },
    );
    try {
      const ann = env.clients.ann!;
      const big = templateWith(randomBytes(600 * 1024));
      // A job whose request fits but whose result (two documents) would not fails with the same 413.
      const job = await ann.post('/v1/document/merge?returnFormat=DOCX&append=false&async=true', {
        json: { template: big.toString('base64'), mergeData: [{ name: 'A' }, { name: 'B' }] },
      });
      assert.equal(job.status, 202, job.text);
      const id = (job.json() as { id: string }).id;
      let state: { state: string; error: { status: number; message: string } | null };
      const deadline = Date.now() + 120_000;
      do {
        await new Promise((r) => setTimeout(r, 50));
        state = (await ann.get(`/v1/jobs/${id}`)).json() as typeof state;
      } while (state.state !== 'failed' && state.state !== 'done' && Date.now() < deadline);
      assert.equal(state.state, 'failed');
      assert.equal(state.error?.status, 413);
      assert.match(state.error?.message ?? '', /DOCSMITH_ACCOUNT_STORAGE_MB/);
      assert.equal(
        ((await ann.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments,
        0,
        'a result not kept is not counted',
      );

      assert.equal((await ann.upload('a.docx', big)).status, 201);
      const over = await ann.upload('b.docx', big);
      assert.equal(over.status, 413, over.text);
      assert.match(errorMessage(over), /limit of 1 MB \(DOCSMITH_ACCOUNT_STORAGE_MB\)/);
      assert.equal((await ann.upload('a.docx', big)).status, 201, 'replacing a template counts its new size only');
      assert.deepEqual(
        ((await ann.get('/v1/templates/versions?templateName=a.docx')).json() as { version: number }[]).map((v) => v.version),
        [2],
        'the earlier version is given up: it does not fit beside the new one',
      );
      assert.equal((await env.clients.bob!.upload('b.docx', big)).status, 201, 'another account has its own room');

      assert.equal((await ann.delete('/v1/templates/delete?templateName=a.docx')).status, 204);
      assert.equal((await ann.upload('b.docx', big)).status, 201, 'room again after the delete');
    } finally {
      await env.close();
    }
  });
});
