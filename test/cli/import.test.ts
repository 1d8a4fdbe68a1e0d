import { after, before, describe, it } from 'node:test';
import { vendorApiKey, vendorFetch } from '../../src/cli/import.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixture, tempDir } from '../helpers/server.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage, type Client } from '../helpers/http.js';
import { docx, mergefield, p, partText, run } from '../helpers/docx.js';
import { cliAsync as cli } from '../helpers/cli.js';

// A TX template only the vendor reads (our reader refuses it): the one part of ReportingCloud a
// docsmith standing in for it cannot be, so a proxy in front of it serves this template and
// converts it as the vendor would.
const LEGACY = Buffer.concat([Buffer.from([0x08, 0x07, 0x01, 0x00]), Buffer.from('not a TX document our reader knows')]);
const LEGACY_DOCX = docx(p(run('Legacy for '), mergefield('customer')));

/** The vendor: a docsmith server behind a proxy that adds legacy.tx to its templates. */
function vendorProxy(target: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://vendor');
      const body = Buffer.concat(chunks);
      const json = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname === '/v1/templates/download' && url.searchParams.get('templateName') === 'legacy.tx')
        return json(LEGACY.toString('base64'));
      if (url.pathname === '/v1/document/convert' && body.toString().includes(LEGACY.toString('base64')))
        return json(LEGACY_DOCX.toString('base64'));
      const forward = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          let out = Buffer.concat(parts);
          if (url.pathname === '/v1/templates/list' && answer.statusCode === 200) {
            const list = JSON.parse(out.toString()) as object[];
            out = Buffer.from(
              JSON.stringify([...list, { templateName: 'legacy.tx', modified: '2020-01-01T00:00:00', size: LEGACY.length }]),
            );
          }
          res.writeHead(answer.statusCode!, { 'content-type': answer.headers['content-type'] ?? 'application/json' }).end(out);
        });
      });
      forward.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('docsmith import reportingcloud', () => {
  let vendor: Awaited<ReturnType<typeof serverWithAccounts>>;
  let here: Awaited<ReturnType<typeof serverWithAccounts>>;
  let proxy: http.Server;
  let vendorUrl: string;
  let key: string;
  let mine: Client;

  before(async () => {
    [vendor, here] = await Promise.all([
      serverWithAccounts({ rc: { licence: 'SN-VENDOR' } }, { DOCSMITH_OFFICE_PROCESSES: '1' }),
      serverWithAccounts({ ann: { licence: 'SN-HERE' }, bob: { licence: 'SN-BOB' } }, { DOCSMITH_OFFICE_PROCESSES: '1' }),
    ]);
    const rc = vendor.clients.rc!;
    key = (await rc.put('/v1/account/apikey')).json() as string;
    const block = p(run('Items: ')) + p(mergefield('TableStart:items')) + p(mergefield('name')) + p(mergefield('TableEnd:items'));
    const uploads: [string, Buffer][] = [
      ['letter.docx', docx(p(run('Dear '), mergefield('customer')) + block)],
      [
        'notes.rtf',
        Buffer.from('{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}\\f0 Notes {\\field{\\*\\fldinst MERGEFIELD topic}{\\fldrslt topic}}\\par}'),
      ],
      ['invoice.tx', fixture('test_template.tx')],
    ];
    for (const [name, bytes] of uploads) {
      const stored = await rc.post(`/v1/templates/upload?templateName=${name}`, { json: bytes.toString('base64') });
      assert.equal(stored.status, 201, `${name}: ${stored.text}`);
    }
    proxy = await vendorProxy(vendor.server.url);
    vendorUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    mine = here.clients.ann!;
  });
  after(async () => {
    proxy?.close();
    await Promise.all([vendor?.close(), here?.close()]);
  });

  it("stores every template of the vendor's account here, TX read here or converted by the vendor, and prints what template info reports", async () => {
    const dir = tempDir();
    const env = { DOCSMITH_DATA_DIR: here.dataDir };
    const imported = await cli(['import', 'reportingcloud', '--vendor-url', vendorUrl, '--user', 'ann', '--json'], dir, {
      env: { ...env, REPORTINGCLOUD_API_KEY: key },
    });
    assert.equal(imported.code, 0, imported.err);
    const rows = JSON.parse(imported.out) as { template: string; format: string; result: string; fields: number; blocks: number }[];
    const byName = Object.fromEntries(rows.map((r) => [r.template, r]));
    assert.deepEqual(Object.keys(byName).sort(), ['invoice.tx', 'legacy.tx', 'letter.docx', 'notes.rtf']);
    assert.deepEqual([byName['letter.docx']!.result, byName['letter.docx']!.fields, byName['letter.docx']!.blocks], ['stored', 1, 1]);
    assert.equal(byName['notes.rtf']!.result, 'stored');
    assert.equal(byName['notes.rtf']!.fields, 1);
    assert.deepEqual([byName['invoice.tx']!.format, byName['invoice.tx']!.result], ['TX', 'TX read here']);
    assert.ok(byName['invoice.tx']!.fields > 0);
    assert.equal(byName['legacy.tx']!.result, 'converted to DOCX by ReportingCloud');

    // The server here sees them: listed, described, and they merge.
    const list = (await mine.get('/v1/templates/list')).json() as { templateName: string }[];
    assert.deepEqual(list.map((t) => t.templateName).sort(), ['invoice.tx', 'legacy.tx', 'letter.docx', 'notes.rtf']);
    const merged = await mine.post('/v1/document/merge?returnFormat=DOCX&templateName=legacy.tx', {
      json: { mergeData: [{ customer: 'Ann' }] },
    });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(partText(Buffer.from((merged.json() as string[])[0]!, 'base64')), 'Legacy for Ann');
    const audit = (await mine.get('/v1/account/audit')).json() as { action: string; actor: string; detail: string }[];
    assert.ok(
      audit.some(
        (e) =>
          e.action === 'template uploaded' &&
          e.actor === 'operator (CLI)' &&
          /letter\.docx \(imported from ReportingCloud\)/.test(e.detail),
      ),
    );

    // Again: nothing is replaced unless asked; the table says so.
    const again = await cli(['import', 'reportingcloud', '--api-key', key, '--vendor-url', vendorUrl, '--user', 'ann'], dir, { env });
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /^template\s+format\s+size\s+result\s+fields\s+blocks\s+problem/m);
    assert.equal(again.out.match(/skipped: exists here/g)?.length, 4);
  });

  it('imports into a docsmith server over its API with --url, and says what failed', async () => {
    const dir = tempDir();
    const args = ['import', 'reportingcloud', '--api-key', key, '--vendor-url', vendorUrl, '--json', '--url', here.server.url];
    const imported = await cli([...args, '--user', 'bob', '--password', 'pw-bob-secret'], dir);
    assert.equal(imported.code, 0, imported.err);
    const rows = JSON.parse(imported.out) as { template: string; result: string }[];
    assert.deepEqual(rows.map((r) => r.result).sort(), ['TX read here', 'converted to DOCX by ReportingCloud', 'stored', 'stored']);
    const info = await here.clients.bob!.get('/v1/templates/info?templateName=letter.docx');
    assert.equal(info.status, 200, errorMessage(info));

    // A wrong vendor key, and an account with room for two templates only.
    const wrong = await cli(['import', 'reportingcloud', '--api-key', 'not-a-key', '--vendor-url', vendorUrl, '--user', 'ann'], dir, {
      env: { DOCSMITH_DATA_DIR: here.dataDir },
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /ReportingCloud at http:\/\/127\.0\.0\.1:\d+ did not list the templates: .*Not authorized/i);
    await here.admin.accounts.update('ann', { maxTemplates: 4 });
    for (const t of ['letter.docx', 'notes.rtf']) await mine.delete(`/v1/templates/delete?templateName=${t}`);
    await mine.post('/v1/templates/upload?templateName=other.docx', { json: docx(p(run('x'))).toString('base64') });
    const full = await cli(['import', 'reportingcloud', '--api-key', key, '--vendor-url', vendorUrl, '--user', 'ann', '--json'], dir, {
      env: { DOCSMITH_DATA_DIR: here.dataDir },
    });
    assert.equal(full.code, 1, full.out);
    assert.match(full.err, /1 of 4 templates did not come over/);
    const failed = (JSON.parse(full.out) as { result: string; problem: string }[]).filter((r) => r.result === 'failed');
    assert.equal(failed.length, 1);
    assert.match(failed[0]!.problem, /template/i);
  });
});

describe('docsmith import reportingcloud: calls to the vendor', () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/redirect')) {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (req.url?.startsWith('/large')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify('x'.repeat(4096)));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server?.close());

  it('follows no redirect, calls no other origin, and reads no answer past its limit', async () => {
    const call = vendorFetch(base, 1024);
    assert.equal((await call(`${base}/fine`)).status, 200);
    await assert.rejects(
      call(`${base}/redirect`),
      /answered with a redirect \(302 to http:\/\/169\.254\.169\.254\/latest\/meta-data\/\); docsmith follows none/,
    );
    await assert.rejects(call('http://127.0.0.2:1/v1/templates/list'), /calls ReportingCloud at http:\/\/127\.0\.0\.1:\d+ only/);
    await assert.rejects(call(`${base}/large`), /an answer larger than 0 MB/);
  });

  it('takes the key from the environment or standard input, not only the command line', async () => {
    assert.equal(await vendorApiKey({}, { REPORTINGCLOUD_API_KEY: 'from-env' }), 'from-env');
    assert.equal(
      await vendorApiKey(
        { 'api-key-stdin': true },
        {},
        (async function* () {
          yield Buffer.from('from-stdin\n');
        })(),
      ),
      'from-stdin',
    );
    assert.equal(await vendorApiKey({}, {}), '');
  });
});
