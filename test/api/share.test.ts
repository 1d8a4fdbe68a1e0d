import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixture } from '../helpers/server.js';
import { request, type Client } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';

describe('share tokens', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  let bob: Client;
  before(async () => {
    env = await serverWithAccounts({ ann: {}, bob: {} }, { DOCSMITH_OFFICE_WORKERS: '1' });
    ann = env.clients.ann!;
    bob = env.clients.bob!;
    await ann.upload('letter.docx', fixture('test_template.docx'));
    await ann.upload('other.docx', fixture('test_document.docx'));
  });
  after(() => env.close());

  const open = (path: string) => request(env.server.url, 'GET', path);
  const token = async (c: Client, name: string) => (await c.get(`/v1/document/share?templateName=${name}`)).json() as string;

  it('opens a read-only preview without credentials', async () => {
    const t = await token(ann, 'letter.docx');
    assert.match(t, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const page = await open(`/share/${t}`);
    assert.equal(page.status, 302);
    assert.equal(page.headers.location, `/portal/share/${t}`, 'the portal shows the preview');
    const info = await open(`/share/${t}/info`);
    assert.deepEqual(info.json(), { templateName: 'letter.docx', pages: 1 });
    const image = await open(`/share/${t}/pages/1.png`);
    assert.equal(image.status, 200);
    assert.equal(image.headers['content-type'], 'image/png');
    assert.equal((await open(`/share/${t}/pages/1.png?zoom=25`)).status, 200);
    assert.equal((await open(`/share/${t}/pages/1.png?zoom=400`)).status, 404, 'only a few fixed sizes');
    assert.equal((await open(`/share/${t}/pages/2.png`)).status, 404);
  });

  it('is useless for any other template, and cannot be forged', async () => {
    const t = await token(ann, 'letter.docx');
    const [body, mac] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), n: 'other.docx' })).toString('base64url');
    assert.equal((await open(`/share/${forged}.${mac}`)).status, 404);
    assert.equal((await open(`/share/${body}.${'A'.repeat(43)}`)).status, 404);
    assert.equal((await open('/share/garbage')).status, 404);
    assert.equal((await bob.get('/v1/document/share?templateName=letter.docx')).status, 400, 'bob cannot share ann\'s template');
  });

  it('dies when the template is replaced or deleted', async () => {
    const t = await token(ann, 'letter.docx');
    await ann.upload('letter.docx', fixture('sample_docx.docx'));
    assert.equal((await open(`/share/${t}`)).status, 404);
    const fresh = await token(ann, 'letter.docx');
    assert.equal((await open(`/share/${fresh}`)).status, 302);
    await ann.delete('/v1/templates/delete?templateName=letter.docx');
    assert.equal((await open(`/share/${fresh}`)).status, 404);
    assert.equal((await open(`/share/${fresh}/pages/1.png`)).status, 404);
    assert.equal((await open(`/share/${fresh}/info`)).status, 404);
  });

  it('answers a long proofing text in the query string', async () => {
    const text = 'word '.repeat(10_000);
    const reply = await ann.get(`/v1/proofing/check?text=${encodeURIComponent(text)}&language=en_US.dic`);
    assert.equal(reply.status, 200);
  });
});
