import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { DocsmithApiError, DocsmithClient, DocsmithConnectionError, DocsmithTimeoutError } from '../../packages/client/src/index.js';
import { fixture, ROOT } from '../helpers/server.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { docx, mergefield, p, partText, run } from '../helpers/docx.js';

describe('TypeScript client against a running server', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let client: DocsmithClient;
  before(async () => {
    env = await serverWithAccounts({ sdk: { licence: 'SN-SDK' } }, { DOCSMITH_OFFICE_PROCESSES: '1' });
    client = new DocsmithClient(env.server.url, { username: 'sdk', password: 'pw-sdk-secret' });
  });
  after(() => env.close());

  it('covers the account endpoints, with either kind of credentials', async () => {
    assert.equal((await client.accountSettings()).serialNumber, 'SN-SDK');
    const key = await client.createApiKey();
    const byKey = new DocsmithClient(`${env.server.url}/`, { apiKey: key });
    assert.deepEqual(await byKey.apiKeys(), [{ key, active: true }]);
    await client.deleteApiKey(key);
    await assert.rejects(
      byKey.accountSettings(),
      (e: Error) => e instanceof DocsmithApiError && e.status === 403 && /Not authorized/.test(e.message) && !!e.requestId,
    );
    // docsmith's own: named keys, masked, by number.
    const named = await client.createApiKey('Nightly export', 'merge');
    const [details] = await client.apiKeyDetails();
    assert.equal(details?.name, 'Nightly export');
    assert.equal(details?.scope, 'merge');
    assert.equal(details?.masked, `${named.slice(0, 4)}…${named.slice(-4)}`);
    assert.equal((await client.renameApiKey(details!.id, 'Weekly export')).name, 'Weekly export');
    await client.revokeApiKey(details!.id);
    assert.deepEqual(await client.apiKeyDetails(), []);
    const [revoked, renamed] = await client.auditLog({ limit: 2 });
    assert.deepEqual([revoked?.action, renamed?.action], ['key revoked', 'key renamed']);
  });

  it('covers the template endpoints', async () => {
    const template = docx(p(run('Dear '), mergefield('name')));
    await client.uploadTemplate('letter.docx', template);
    assert.equal(await client.countTemplates(), 1);
    assert.equal(await client.templateExists('letter.docx'), true);
    assert.deepEqual(
      (await client.listTemplates()).map((t) => t.templateName),
      ['letter.docx'],
    );
    assert.ok(Buffer.from(await client.downloadTemplate('letter.docx')).equals(template));
    assert.deepEqual(
      (await client.templateInfo('letter.docx')).mergeFields.map((f) => f.name),
      ['name'],
    );
    assert.equal(await client.templatePageCount('letter.docx'), 1);
    assert.equal((await client.templateThumbnails('letter.docx', { zoomFactor: 20, imageFormat: 'JPG' })).length, 1);
    assert.match(await client.shareToken('letter.docx', 3), /^[\w-]{43}$/);
    const links = await client.shareLinks();
    assert.equal(links.length, 1);
    assert.equal(links[0]!.templateName, 'letter.docx');
    await client.revokeShareLink(links[0]!.id);
    assert.deepEqual(await client.shareLinks(), []);
    const png = await client.templatePageImage('letter.docx', 1, 25);
    assert.equal(Buffer.from(png.subarray(0, 4)).toString('latin1'), '\x89PNG');
    // docsmith's own: versions.
    const second = docx(p(run('Dear '), mergefield('title'), mergefield('name')));
    await client.uploadTemplate('letter.docx', second);
    assert.deepEqual(
      (await client.templateVersions('letter.docx')).map((v) => [v.version, v.current]),
      [
        [2, true],
        [1, false],
      ],
    );
    assert.ok(Buffer.from(await client.downloadTemplate('letter.docx', 1)).equals(template));
    assert.deepEqual((await client.diffTemplateVersions('letter.docx', 1)).fields, { added: ['title'], removed: [] });
    assert.deepEqual(
      (await client.templateInfo('letter.docx', 1)).mergeFields.map((f) => f.name),
      ['name'],
    );
    const [merged] = await client.merge({
      returnFormat: 'TXT',
      templateName: 'letter.docx',
      templateVersion: 1,
      mergeData: [{ name: 'Ann' }],
    });
    assert.match(Buffer.from(merged!).toString('utf8'), /Dear Ann/);
    assert.equal(await client.rollbackTemplate('letter.docx', 1), 3);
    assert.ok(Buffer.from(await client.downloadTemplate('letter.docx')).equals(template));
    await client.deleteTemplate('letter.docx');
    await assert.rejects(client.deleteTemplate('letter.docx'), (e: Error) => e instanceof DocsmithApiError && e.status === 400);
  });

  it('covers the document endpoints', async () => {
    const template = docx(p(run('Dear '), mergefield('name')));
    const merged = await client.merge({ returnFormat: 'DOCX', template, mergeData: [{ name: 'Ann' }, { name: 'Bob' }], append: false });
    // docsmith's own: a signature is asked for (this account has no grant to sign: a clear 403).
    await assert.rejects(
      client.merge({ returnFormat: 'PDF', template, mergeData: [{ name: 'Ann' }], signature: 'visible' }),
      (e: Error) => e instanceof DocsmithApiError && e.status === 403 && /may not sign PDFs/.test(e.message),
    );
    assert.deepEqual(
      merged.map((d) => partText(d)),
      ['Dear Ann', 'Dear Bob'],
    );
    // docsmith's own: a template typed in docxtemplater's syntax, sent and stored.
    const typed = docx(p(run('Dear {name}')));
    const [sent] = await client.merge({
      returnFormat: 'DOCX',
      template: typed,
      templateSyntax: 'docxtemplater',
      mergeData: [{ name: 'Cy' }],
    });
    assert.equal(partText(sent!), 'Dear Cy');
    await client.uploadTemplate('typed.docx', typed, { templateSyntax: 'docxtemplater' });
    assert.equal((await client.templateInfo('typed.docx')).templateSyntax, 'docxtemplater');
    const [stored] = await client.merge({ returnFormat: 'DOCX', templateName: 'typed.docx', mergeData: [{ name: 'Di' }] });
    assert.equal(partText(stored!), 'Dear Di');
    await client.deleteTemplate('typed.docx');
    const replaced = await client.findAndReplace({ returnFormat: 'TXT', template, findAndReplaceData: [['Dear', 'Hello']] });
    assert.match(new TextDecoder().decode(replaced), /Hello/);
    const joined = await client.append({
      returnFormat: 'TXT',
      documents: [
        { document: fixture('test_document.docx') },
        { document: fixture('test_document.docx'), documentDivider: 'NewParagraph' },
      ],
    });
    assert.equal((new TextDecoder().decode(joined).match(/A Test File/g) ?? []).length, 2);
    assert.equal(new TextDecoder().decode(await client.convert(fixture('test_document.docx'), 'TXT')), 'A Test File\r\n');
    // One document comes as the file itself (Accept), not as Base64 in JSON; several stay JSON.
    const seen: string[] = [];
    const watching = new DocsmithClient(env.server.url, { username: 'sdk', password: 'pw-sdk-secret' }, async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response.headers.get('content-type') ?? '');
      return response;
    });
    assert.equal(new TextDecoder().decode(await watching.convert(fixture('test_document.docx'), 'TXT')), 'A Test File\r\n');
    const [letter] = await watching.merge({ template, mergeData: [{ name: 'Ann' }], returnFormat: 'DOCX' });
    assert.match(partText(Buffer.from(letter!)), /Dear Ann/);
    const each = await watching.merge({ template, mergeData: [{ name: 'Ann' }, { name: 'Bob' }], returnFormat: 'TXT', append: false });
    assert.deepEqual(
      each.map((d) => new TextDecoder().decode(d).trim()),
      ['Dear Ann', 'Dear Bob'],
    );
    assert.deepEqual(seen, [
      'text/plain; charset=utf-8',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/json; charset=utf-8',
    ]);
    assert.equal((await client.thumbnails(fixture('maelzel_machine.pdf'), { zoomFactor: 10 })).length, 1);
    const before = (await client.accountSettings()).createdDocuments;
    const pages = await client.preview({ template, mergeData: [{ name: 'Ann' }, { name: 'Bob' }], zoomFactor: 20 });
    assert.equal(pages.length, 2, 'two records appended, one page each');
    assert.deepEqual([...pages[0]!.subarray(1, 4)], [...Buffer.from('PNG')]);
    assert.equal((await client.accountSettings()).createdDocuments, before + 1, 'a preview counts one document');
    await client.preview({ template, mergeData: { name: 'Ann' }, zoomFactor: 20, test: true });
    assert.equal((await client.accountSettings()).createdDocuments, before + 1, 'a test preview is not counted');
    const check = await client.checkData({ template, mergeData: [{ name: 'Ann', age: 3 }, {}] });
    assert.deepEqual(check.missingFields, [{ name: 'name', block: null, records: [1] }]);
    assert.deepEqual(check.unusedData, ['age']);
    assert.ok((await client.fonts()).includes('Arial'));
  });

  it('runs background jobs and follows their progress', async () => {
    const template = docx(p(run('Dear '), mergefield('name')));
    const job = await client.mergeJob({ returnFormat: 'PDF', template, mergeData: [{ name: 'Ann' }, { name: 'Bob' }], append: false });
    assert.equal(job.kind, 'merge');
    const states: string[] = [];
    const done = await client.waitForJob(job.id, { intervalMs: 50, onProgress: (j) => states.push(j.state) });
    assert.equal(done.state, 'done');
    assert.equal(states.at(-1), 'done');
    const pdfs = await client.jobResult(job.id);
    assert.equal(pdfs.length, 2);
    assert.equal(Buffer.from(pdfs[1]!.subarray(0, 5)).toString('latin1'), '%PDF-');
    assert.ok((await client.jobs()).some((j) => j.id === job.id));
    const converted = await client.waitForJob((await client.convertJob(template, 'TXT')).id, { intervalMs: 50 });
    const first = await client.jobsPage({ limit: 1 });
    assert.deepEqual(
      first.jobs.map((j) => j.id),
      [converted.id],
      'newest first',
    );
    const second = await client.jobsPage({ limit: 1, after: first.next! });
    assert.deepEqual(
      second.jobs.map((j) => j.id),
      [job.id],
    );
    assert.match(Buffer.from((await client.jobResult(converted.id))[0]!).toString('utf8'), /Dear/);
    const failing = await client.appendJob({ returnFormat: 'DOCX', documents: [{ document: new TextEncoder().encode('not a document') }] });
    await assert.rejects(
      client.waitForJob(failing.id, { intervalMs: 50 }),
      (e: Error) => e instanceof DocsmithApiError && e.status === 400,
    );
    await client.deleteJob(job.id);
    await assert.rejects(client.job(job.id), (e: Error) => e instanceof DocsmithApiError && e.status === 404);
    assert.equal(typeof (await client.callbackSecret()), 'string');
  });

  it('covers proofing and review', async () => {
    assert.ok((await client.availableDictionaries()).includes('en_US.dic'));
    assert.deepEqual(
      (await client.checkSpelling('Thiss is fine', 'en_US.dic')).map((w) => w.text),
      ['Thiss'],
    );
    assert.equal((await client.suggestions('Thiss', 'en_US.dic', 2))[0], 'This');
    const changes = await client.trackedChanges(fixture('tracked_changes.docx'));
    assert.equal(changes.length, 2);
    const result = await client.removeTrackedChange(fixture('tracked_changes.docx'), 1, true);
    assert.equal(result.removed, true);
    assert.equal((await client.trackedChanges(result.document)).length, 1);
  });

  it('reports errors with the server message', async () => {
    await assert.rejects(
      client.merge({ returnFormat: 'PDF', mergeData: [{}] }),
      (e: Error) => e instanceof DocsmithApiError && e.status === 400 && /No template/.test(e.message),
    );
  });

  it('gives up on a call past its time limit, and sends a call refused with 503 and Retry-After again', async () => {
    // In front of the real server: a proxy that refuses the first `refuse` requests with 503 (the
    // server busy), or never answers one whose path says so (a hung connection).
    let refuse = 0;
    let seen = 0;
    const target = new URL(env.server.url);
    const proxy = http.createServer((req, res) => {
      seen++;
      if (req.url?.includes('templates/count')) return; // never answered
      if (refuse > 0) {
        refuse--;
        res.writeHead(503, { 'retry-after': String(req.headers['x-wait'] ?? '0'), 'content-type': 'application/json' });
        res.end('{"message":"busy"}');
        return;
      }
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const through = new DocsmithClient(url, { username: 'sdk', password: 'pw-sdk-secret' });
      refuse = 2;
      seen = 0;
      assert.equal((await through.accountSettings()).serialNumber, 'SN-SDK', 'answered on the third try');
      assert.equal(seen, 3);
      refuse = 1;
      await assert.rejects(through.with({ retries: 0 }).accountSettings(), (e: Error) => e instanceof DocsmithApiError && e.status === 503);
      // A wait longer than the client takes is not waited for.
      refuse = 1;
      const impatient = new DocsmithClient(url, { username: 'sdk', password: 'pw-sdk-secret' }, (input, init) =>
        fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-wait': '3600' } }),
      );
      await assert.rejects(impatient.accountSettings(), (e: Error) => e instanceof DocsmithApiError && e.status === 503);
      // No answer at all: the call's time limit ends it.
      await assert.rejects(through.with({ timeoutMs: 200 }).countTemplates(), (e: Error) => e instanceof DocsmithTimeoutError);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('says which URL it could not reach when no server answers, with or without a time limit', async () => {
    // A port that was just free: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const nowhere = new DocsmithClient(`http://127.0.0.1:${port}`, { apiKey: 'k'.repeat(32) });
    for (const client of [nowhere, nowhere.with({ timeoutMs: 60_000 })]) {
      await assert.rejects(
        client.countTemplates(),
        (e: Error) =>
          e instanceof DocsmithConnectionError &&
          e.url === `http://127.0.0.1:${port}/v1/templates/count` &&
          /could not be reached at http:\/\/127\.0\.0\.1:\d+\/v1\/templates\/count \(ECONNREFUSED\)/.test(e.message),
      );
    }
  });
});

describe('the client package', () => {
  it('is ready to publish: its README, licence, built code and types, nothing else; ESM with types and an engine', () => {
    const dir = path.join(ROOT, 'packages', 'client');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path).sort();
    assert.deepEqual(files, [
      'LICENSE',
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/sample.d.ts',
      'dist/sample.js',
      'dist/wire.d.ts',
      'dist/wire.js',
      'package.json',
    ]);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.type, 'module');
    assert.deepEqual(manifest.exports, { '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    assert.equal(manifest.license, 'MIT');
    assert.ok((manifest.engines as { node: string }).node);
    assert.equal(manifest.dependencies, undefined, 'no dependencies');
    // What it ships reaches nothing outside itself.
    for (const file of files.filter((f) => f.endsWith('.js') || f.endsWith('.d.ts')))
      for (const [, target] of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/from\s+'([^']+)'/g))
        assert.match(target!, /^\.\/[\w-]+\.js$/, `${file} imports ${target}`);
  });
});
