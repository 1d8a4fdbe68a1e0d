import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/server.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { client, errorMessage as message, type Auth, type Client } from '../helpers/http.js';
import { docx, mergefield, p, run } from '../helpers/docx.js';
import { pdfFacts } from '../helpers/office.js';
import { hasOpenssl, makeP12 } from '../helpers/certificates.js';

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const skip = !has('pdfsig') || !hasOpenssl ? 'pdfsig and openssl are needed: apt-get install poppler-utils openssl' : false;

/** What poppler's pdfsig says of a PDF's signatures. */
function pdfsig(pdf: Buffer): string {
  const file = path.join(tempDir(), 'signed.pdf');
  fs.writeFileSync(file, pdf);
  // In the PDF's folder: NSS leaves its pkcs11.txt where it runs.
  const result = spawnSync('pdfsig', [file], { encoding: 'utf8', cwd: path.dirname(file) });
  return `${result.stdout}${result.stderr}`;
}

const OPERATOR_TOKEN = 'operator-token-for-the-signing-test-0123456789';

describe('signed PDFs (docsmith)', { skip }, () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let signer: Client;
  let auto: Client;
  const template = docx(p(run('Invoice for '), mergefield('name'))).toString('base64');
  const merge = (client: Client, query: string, extra: object = {}) =>
    client.post(`/v1/document/merge?${query}`, { json: { template, mergeData: [{ name: 'Ann' }], ...extra } });
  const first = (reply: { json(): unknown }) => Buffer.from((reply.json() as string[])[0]!, 'base64');

  before(async () => {
    env = await serverWithAccounts(
      { signer: { licence: 'SN-SIGN' }, auto: { licence: 'SN-AUTO' }, granted: { licence: 'SN-GRANTED' } },
      { DOCSMITH_OFFICE_PROCESSES: '1', DOCSMITH_OPERATOR_TOKEN: OPERATOR_TOKEN },
    );
    signer = env.clients.signer!;
    auto = env.clients.auto!;
  });
  after(async () => {
    await env?.close();
  });

  it('signs nothing for an account the operator has not granted signing, refusing before any work', async () => {
    const garbage = { template: Buffer.from('not a document').toString('base64') };
    const refused = await merge(signer, 'returnFormat=PDF&signature=visible', garbage);
    assert.equal(refused.status, 403, 'the grant is checked before the template is even read');
    assert.match(message(refused), /This account may not sign PDFs \(signature=visible\): signing is granted per account by the operator/);
    const job = await merge(signer, 'returnFormat=PDF&signature=invisible&async=true');
    assert.equal(job.status, 403, `a background job is refused at submission: ${job.text}`);
    const converted = await signer.post('/v1/document/convert?returnFormat=PDF&signature=visible', {
      json: docx(p(run('x'))).toString('base64'),
    });
    assert.equal(converted.status, 403);
    // The account's default alone signs nothing without the grant.
    const account = (await env.admin.store.accounts.byUsername('auto'))!;
    await env.admin.store.accounts.update(account.id, { pdfSignature: 'invisible' });
    assert.equal(pdfsig(first(await merge(auto, 'returnFormat=PDF'))).includes('does not contain any signatures'), true);
    assert.equal((await merge(auto, 'returnFormat=PDF&signature=none')).status, 200);
  });

  it("signs PDF and PDF/A output with the operator's certificate, visibly or not, per request or by the account's default", async () => {
    for (const name of ['signer', 'auto']) {
      const account = (await env.admin.store.accounts.byUsername(name))!;
      await env.admin.store.accounts.update(account.id, { signingGrant: true });
    }
    const garbage = { template: Buffer.from('not a document').toString('base64') };
    const refused = await merge(signer, 'returnFormat=PDF&signature=visible', garbage);
    assert.equal(refused.status, 400);
    assert.match(message(refused), /no certificate to sign PDFs with; the operator imports one \(docsmith signing import\)/);
    const withPassword = await merge(signer, 'returnFormat=PDF&signature=visible', { ...garbage, mergeSettings: { userPassword: 'pw' } });
    assert.equal(withPassword.status, 400);
    assert.match(message(withPassword), /password-protected PDF cannot be signed/, 'refused before the template is read');

    const facts = await env.admin.signing.import(fs.readFileSync(makeP12('docsmith test signer', 'p12-secret')), 'p12-secret');
    assert.equal(facts.subject, 'docsmith test signer');

    const visible = await merge(signer, 'returnFormat=PDF&signature=visible');
    assert.equal(visible.status, 200, visible.text);
    const said = pdfsig(first(visible));
    assert.match(said, /Signer Certificate Common Name: docsmith test signer/);
    assert.match(said, /Signature Validation: Signature is Valid\./);
    assert.match(said, /Total document signed/);
    assert.match(pdfFacts(first(visible)).text, /Invoice for Ann[\s\S]*Digitally signed by docsmith test signer/);

    const pdfa = await merge(signer, 'returnFormat=PDFA&signature=invisible');
    assert.equal(pdfa.status, 200, pdfa.text);
    assert.match(pdfsig(first(pdfa)), /Signature is Valid\./);
    assert.doesNotMatch(pdfFacts(first(pdfa)).text, /Digitally signed/);
    assert.match(first(pdfa).toString('latin1'), /pdfaid:part/, 'still PDF/A: its identification stays');

    const converted = await signer.post('/v1/document/convert?returnFormat=PDF&signature=invisible', {
      json: docx(p(run('Converted'))).toString('base64'),
    });
    assert.equal(converted.status, 200, converted.text);
    assert.match(pdfsig(Buffer.from(converted.json() as string, 'base64')), /Signature is Valid\./);

    // A PDF sent to convert passes through; an encrypted one is refused before any signing.
    const encrypted = first(await merge(signer, 'returnFormat=PDF&signature=none', { mergeSettings: { userPassword: 'pw' } }));
    const locked = await signer.post('/v1/document/convert?returnFormat=PDF&signature=visible', { json: encrypted.toString('base64') });
    assert.equal(locked.status, 400, locked.text);
    assert.match(message(locked), /password-protected/);

    // Unsigned unless asked: the vendor's calls are unchanged.
    assert.match(pdfsig(first(await merge(signer, 'returnFormat=PDF'))), /does not contain any signatures/);

    // The account's default, once granted: every PDF signed, unless a request says none.
    assert.match(pdfsig(first(await merge(auto, 'returnFormat=PDF'))), /Signature is Valid\./);
    assert.match(pdfsig(first(await merge(auto, 'returnFormat=PDF&signature=none'))), /does not contain any signatures/);
    assert.equal((await merge(auto, 'returnFormat=DOCX')).status, 200, 'other formats are left as they are');

    for (const [query, extra, pattern] of [
      ['returnFormat=DOCX&signature=visible', {}, /Only PDF and PDFA documents can be signed; returnFormat is DOCX/],
      ['returnFormat=PDF&signature=yes', {}, /signature is one of none, invisible, visible, not "yes"/],
      ['returnFormat=PDF&signature=visible', { mergeSettings: { userPassword: 'pw' } }, /password-protected PDF cannot be signed/],
    ] as const) {
      const reply = await merge(signer, query, extra);
      assert.equal(reply.status, 400, query);
      assert.match(message(reply), pattern, query);
    }
  });

  it("signs with an account's own certificate where the operator gave it one, and records every signing in the audit log", async () => {
    const auto = (await env.admin.store.accounts.byUsername('auto'))!;
    await env.admin.signing.import(fs.readFileSync(makeP12('Auto Ltd', 'auto-pw')), 'auto-pw', auto.id);
    const own = first(await merge(env.clients.auto!, 'returnFormat=PDF&signature=invisible'));
    assert.match(pdfsig(own), /Signer Certificate Common Name: Auto Ltd/);
    assert.match(pdfsig(own), /Signature is Valid\./);
    assert.match(
      pdfsig(first(await merge(signer, 'returnFormat=PDF&signature=invisible'))),
      /Common Name: docsmith test signer/,
      "others keep the server's",
    );
    const events = await env.admin.audit.list(auto.id, 50);
    const signed = events.filter((e) => e.action === 'PDF signed');
    assert.ok(signed.length >= 2, JSON.stringify(events));
    assert.match(signed[0]!.detail, /a PDF, invisible, as "Auto Ltd"/);
    assert.match(signed[0]!.actor, /^(password|key \d+)/);
  });

  it('lets the operator grant, revoke and give certificates over HTTP, with the operator token and nothing else', async () => {
    const operator = client(env.server.url, { key: OPERATOR_TOKEN, scheme: 'Bearer' });
    const path = '/v1/operator/accounts/granted/signing';
    for (const [who, auth] of [
      ['no credentials', null],
      ['a wrong token', { key: `${OPERATOR_TOKEN}x`, scheme: 'Bearer' }],
      ["an account's password", { basic: ['granted', 'x'] }],
      ['the token as an API key', { key: OPERATOR_TOKEN }],
    ] as [string, Auth][]) {
      const refused = await client(env.server.url, auth).put(path, { json: { granted: true } });
      assert.equal(refused.status, 403, who);
      assert.match(message(refused), /operator API needs "Authorization: Bearer <DOCSMITH_OPERATOR_TOKEN>"/, who);
    }
    const account = (await env.admin.store.accounts.byUsername('granted'))!;
    assert.equal(account.signingGrant, false);
    const own = env.clients.granted!;
    const ask = () => merge(own, 'returnFormat=PDF&signature=invisible');
    assert.equal((await ask()).status, 403);

    const before = await operator.get(path);
    assert.equal(before.status, 200, before.text);
    assert.deepEqual(before.json(), {
      username: 'granted',
      granted: false,
      defaultSignature: 'none',
      certificate: {
        subject: 'docsmith test signer',
        validUntil: (before.json() as { certificate: { validUntil: string } }).certificate.validUntil,
        own: false,
      },
    });
    const granted = await operator.put(path, { json: { granted: true } });
    assert.equal(granted.status, 200, granted.text);
    assert.equal((granted.json() as { granted: boolean }).granted, true);
    assert.match(pdfsig(first(await ask())), /Common Name: docsmith test signer/, "the grant works at once, with the server's certificate");

    const p12 = fs.readFileSync(makeP12('Granted GmbH', 'granted-pw')).toString('base64');
    const wrong = await operator.put(`${path}/certificate`, { json: { p12, password: 'nope' } });
    assert.equal(wrong.status, 400, wrong.text);
    const notBase64 = await operator.put(`${path}/certificate`, { json: { p12: 'not*base64!', password: 'granted-pw' } });
    assert.equal(notBase64.status, 400);
    assert.match(message(notBase64), /p12 is not Base64/);
    const kept = await operator.put(`${path}/certificate`, { json: { p12, password: 'granted-pw' } });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual((kept.json() as { certificate: { subject: string; own: boolean } }).certificate.subject, 'Granted GmbH');
    assert.match(pdfsig(first(await ask())), /Common Name: Granted GmbH/);
    assert.equal((await operator.delete(`${path}/certificate`)).status, 204);
    assert.equal((await operator.delete(`${path}/certificate`)).status, 404, 'nothing left to remove');

    await env.admin.store.accounts.update(account.id, { pdfSignature: 'visible' });
    const revoked = await operator.put(path, { json: { granted: false } });
    assert.deepEqual(
      [(revoked.json() as { granted: boolean }).granted, (revoked.json() as { defaultSignature: string }).defaultSignature],
      [false, 'none'],
    );
    assert.equal((await ask()).status, 403, 'revoked at once');

    const missing = await operator.get('/v1/operator/accounts/nobody/signing');
    assert.equal(missing.status, 404);
    assert.match(message(missing), /no account named "nobody"/);
    assert.equal((await operator.put(path, { json: { granted: 'yes' } })).status, 400);
    assert.equal((await operator.get('/v1/account/settings')).status, 403, 'the token opens nothing else');

    const events = (await env.admin.audit.list(account.id, 50)).filter((e) => e.actor === 'operator (API)');
    assert.deepEqual(
      events.map((e) => e.detail),
      ['signing revoked', 'signing certificate removed', 'signing certificate "Granted GmbH" imported', 'signing granted'],
    );
    assert.ok(events.every((e) => e.address));
  });
});
