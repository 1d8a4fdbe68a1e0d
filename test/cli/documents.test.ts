import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, fixture, freePort, tempDir } from '../helpers/server.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { docx, mergefield, p, partText, run } from '../helpers/docx.js';
import { pdfFacts } from '../helpers/office.js';
import { cli } from '../helpers/cli.js';

describe('docsmith CLI: document commands', () => {
  const dir = tempDir();
  const template = path.join(dir, 'letter.docx');
  const data = path.join(dir, 'data.json');
  before(() => {
    fs.writeFileSync(template, docx(p(run('Dear '), mergefield('name'))));
    fs.writeFileSync(data, JSON.stringify([{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cy' }]));
  });

  it('merges in-process to DOCX without an office, and to PDF with one', () => {
    const docxRun = cli(['merge', '--template', template, '--data', data, '--format', 'docx', '--separate', '-o', 'out.docx'], dir);
    assert.equal(docxRun.code, 0, docxRun.err);
    assert.deepEqual(
      ['out-1.docx', 'out-2.docx', 'out-3.docx'].map((f) => partText(fs.readFileSync(path.join(dir, f)))),
      ['Dear Ann', 'Dear Bob', 'Dear Cy'],
    );
    const pdfRun = cli(['merge', '--template', template, '--data', data, '-o', 'all.pdf'], dir);
    assert.equal(pdfRun.code, 0, pdfRun.err);
    assert.equal(pdfRun.err, '', 'nothing but the result on standard error (no library warnings)');
    assert.equal(pdfFacts(fs.readFileSync(path.join(dir, 'all.pdf'))).pages, 3);
  });

  it('merges and describes a template typed in docxtemplater’s syntax with --syntax, and refuses an unknown one', () => {
    fs.writeFileSync(path.join(dir, 'typed.docx'), docx(p(run('Dear {name}{#vip}, our VIP{/vip}'))));
    const merged = cli(
      ['merge', '--template', 'typed.docx', '--data', data, '--format', 'docx', '--syntax', 'docxtemplater', '-o', 'typed-out.docx'],
      dir,
    );
    assert.equal(merged.code, 0, merged.err);
    assert.equal(partText(fs.readFileSync(path.join(dir, 'typed-out.docx'))), 'Dear Ann\nDear Bob\nDear Cy');
    const info = cli(['info', '--template', 'typed.docx', '--syntax', 'docxtemplater'], dir);
    assert.equal(info.code, 0, info.err);
    const described = JSON.parse(info.out) as { templateSyntax: string; mergeFields: { name: string }[]; mergeBlocks: { name: string }[] };
    assert.equal(described.templateSyntax, 'docxtemplater');
    assert.deepEqual(
      described.mergeFields.map((f) => f.name),
      ['name'],
    );
    assert.deepEqual(
      described.mergeBlocks.map((b) => b.name),
      ['vip'],
    );
    const unknown = cli(['merge', '--template', 'typed.docx', '--data', data, '--syntax', 'mustache'], dir);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /--syntax must be one of word, docxtemplater/);
  });

  it('converts a file and a folder, appends, renders thumbnails and describes a template', () => {
    const folder = path.join(dir, 'in');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'a.docx'), fixture('test_document.docx'));
    fs.writeFileSync(path.join(folder, 'b.doc'), fixture('test.doc'));
    const bulk = cli(['convert', '--input', folder, '--format', 'txt', '--out-dir', 'out'], dir);
    assert.equal(bulk.code, 0, bulk.err);
    assert.equal(fs.readFileSync(path.join(dir, 'out', 'a.txt'), 'latin1'), 'A Test File\r\n');
    assert.ok(fs.existsSync(path.join(dir, 'out', 'b.txt')));
    // Two inputs with one name: each keeps its extension rather than one overwriting the other.
    const twins = path.join(dir, 'twins');
    fs.mkdirSync(twins);
    fs.writeFileSync(path.join(twins, 'report.docx'), fixture('test_document.docx'));
    fs.writeFileSync(path.join(twins, 'report.doc'), fixture('test.doc'));
    const both = cli(['convert', '--input', twins, '--format', 'txt', '--out-dir', 'twins-out'], dir);
    assert.equal(both.code, 0, both.err);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'twins-out')).sort(), ['report.doc.txt', 'report.docx.txt']);
    const appended = cli(
      [
        'append',
        path.join(folder, 'a.docx'),
        path.join(folder, 'b.doc'),
        '--divider',
        'NewParagraph',
        '--format',
        'txt',
        '-o',
        'joined.txt',
      ],
      dir,
    );
    assert.equal(appended.code, 0, appended.err);
    assert.match(fs.readFileSync(path.join(dir, 'joined.txt'), 'utf8'), /A Test File[\s\S]*Test/);
    const thumbs = cli(['thumbnails', '--input', path.join(folder, 'a.docx'), '--zoom', '20', '--out-dir', 'thumbs'], dir);
    assert.equal(thumbs.code, 0, thumbs.err);
    assert.ok(fs.existsSync(path.join(dir, 'thumbs', 'a-page1.png')));
    const info = cli(['info', '--template', template], dir);
    assert.equal(info.code, 0, info.err);
    assert.deepEqual(
      (JSON.parse(info.out) as { mergeFields: { name: string }[] }).mergeFields.map((f) => f.name),
      ['name'],
    );
  });

  it('says its version', () => {
    const version = cli(['--version'], dir);
    assert.equal(version.code, 0);
    assert.equal(
      version.out.trim(),
      `docsmith ${(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}`,
    );
  });

  it('explains bad input with a message and a non-zero exit', async () => {
    const closedPort = await freePort();
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"name": ');
    fs.writeFileSync(path.join(dir, 'numbers.json'), '[{"name": "Ann"}, 3]');
    fs.writeFileSync(path.join(dir, 'flag.json'), '{"removeEmptyFields": "maybe"}');
    const cases: [string[], number, RegExp][] = [
      [['merge', '--template', 'missing.docx', '--data', data], 2, /cannot read --template "missing.docx": no such file/],
      [['merge', '--template', template, '--data', 'broken.json'], 2, /is not valid JSON/],
      // The files are checked by the schemas the HTTP API checks bodies with, with the same messages.
      [
        ['merge', '--template', template, '--data', 'numbers.json'],
        1,
        /mergeData\[1\] must be a record \(a JSON object\), not a JSON number/,
      ],
      [
        ['merge', '--template', template, '--data', data, '--settings', 'flag.json'],
        1,
        /mergeSettings\.removeEmptyFields must be true or false/,
      ],
      [['merge', '--template', data, '--data', data], 1, /not a document in a format we read/],
      [['convert'], 2, /--input/],
      [['merge', '--template', template, '--data', data, '--url', 'http://127.0.0.1:9'], 2, /--url needs --api-key/],
      [['merge', '--template', template, '--data', data, '--format', 'xyz'], 2, /--format must be one of pdf, pdfa, docx/],
      [['thumbnails', '--input', template, '--zoom', '9999'], 2, /--zoom must be a whole number from 1 to 400/],
      [['thumbnails', '--input', template, '--image-format', 'tiff'], 2, /--image-format must be one of png/],
      [['merge', '--template', template, '--data', data, '--async'], 2, /--async runs the work as a job on a server: add --url/],
      [
        ['append', template, '--divider', 'Sideways'],
        2,
        /--divider must be None, NewParagraph or NewSection, not "Sideways"\n\n {2}docsmith append /,
      ],
      // A server that cannot be reached is named, with the reason.
      [
        ['info', '--template', template, '--url', `http://127.0.0.1:${closedPort}`, '--api-key', 'k'],
        1,
        /cannot reach the server at http:\/\/127\.0\.0\.1:\d+: nothing listens there \(connection refused\)/,
      ],
    ];
    for (const [args, code, expected] of cases) {
      const result = cli(args, dir);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.err}`);
      assert.match(result.err, expected);
    }
  });
});

describe('docsmith CLI against a server (--url)', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  before(async () => {
    env = await serverWithAccounts({ remote: {} }, { DOCSMITH_OFFICE_PROCESSES: '1' });
  });
  after(() => env.close());

  it('merges through the API and counts the document there', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 't.docx'), docx(p(run('Hi '), mergefield('name'))));
    fs.writeFileSync(path.join(dir, 'd.json'), JSON.stringify({ name: 'Remote' }));
    const result = cli(
      [
        'merge',
        '--template',
        't.docx',
        '--data',
        'd.json',
        '--format',
        'txt',
        '-o',
        'r.txt',
        '--url',
        env.server.url,
        '--user',
        'remote',
        '--password',
        'pw-remote-secret',
      ],
      dir,
    );
    assert.equal(result.code, 0, result.err);
    assert.match(fs.readFileSync(path.join(dir, 'r.txt'), 'utf8'), /Hi Remote/);
    const settings = (await env.clients.remote!.get('/v1/account/settings')).json() as { createdDocuments: number };
    assert.equal(settings.createdDocuments, 1);
    const denied = cli(['convert', '--input', 't.docx', '--url', env.server.url, '--user', 'remote', '--password', 'wrong-password'], dir);
    assert.equal(denied.code, 1);
    assert.match(denied.err, /Not authorized/);
  });

  it('runs merges, conversions and appends as background jobs with --async, printing their progress', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 't.docx'), docx(p(run('Hi '), mergefield('name'))));
    fs.writeFileSync(path.join(dir, 'd.json'), JSON.stringify([{ name: 'Ann' }, { name: 'Bob' }]));
    const login = ['--url', env.server.url, '--user', 'remote', '--password', 'pw-remote-secret', '--async'];
    const merged = cli(
      ['merge', '--template', 't.docx', '--data', 'd.json', '--format', 'pdf', '--separate', '-o', 'r.pdf', ...login],
      dir,
    );
    assert.equal(merged.code, 0, merged.err);
    assert.match(merged.err, /job [0-9a-f-]{36}: done/);
    assert.match(pdfFacts(fs.readFileSync(path.join(dir, 'r-2.pdf'))).text, /Hi Bob/);
    const converted = cli(['convert', '--input', 't.docx', '--format', 'txt', '-o', 't.txt', ...login], dir);
    assert.equal(converted.code, 0, converted.err);
    assert.match(fs.readFileSync(path.join(dir, 't.txt'), 'utf8'), /Hi/);
    const appended = cli(['append', 't.docx', 't.docx', '--format', 'docx', '-o', 'both.docx', ...login], dir);
    assert.equal(appended.code, 0, appended.err);
    assert.equal((partText(fs.readFileSync(path.join(dir, 'both.docx'))).match(/Hi/g) ?? []).length, 2);
  });
});
