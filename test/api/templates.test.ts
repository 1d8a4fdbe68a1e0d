import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { unreadableTx } from '../helpers/tx.js';
import { client, partialRequest, type Client, errorMessage as message } from '../helpers/http.js';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import type { Services } from '../../src/services.js';
import { block, docx, mergefield, p, partText, row, cell, run, table } from '../helpers/docx.js';

describe('template storage over HTTP', () => {
  let server: RunningServer;
  let admin: Services;
  let ann: Client;
  let bob: Client;
  before(async () => {
    const dataDir = tempDir();
    admin = await adminServices({ dataDir });
    const a = await makeAccount(admin, 'ann', { maxTemplates: 6 });
    const b = await makeAccount(admin, 'bob');
    server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_BODY_LIMIT: String(2 * 1024 * 1024) });
    ann = client(server.url, { basic: [a.user, a.password] });
    bob = client(server.url, { basic: [b.user, b.password] });
  });
  after(async () => {
    await server.stop();
    await admin.store.close();
  });

  it('uploads DOCX, DOC and RTF, lists, counts, downloads the exact bytes and replaces by name', async () => {
    const docx = fixture('test_template.docx');
    const doc = fixture('test.doc');
    const rtf = Buffer.from('{\\rtf1\\ansi {\\field{\\*\\fldinst MERGEFIELD name}{\\fldrslt «name»}}\\par}');
    const up = await ann.upload('invoice.docx', docx);
    assert.equal(up.status, 201);
    assert.equal(up.text, '');
    assert.equal((await ann.upload('letter.doc', doc)).status, 201);
    assert.equal((await ann.upload('memo.rtf', rtf)).status, 201);
    assert.equal((await ann.get('/v1/templates/count')).text, '3');
    const list = (await ann.get('/v1/templates/list')).json() as { templateName: string; modified: string; size: number }[];
    assert.deepEqual(
      list.map((t) => [t.templateName, t.size]),
      [
        ['invoice.docx', docx.length],
        ['letter.doc', doc.length],
        ['memo.rtf', rtf.length],
      ],
    );
    assert.ok(list.every((t) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/.test(t.modified)));
    const download = await ann.get('/v1/templates/download?templateName=invoice.docx');
    assert.equal(download.status, 200);
    assert.ok(Buffer.from(download.json() as string, 'base64').equals(docx));
    assert.ok(!download.text.includes('\\/'), 'slashes are not escaped');

    const replacement = fixture('sample_docx.docx');
    assert.equal((await ann.upload('invoice.docx', replacement)).status, 201);
    assert.ok(
      Buffer.from((await ann.get('/v1/templates/download?templateName=invoice.docx')).json() as string, 'base64').equals(replacement),
    );
    assert.equal((await ann.get('/v1/templates/count')).text, '3');
    assert.equal((await ann.get('/v1/templates/exists?templateName=invoice.docx')).text, 'true');
    assert.equal((await ann.get('/v1/templates/exists?templateName=nothing.docx')).text, 'false');
    const settings = (await ann.get('/v1/account/settings')).json() as { uploadedTemplates: number };
    assert.equal(settings.uploadedTemplates, 3);
  });

  it('keeps names with spaces and non-ASCII characters; + and %20 both mean space', async () => {
    assert.equal(
      (await ann.post('/v1/templates/upload?templateName=my+file.docx', { json: fixture('test_document.docx').toString('base64') })).status,
      201,
    );
    assert.equal((await ann.get('/v1/templates/exists?templateName=my%20file.docx')).text, 'true');
    assert.equal((await ann.delete('/v1/templates/delete?templateName=my%20file.docx')).status, 204);
    assert.equal((await ann.upload('Überweisung ß.docx', fixture('test_document.docx'))).status, 201);
    assert.equal((await ann.get(`/v1/templates/exists?templateName=${encodeURIComponent('Überweisung ß.docx')}`)).text, 'true');
    assert.equal((await ann.delete(`/v1/templates/delete?templateName=${encodeURIComponent('Überweisung ß.docx')}`)).status, 204);
  });

  it('judges a .tx name by its bytes: DOCX saved under a .tx name is stored and read', async () => {
    assert.equal((await ann.upload('invoice.tx', fixture('test_document.docx'))).status, 201);
    assert.equal((await ann.get('/v1/templates/exists?templateName=invoice.tx')).text, 'true');
    const info = await ann.get('/v1/templates/info?templateName=invoice.tx');
    assert.equal(info.status, 200, info.text);
    assert.equal((await ann.delete('/v1/templates/delete?templateName=invoice.tx')).status, 204);
  });

  it('accepts \\/ escapes and MIME line breaks in the Base64 string', async () => {
    const b64 = fixture('test_document.docx').toString('base64');
    const body = JSON.stringify(b64.replace(/(.{76})/g, '$1\r\n')).replace(/\//g, '\\/');
    const reply = await ann.post('/v1/templates/upload?templateName=escaped.docx', {
      body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(reply.status, 201, reply.text);
    const back = (await ann.get('/v1/templates/download?templateName=escaped.docx')).json() as string;
    assert.ok(Buffer.from(back, 'base64').equals(fixture('test_document.docx')));
  });

  it('deletes with 204, and a missing template is a 400', async () => {
    assert.equal((await ann.upload('gone.docx', fixture('test_document.docx'))).status, 201);
    const del = await ann.delete('/v1/templates/delete?templateName=gone.docx');
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    const again = await ann.delete('/v1/templates/delete?templateName=gone.docx');
    assert.equal(again.status, 400);
    assert.match(message(again), /no template named "gone.docx"/);
    assert.equal((await ann.get('/v1/templates/download?templateName=gone.docx')).status, 400);
  });

  it('refuses bad uploads with a clear 400 and keeps what was stored', async () => {
    const before = (await ann.get('/v1/templates/download?templateName=invoice.docx')).text;
    const cases: [string, Parameters<Client['post']>[1], RegExp][] = [
      ['invoice.docx', { body: '"not base64 !!!"' }, /not valid Base64/],
      ['invoice.docx', { body: '{"template": "UEsDB"' }, /not valid JSON/],
      ['invoice.docx', { json: { template: 'UEsDB' } }, /must be a JSON string.*not a JSON object/],
      ['invoice.docx', { json: 42 }, /must be a JSON string.*not a JSON number/],
      ['invoice.docx', { json: ['a'] }, /not a JSON array/],
      ['invoice.docx', {}, /body is empty/],
      ['invoice.docx', { json: '' }, /empty string/],
      ['invoice.docx', { json: Buffer.from('hello world, plain text').toString('base64') }, /not a document in a format we read/],
      ['invoice.docx', { json: unreadableTx().toString('base64') }, /TX Text Control/],
      ['invoice.docx', { json: fixture('maelzel_machine.pdf').toString('base64') }, /PDF document; templates must be DOCX, DOC, RTF or TX/],
      ['invoice.docx', { json: fixture('test_template.docx').subarray(0, 1500).toString('base64') }, /damaged ZIP/],
      ['invoice.docx', { json: fixture('cash.xlsx').toString('base64') }, /XLSX document/],
      ['../etc/passwd.docx', { json: fixture('test_template.docx').toString('base64') }, /not allowed in a file name/],
      ['dir/a.docx', { json: fixture('test_template.docx').toString('base64') }, /not allowed/],
      ['template.txt', { json: fixture('test_template.docx').toString('base64') }, /must end with \.docx, \.doc, \.rtf, \.tx/],
      ['template.tx', { json: unreadableTx().toString('base64') }, /TX Text Control/],
      ['.docx', { json: fixture('test_template.docx').toString('base64') }, /must not start with a dot/],
      ['x'.repeat(300) + '.docx', { json: fixture('test_template.docx').toString('base64') }, /longer than 255/],
    ];
    for (const [name, extra, expected] of cases) {
      const reply = await ann.post(`/v1/templates/upload?templateName=${encodeURIComponent(name)}`, extra);
      assert.equal(reply.status, 400, `${name} ${JSON.stringify(extra).slice(0, 60)}: ${reply.text}`);
      assert.match(message(reply), expected);
    }
    assert.equal(
      (await ann.post('/v1/templates/upload', { json: fixture('test_template.docx').toString('base64') })).status,
      400,
      'no name',
    );
    assert.equal((await ann.get('/v1/templates/download?templateName=invoice.docx')).text, before, 'nothing lost');
  });

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    const auth = `Basic ${Buffer.from('ann:pw-ann-secret').toString('base64')}`;
    const path = '/v1/templates/upload?templateName=huge.docx';
    const declared = await partialRequest(
      server.url,
      `POST ${path} HTTP/1.1\nHost: x\nAuthorization: ${auth}\nContent-Type: application/json\nContent-Length: ${3 * 1024 * 1024}\n`,
      Buffer.alloc(64 * 1024, 0x41),
    );
    assert.equal(declared.status, 413);
    assert.match((JSON.parse(declared.text) as { message: string }).message, /larger than the limit of 2 MB/);
    const chunk = Buffer.alloc(256 * 1024, 0x41);
    const chunks = Buffer.concat(
      Array.from({ length: 9 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])),
    );
    const streamed = await partialRequest(
      server.url,
      `POST ${path} HTTP/1.1\nHost: x\nAuthorization: ${auth}\nTransfer-Encoding: chunked\n`,
      chunks,
    );
    assert.equal(streamed.status, 413);
    assert.equal((await ann.get('/v1/templates/exists?templateName=huge.docx')).text, 'false');
  });

  it('enforces the template quota with 403, but replacing stays possible', async () => {
    const count = Number((await ann.get('/v1/templates/count')).text);
    for (let i = count; i < 6; i++) assert.equal((await ann.upload(`fill${i}.docx`, fixture('test_document.docx'))).status, 201);
    const over = await ann.upload('one-too-many.docx', fixture('test_document.docx'));
    assert.equal(over.status, 403);
    assert.match(message(over), /template quota/);
    assert.equal((await ann.upload('invoice.docx', fixture('test_template.docx'))).status, 201);
  });

  it('keeps earlier versions of a replaced template: lists them, merges, reads and downloads one, diffs their fields, rolls back (docsmith)', async () => {
    const v1 = docx(p(run('Version one for '), mergefield('name')));
    const v2 = docx(p(run('Version two for '), mergefield('name'), mergefield('total')) + table(row(cell(p(mergefield('price'))))));
    const v3 = docx(
      p(run('Version three, total '), mergefield('total')) +
        table(block('items', row(cell(p(mergefield('price'))), cell(p(mergefield('qty')))))),
    );
    const v = await makeAccount(admin, 'vera');
    const ann = client(server.url, { basic: [v.user, v.password] }); // an account of its own: the others' quotas are spent
    for (const bytes of [v1, v2, v3]) assert.equal((await ann.upload('versioned.docx', bytes)).status, 201);
    type Version = { version: number; current: boolean; modified: string; size: number; sha256: string };
    const versions = (await ann.get('/v1/templates/versions?templateName=versioned.docx')).json() as Version[];
    assert.deepEqual(
      versions.map((v) => [v.version, v.current, v.size]),
      [
        [3, true, v3.length],
        [2, false, v2.length],
        [1, false, v1.length],
      ],
    );
    // The vendor's endpoints see one template, the current version.
    const listed = (await ann.get('/v1/templates/list')).json() as { templateName: string; size: number }[];
    assert.deepEqual(
      listed.filter((t) => t.templateName === 'versioned.docx').map((t) => t.size),
      [v3.length],
    );
    const download = async (query: string) =>
      Buffer.from((await ann.get(`/v1/templates/download?templateName=versioned.docx${query}`)).json() as string, 'base64');
    assert.deepEqual(await download(''), v3);
    assert.deepEqual(await download('&templateVersion=2'), v2);

    const merged = async (query: string) => {
      const reply = await ann.post(`/v1/document/merge?returnFormat=DOCX&templateName=versioned.docx${query}`, {
        json: { mergeData: [{ name: 'Ann', total: '9', items: [{ price: '1', qty: '2' }] }] },
      });
      assert.equal(reply.status, 200, reply.text);
      return partText(Buffer.from((reply.json() as string[])[0]!, 'base64'));
    };
    assert.match(await merged('&templateVersion=1'), /Version one for Ann/);
    assert.match(await merged(''), /Version three, total 9/);
    const info = (await ann.get('/v1/templates/info?templateName=versioned.docx&templateVersion=1')).json() as {
      mergeFields: { name: string }[];
    };
    assert.deepEqual(
      info.mergeFields.map((f) => f.name),
      ['name'],
    );

    const diff = await ann.get('/v1/templates/diff?templateName=versioned.docx&from=1&to=3');
    assert.equal(diff.status, 200, diff.text);
    assert.deepEqual(diff.json(), {
      from: 1,
      to: 3,
      fields: { added: ['items/price', 'items/qty', 'total'], removed: ['name'] },
      blocks: { added: ['items'], removed: [] },
    });
    assert.deepEqual((await ann.get('/v1/templates/diff?templateName=versioned.docx&from=2')).json(), {
      from: 2,
      to: 3,
      fields: { added: ['items/price', 'items/qty'], removed: ['name', 'price'] },
      blocks: { added: ['items'], removed: [] },
    });

    const rolledBack = await ann.post('/v1/templates/rollback?templateName=versioned.docx&version=1');
    assert.equal(rolledBack.status, 200, rolledBack.text);
    assert.deepEqual(rolledBack.json(), { version: 4 });
    assert.deepEqual(await download(''), v1);
    assert.deepEqual(
      ((await ann.get('/v1/templates/versions?templateName=versioned.docx')).json() as Version[]).map((v) => v.version),
      [4, 3, 2, 1],
    );

    for (const [path, pattern] of [
      ['/v1/templates/download?templateName=versioned.docx&templateVersion=9', /has no version 9; it has 4, 3, 2, 1/],
      ['/v1/templates/download?templateName=versioned.docx&templateVersion=first', /templateVersion must be a version number/],
      ['/v1/templates/versions?templateName=nothing.docx', /no template named "nothing.docx"/],
      ['/v1/templates/diff?templateName=versioned.docx&from=0', /from must/],
    ] as const) {
      const refused = await ann.get(path);
      assert.equal(refused.status, 400, path);
      assert.match(message(refused), pattern, path);
    }
    const noName = await ann.post('/v1/document/merge?returnFormat=DOCX&templateVersion=1', {
      json: { template: v1.toString('base64'), mergeData: [{}] },
    });
    assert.equal(noName.status, 400);
    assert.match(message(noName), /templateVersion needs templateName/);
    assert.equal(
      (await bob.get('/v1/templates/versions?templateName=versioned.docx')).status,
      400,
      "another account's versions are not there",
    );
    assert.equal((await bob.get('/v1/templates/download?templateName=versioned.docx&templateVersion=1')).status, 400);

    // Deleting removes every version; the name starts again at 1.
    assert.equal((await ann.delete('/v1/templates/delete?templateName=versioned.docx')).status, 204);
    assert.equal((await ann.upload('versioned.docx', v2)).status, 201);
    assert.deepEqual(
      ((await ann.get('/v1/templates/versions?templateName=versioned.docx')).json() as Version[]).map((v) => v.version),
      [1],
    );
    assert.equal((await ann.delete('/v1/templates/delete?templateName=versioned.docx')).status, 204);
  });

  it("never shows one account another account's templates or keys", async () => {
    assert.equal((await bob.get('/v1/templates/count')).text, '0');
    assert.deepEqual((await bob.get('/v1/templates/list')).json(), []);
    assert.equal((await bob.get('/v1/templates/exists?templateName=invoice.docx')).text, 'false');
    assert.equal((await bob.get('/v1/templates/download?templateName=invoice.docx')).status, 400);
    assert.equal((await bob.delete('/v1/templates/delete?templateName=invoice.docx')).status, 400);
    assert.equal((await bob.upload('invoice.docx', fixture('test_document.docx'))).status, 201, 'same name, own storage');
    const annCopy = Buffer.from((await ann.get('/v1/templates/download?templateName=invoice.docx')).json() as string, 'base64');
    assert.ok(annCopy.equals(fixture('test_template.docx')), "bob's upload did not touch ann's template");

    const annKey = (await ann.put('/v1/account/apikey')).json() as string;
    assert.equal((await bob.delete(`/v1/account/apikey?key=${annKey}`)).status, 400, "bob cannot delete ann's key");
    assert.ok(!JSON.stringify((await bob.get('/v1/account/apikeys')).json()).includes(annKey));
    const viaKey = client(server.url, { key: annKey });
    assert.equal((await viaKey.get('/v1/templates/count')).text, '6', "ann's key reaches ann's account only");
  });
});
