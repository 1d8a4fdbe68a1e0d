import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fixture } from '../helpers/server.js';
import { request, type Client } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';

describe('share tokens', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  let bob: Client;
  before(async () => {
    env = await serverWithAccounts({ ann: {}, bob: {} }, { DOCSMITH_OFFICE_PROCESSES: '1' });
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
    assert.match(t, /^[A-Za-z0-9_-]{43}$/, 'opaque: nothing readable in it');
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
    // The token is a credential: the log shows the requests without it.
    for (let tries = 0; !fs.readFileSync(env.server.logPath, 'utf8').includes('/share/[token]/pages/2.png'); tries++) {
      assert.ok(tries < 600, 'the request is logged');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(!fs.readFileSync(env.server.logPath, 'utf8').includes(t), 'no share token in the log');
  });

  it('opens nothing with a changed, suffixed or guessed token, and only its owner can share', async () => {
    const t = await token(ann, 'letter.docx');
    for (const bad of [`${t}.x`, `${t}x`, t.slice(0, -1), `${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}`, 'garbage']) {
      assert.equal((await open(`/share/${bad}`)).status, 404, bad);
    }
    assert.equal((await bob.get('/v1/document/share?templateName=letter.docx')).status, 400, "bob cannot share ann's template");
  });

  it('lists live links without their tokens, and revokes them', async () => {
    const t = await token(ann, 'other.docx');
    const links = (await ann.get('/v1/document/share/list')).json() as {
      id: string;
      templateName: string;
      created: string;
      expires: string;
    }[];
    const link = links.find((l) => l.templateName === 'other.docx')!;
    assert.ok(link);
    assert.ok(!JSON.stringify(links).includes(t), 'tokens are never shown again');
    const days = (Date.parse(link.expires) - Date.parse(link.created)) / 86_400_000;
    assert.equal(Math.round(days), 7, 'the default lifetime');
    assert.deepEqual((await bob.get('/v1/document/share/list')).json(), [], "bob sees none of ann's");
    assert.equal((await bob.delete(`/v1/document/share?id=${link.id}`)).status, 400, 'nor revokes them');
    assert.equal((await open(`/share/${t}`)).status, 302);
    assert.equal((await ann.delete(`/v1/document/share?id=${link.id}`)).status, 204);
    assert.equal((await open(`/share/${t}`)).status, 404);
    assert.equal((await ann.delete(`/v1/document/share?id=${link.id}`)).status, 400);
  });

  it('expires: lifetime asked for within the maximum, and a link past its date opens nothing', async () => {
    assert.equal((await ann.get('/v1/document/share?templateName=letter.docx&expiresInDays=91')).status, 400);
    assert.equal((await ann.get('/v1/document/share?templateName=letter.docx&expiresInDays=0')).status, 400);
    const t = (await ann.get('/v1/document/share?templateName=letter.docx&expiresInDays=90')).json() as string;
    assert.equal((await open(`/share/${t}`)).status, 302);
    // One that ran out: written to the store as it would stand a year later.
    const expired = 'E'.repeat(43);
    await env.admin.store.shareLinks.add({
      id: 'expired-link',
      accountId: (await env.admin.store.accounts.byUsername('ann'))!.id,
      templateName: 'letter.docx',
      createdAt: new Date(Date.now() - 2 * 86_400_000),
      expiresAt: new Date(Date.now() - 1000),
      tokenHash: createHash('sha256').update(expired).digest('hex'),
    });
    assert.equal((await open(`/share/${expired}`)).status, 404);
  });

  it('dies when the template is replaced or deleted, and stays dead when the same bytes come back', async () => {
    const t = await token(ann, 'letter.docx');
    await ann.upload('letter.docx', fixture('sample_docx.docx'));
    assert.equal((await open(`/share/${t}`)).status, 404);
    const fresh = await token(ann, 'letter.docx');
    assert.equal((await open(`/share/${fresh}`)).status, 302);
    await ann.delete('/v1/templates/delete?templateName=letter.docx');
    assert.equal((await open(`/share/${fresh}`)).status, 404);
    assert.equal((await open(`/share/${fresh}/pages/1.png`)).status, 404);
    assert.equal((await open(`/share/${fresh}/info`)).status, 404);
    await ann.upload('letter.docx', fixture('sample_docx.docx'));
    assert.equal((await open(`/share/${fresh}`)).status, 404, 'the same bytes again do not revive it');
  });

  it("gives the portal its page images with the user's own credentials, uncounted", async () => {
    await ann.upload('pages.docx', fixture('test_template.docx'));
    const before = ((await ann.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const image = await ann.get('/v1/templates/pageimage?templateName=pages.docx&page=1&zoom=25');
    assert.equal(image.status, 200);
    assert.equal(image.headers['content-type'], 'image/png');
    assert.equal((await ann.get('/v1/templates/pageimage?templateName=pages.docx&page=1&zoom=33')).status, 400);
    assert.equal((await bob.get('/v1/templates/pageimage?templateName=pages.docx&page=1&zoom=25')).status, 400, 'bob has no such template');
    assert.equal(((await ann.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments, before);
  });

  it('answers a long proofing text in the query string', async () => {
    const text = 'word '.repeat(10_000);
    const reply = await ann.get(`/v1/proofing/check?text=${encodeURIComponent(text)}&language=en_US.dic`);
    assert.equal(reply.status, 200);
  });
});
