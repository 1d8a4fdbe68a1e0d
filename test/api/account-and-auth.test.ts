import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { until } from '../helpers/wait.js';
import { ROOT, startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { client, request, type Client } from '../helpers/http.js';
import { docx, mergefield, p, run } from '../helpers/docx.js';

const USER = 'alice';
const PASSWORD = 'alice-password-1';

describe('accounts and authentication over HTTP', () => {
  let server: RunningServer;
  let basic: Client;
  before(async () => {
    server = await startServer({ DOCSMITH_DATA_DIR: tempDir(), DOCSMITH_BOOTSTRAP_USER: USER, DOCSMITH_BOOTSTRAP_PASSWORD: PASSWORD });
    basic = client(server.url, { basic: [USER, PASSWORD] });
  });
  after(() => server.stop());

  it('answers health and readiness without credentials', async () => {
    assert.equal((await request(server.url, 'GET', '/healthz')).status, 200);
    const ready = await request(server.url, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    const { schema, ...rest } = ready.json() as { schema: { database: number; instance: number } };
    assert.deepEqual(rest, { status: 'ready', storage: 'sqlite', officeWorkers: 0 });
    assert.equal(schema.database, schema.instance, 'the schema this instance migrated to');
  });

  it('returns the account settings in the exact wire shape', async () => {
    const reply = await basic.get('/v1/account/settings');
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^application\/json/);
    const settings = reply.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(settings), [
      'serialNumber',
      'createdDocuments',
      'uploadedTemplates',
      'maxDocuments',
      'maxTemplates',
      'validUntil',
      'proofingTransactions',
      'maxProofingTransactions',
    ]);
    assert.equal(settings.serialNumber, 'TRIAL');
    assert.equal(settings.createdDocuments, 0);
    assert.match(String(settings.validUntil), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    assert.ok(!reply.text.includes(' ') && !reply.text.endsWith('\n'), 'compact JSON');
  });

  it('creates, lists and deletes API keys; at most 10', async () => {
    const created = await basic.put('/v1/account/apikey');
    assert.equal(created.status, 201);
    const key = created.json() as string;
    assert.match(key, /^[A-Za-z0-9]{20,45}$/);
    assert.equal(created.text, `"${key}"`);

    for (const scheme of ['ReportingCloud-APIKey', 'Service-APIKey', 'reportingcloud-apikey']) {
      const viaKey = await request(server.url, 'GET', '/v1/account/apikeys', { auth: { key, scheme } });
      assert.equal(viaKey.status, 200, scheme);
      assert.deepEqual(viaKey.json(), [{ key, active: true }]);
    }

    const more: string[] = [];
    for (let i = 0; i < 9; i++) more.push((await basic.put('/v1/account/apikey')).json() as string);
    const eleventh = await basic.put('/v1/account/apikey');
    assert.equal(eleventh.status, 400);
    assert.match((eleventh.json() as { message: string }).message, /10 API keys/);

    const removed = await basic.delete(`/v1/account/apikey?key=${more[0]}`);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    assert.equal(
      (await request(server.url, 'GET', '/v1/account/settings', { auth: { key: more[0]! } })).status,
      403,
      'a deleted key no longer works',
    );
    assert.equal((await basic.delete(`/v1/account/apikey?key=${more[0]}`)).status, 400, 'unknown key');
    assert.equal((await basic.delete('/v1/account/apikey')).status, 400, 'missing key');
    for (const k of more.slice(1)) assert.equal((await basic.delete(`/v1/account/apikey?key=${k}`)).status, 200);
    assert.equal(((await basic.get('/v1/account/apikeys')).json() as unknown[]).length, 1);
  });

  it('names keys, shows them masked with when they were made and last used, and revokes them by number (docsmith)', async () => {
    const made = await basic.put(`/v1/account/apikey?name=${encodeURIComponent(' Invoices (production) ')}`);
    assert.equal(made.status, 201);
    const key = made.json() as string;
    assert.deepEqual(
      ((await basic.get('/v1/account/apikeys')).json() as { key: string }[]).at(-1),
      { key, active: true },
      'the vendor list is unchanged',
    );
    type Details = { id: number; name: string; masked: string; active: boolean; createdAt: string; lastUsedAt: string | null };
    const details = async () => (await basic.get('/v1/account/keys')).json() as Details[];
    const mine = (await details()).find((k) => k.masked === `${key.slice(0, 4)}…${key.slice(-4)}`);
    assert.ok(mine, JSON.stringify(await details()));
    assert.equal(mine.name, 'Invoices (production)');
    assert.ok(!JSON.stringify(await details()).includes(key), 'the full key is shown only at creation');
    assert.ok(Math.abs(Date.parse(mine.createdAt) - Date.now()) < 3_600_000);
    assert.equal(mine.lastUsedAt, null, 'not used yet');
    assert.equal((await request(server.url, 'GET', '/v1/templates/count', { auth: { key } })).status, 200);
    const used = (await details()).find((k) => k.id === mine.id)!;
    assert.ok(used.lastUsedAt && Date.parse(used.lastUsedAt) >= Date.parse(mine.createdAt), 'a use is recorded');

    const renamed = await basic.patch(`/v1/account/keys/${mine.id}`, { json: { name: 'CI' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal((renamed.json() as Details).name, 'CI');
    for (const [body, pattern] of [
      [{ name: 'x'.repeat(101) }, /at most 100 characters/],
      [{ name: 'two\nlines' }, /control characters/],
      [{}, /name/],
    ] as const) {
      const refused = await basic.patch(`/v1/account/keys/${mine.id}`, { json: body });
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.match((refused.json() as { message: string }).message, pattern);
    }
    assert.equal((await basic.put(`/v1/account/apikey?name=${'y'.repeat(101)}`)).status, 400);
    assert.equal((await basic.patch('/v1/account/keys/999999', { json: { name: 'x' } })).status, 404);
    assert.equal((await basic.delete('/v1/account/keys/999999')).status, 404);
    assert.equal((await basic.delete(`/v1/account/keys/${mine.id}`)).status, 204);
    assert.equal((await request(server.url, 'GET', '/v1/templates/count', { auth: { key } })).status, 403, 'revoked');
    assert.equal((await basic.delete(`/v1/account/keys/${mine.id}`)).status, 404);
  });

  it('limits a key to its scope: merge-only and read-only keys, each refused the rest with a 403 naming the scope needed (docsmith)', async () => {
    const made = async (scope: string) => {
      const reply = await basic.put(`/v1/account/apikey?name=${scope}-key&scope=${scope}`);
      assert.equal(reply.status, 201, reply.text);
      return reply.json() as string;
    };
    const mergeKey = await made('merge');
    const readKey = await made('read');
    const asKey = (key: string, method: string, path: string, json?: unknown) =>
      request(server.url, method, path, { auth: { key }, ...(json === undefined ? {} : { json }) });
    const template = docx(p(run('Dear '), mergefield('name'))).toString('base64');
    assert.equal((await basic.post('/v1/templates/upload?templateName=scoped.docx', { json: template })).status, 201);

    // merge: document work with the stored template; no template changes, no keys.
    const merged = await asKey(mergeKey, 'POST', '/v1/document/merge?returnFormat=DOCX&templateName=scoped.docx', {
      mergeData: [{ name: 'Ann' }],
    });
    assert.equal(merged.status, 200, merged.text);
    assert.equal((await asKey(mergeKey, 'GET', '/v1/account/settings')).status, 200);
    for (const [method, path, json] of [
      ['POST', '/v1/templates/upload?templateName=other.docx', template],
      ['DELETE', '/v1/templates/delete?templateName=scoped.docx', undefined],
      ['GET', '/v1/templates/list', undefined],
      ['PUT', '/v1/account/apikey', undefined],
      ['GET', '/v1/account/apikeys', undefined],
    ] as const) {
      const refused = await asKey(mergeKey, method, path, json);
      assert.equal(refused.status, 403, `${method} ${path}`);
      assert.match((refused.json() as { message: string }).message, /This API key's scope is "merge"/);
    }
    // read: stored templates, nothing else.
    assert.equal((await asKey(readKey, 'GET', '/v1/templates/list')).status, 200);
    assert.equal((await asKey(readKey, 'GET', '/v1/templates/download?templateName=scoped.docx')).status, 200);
    const noMerge = await asKey(readKey, 'POST', '/v1/document/merge?returnFormat=TXT&templateName=scoped.docx', { mergeData: [{}] });
    assert.equal(noMerge.status, 403);
    assert.match((noMerge.json() as { message: string }).message, /document work needs a key with scope full or merge/);
    assert.equal((await asKey(readKey, 'DELETE', '/v1/templates/delete?templateName=scoped.docx')).status, 403);
    assert.equal((await basic.get('/v1/templates/exists?templateName=scoped.docx')).text, 'true', 'nothing was deleted');

    const listed = (await basic.get('/v1/account/keys')).json() as { name: string; scope: string }[];
    assert.deepEqual(
      listed.filter((k) => k.name.endsWith('-key')).map((k) => [k.name, k.scope]),
      [
        ['merge-key', 'merge'],
        ['read-key', 'read'],
      ],
    );
    assert.equal((await basic.put('/v1/account/apikey?scope=admin')).status, 400, 'an unknown scope');
    for (const key of [mergeKey, readKey]) assert.equal((await basic.delete(`/v1/account/apikey?key=${key}`)).status, 200);
    assert.equal((await basic.delete('/v1/templates/delete?templateName=scoped.docx')).status, 204);
  });

  it('keeps an audit log of sign-in failures, keys and templates, with who and from where, newest first (docsmith)', async () => {
    const made = await basic.put('/v1/account/apikey?name=Auditor&scope=full');
    const key = made.json() as string;
    const viaKey = client(server.url, { key });
    const template = docx(p(run('Hello '), mergefield('name'))).toString('base64');
    assert.equal((await viaKey.post('/v1/templates/upload?templateName=audited.docx', { json: template })).status, 201);
    assert.equal((await viaKey.post('/v1/templates/upload?templateName=audited.docx', { json: template })).status, 201);
    assert.equal((await viaKey.delete('/v1/templates/delete?templateName=audited.docx')).status, 204);
    assert.equal((await request(server.url, 'GET', '/v1/templates/count', { auth: { basic: [USER, 'not-the-password'] } })).status, 403);
    type Event = { id: number; at: string; action: string; actor: string; address: string | null; detail: string };
    const events = (await basic.get('/v1/account/audit?limit=5')).json() as Event[];
    const keyId = ((await basic.get('/v1/account/keys')).json() as { id: number; name: string }[]).find((k) => k.name === 'Auditor')!.id;
    assert.deepEqual(
      events.map((e) => [e.action, e.actor, e.detail]),
      [
        ['sign-in failed', 'password', 'wrong password'],
        ['template deleted', `key ${keyId} "Auditor"`, 'audited.docx'],
        ['template replaced', `key ${keyId} "Auditor"`, 'audited.docx'],
        ['template uploaded', `key ${keyId} "Auditor"`, 'audited.docx'],
        ['key created', 'password', `${key.slice(0, 4)}…${key.slice(-4)} "Auditor", scope full`],
      ],
    );
    for (const e of events) {
      assert.match(e.address ?? '', /127\.0\.0\.1/);
      assert.ok(Math.abs(Date.parse(e.at) - Date.now()) < 3_600_000);
    }
    assert.ok(!JSON.stringify(events).includes(key), 'never the key itself');
    const older = (await basic.get(`/v1/account/audit?limit=2&before=${events[1]!.id}`)).json() as Event[];
    assert.deepEqual(
      older.map((e) => e.id),
      [events[2]!.id, events[3]!.id],
      'paged by id',
    );
    const mergeKey = (await basic.put('/v1/account/apikey?scope=merge')).json() as string;
    assert.equal((await request(server.url, 'GET', '/v1/account/audit', { auth: { key: mergeKey } })).status, 403, 'a full key reads it');
    for (const k of [key, mergeKey]) assert.equal((await basic.delete(`/v1/account/apikey?key=${k}`)).status, 200);
    assert.equal(((await basic.get('/v1/account/audit?limit=1')).json() as Event[])[0]!.action, 'key revoked');
  });

  it('refuses every wrong credential with 403 and a message', async () => {
    const cases = [
      null,
      { basic: [USER, 'wrong-password'] as [string, string] },
      { basic: ['nobody', PASSWORD] as [string, string] },
      { key: 'A'.repeat(40) },
      { key: 'x'.repeat(5000) },
      { header: 'Bearer abc' },
      { header: 'Basic' },
      { header: 'Basic !!!notbase64' },
      { header: `Basic ${Buffer.from('no-colon').toString('base64')}` },
    ];
    for (const auth of cases) {
      const reply = await request(server.url, 'GET', '/v1/templates/count', { auth });
      assert.equal(reply.status, 403, JSON.stringify(auth));
      assert.match((reply.json() as { message: string }).message, /Not authorized/);
      assert.ok(reply.headers['x-request-id']);
    }
  });

  it('keeps the operator API off unless DOCSMITH_OPERATOR_TOKEN is set, whatever the credentials (docsmith)', async () => {
    for (const auth of [null, { basic: [USER, PASSWORD] as [string, string] }, { header: 'Bearer anything-at-all' }]) {
      const reply = await request(server.url, 'PUT', `/v1/operator/accounts/${USER}/signing`, { auth, json: { granted: true } });
      assert.equal(reply.status, 404, JSON.stringify(auth));
      assert.match(
        (reply.json() as { message: string }).message,
        /operator API is off; the operator turns it on with DOCSMITH_OPERATOR_TOKEN/,
      );
    }
  });

  it('follows the wire quirks clients rely on', async () => {
    assert.equal((await basic.get('/v1/templates/count/')).text, '0', 'trailing slash');
    assert.equal((await basic.get('/v1/templates/count', { body: '""' })).status, 200, '"" body on GET');
    const put = await basic.put('/v1/account/apikey', { body: '""', headers: { 'content-type': 'text/plain' } });
    assert.equal(put.status, 201, '"" body and odd content type on PUT');
    assert.equal((await basic.delete(`/v1/account/apikey?key=${put.json()}`, { body: '""' })).status, 200, '"" body on DELETE');
    const chunked = await basic.put('/v1/account/apikey', { body: '', chunked: true });
    assert.equal(chunked.status, 201, 'chunked empty body');
    await basic.delete(`/v1/account/apikey?key=${chunked.json()}`);
    assert.equal((await basic.get('/v1/templates/exists?templateName=')).status, 400, 'empty value means absent');
    assert.equal((await basic.get('/v1/templates/exists?templateName=a+b.docx')).text, 'false');
  });

  it('answers unknown routes with 404 JSON, carries a request id, and echoes a sane one', async () => {
    const reply = await basic.get('/v1/no/such/thing');
    assert.equal(reply.status, 404);
    assert.match((reply.json() as { message: string }).message, /no endpoint/);
    const echoed = await basic.get('/v1/templates/count', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(echoed.headers['x-request-id'], 'abc-123');
    const replaced = await basic.get('/v1/templates/count', { headers: { 'x-request-id': 'bad id\twith junk' } });
    assert.notEqual(replaced.headers['x-request-id'], 'bad id\twith junk');
  });

  it('serves Prometheus metrics, its version, and joins W3C trace context to the logs', async () => {
    await basic.get('/v1/templates/count');
    await basic.get('/v1/templates/count', { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    const traced = await basic.get('/v1/account/settings', {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    assert.equal(traced.headers.traceparent, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    // Every line of the traced request carries the trace id, Fastify's own first and last lines too.
    const lines = await until("the traced request's lines in the log", () => {
      const found = fs
        .readFileSync(server.logPath, 'utf8')
        .split('\n')
        .filter((l) => l.includes(`"reqId":"${traced.headers['x-request-id']}"`));
      return found.some((l) => l.includes('request completed')) ? found : undefined;
    });
    assert.ok(lines.some((l) => l.includes('incoming request')));
    for (const line of lines) assert.match(line, /"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"/, line);
    const metrics = await request(server.url, 'GET', '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers['content-type']), /text\/plain/);
    assert.match(metrics.text, /docsmith_http_requests_total\{method="GET",route="\/v1\/templates\/count",status="200"\} [2-9]/);
    assert.match(metrics.text, /docsmith_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/templates\/count"\}/);
    assert.match(metrics.text, /docsmith_office_processes\{state="configured"\} 0/);
    assert.match(metrics.text, /docsmith_build_info\{version="\d+\.\d+\.\d+[^"]*",node="\d+\.\d+\.\d+",storage="(?:sqlite|postgres)"\} 1/);
    assert.match(metrics.text, /docsmith_process_cpu_seconds_total [\d.]+\n[\s\S]*docsmith_nodejs_eventloop_lag/);
    const version = (await request(server.url, 'GET', '/version')).json() as { version: string; node?: string };
    assert.match(version.version, /^\d+\.\d+\.\d+/);
    assert.equal(version.node, undefined, 'the runtime version is not told to anonymous callers');
    assert.match(metrics.text, /docsmith_nodejs_version_info\{version="v\d+/, '/metrics (internal) has it');
    const tryIt = await request(server.url, 'GET', '/docs/try/');
    assert.equal(tryIt.status, 200);
    assert.match(String(tryIt.headers['content-security-policy']), /frame-ancestors 'none'/, 'the API explorer cannot be framed');
    assert.doesNotMatch(String(tryIt.headers['content-security-policy']), /upgrade-insecure-requests|https:/);
    const { traceOf } = await import('../../src/app.js');
    assert.deepEqual(traceOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
    });
    assert.equal(traceOf('00-00000000000000000000000000000000-00f067aa0ba902b7-01'), undefined);
    assert.equal(traceOf('garbage'), undefined);
  });

  it('publishes an OpenAPI description and a readable reference', async () => {
    const doc = (await request(server.url, 'GET', '/openapi.json')).json() as { openapi: string; paths: Record<string, unknown> };
    assert.match(doc.openapi, /^3\./);
    for (const path of [
      '/v1/account/settings',
      '/v1/account/apikeys',
      '/v1/account/apikey',
      '/v1/templates/list',
      '/v1/templates/count',
      '/v1/templates/exists',
      '/v1/templates/download',
      '/v1/templates/upload',
      '/v1/templates/delete',
    ]) {
      assert.ok(doc.paths[path], path);
    }
    assert.ok(!Object.keys(doc.paths).some((p) => p.includes('_test')), 'test routes are hidden');
    // Bodies are described by the very schemas that validate them, with an example.
    const { mergeBodySchema } = await import('../../src/api/requests/schemas.js');
    const merge = (
      doc.paths['/v1/document/merge'] as { post: { requestBody: { content: Record<string, { schema: unknown; example: unknown }> } } }
    ).post;
    const { examples, ...validated } = mergeBodySchema;
    assert.deepEqual(merge.requestBody.content['application/json']!.schema, JSON.parse(JSON.stringify(validated)));
    assert.deepEqual(merge.requestBody.content['application/json']!.example, examples[0]);
    // Stable, unique operation ids for generated clients.
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    assert.ok(
      ids.every((id) => typeof id === 'string' && /^[a-z]+[A-Za-z]+$/.test(id)),
      ids.join(', '),
    );
    assert.equal(new Set(ids).size, ids.length, 'unique');
    assert.ok(
      ids.includes('postDocumentMerge') &&
        ids.includes('getTemplatesList') &&
        ids.includes('deleteDocumentShare') &&
        ids.includes('getJobsByIdResult'),
    );
    const page = await request(server.url, 'GET', '/docs');
    assert.equal(page.status, 200);
    assert.match(page.text, /\/v1\/templates\/upload/);
    assert.match(page.text, /<td><code>mergeData<\/code><\/td><td>yes<\/td>/);
    assert.match(page.text, /Example body:/);
    assert.match(page.text, /href="\/docs\/try"/);
    const ui = await request(server.url, 'GET', '/docs/try/');
    assert.equal(ui.status, 200);
    assert.match(ui.text, /swagger-ui/i);
    assert.doesNotMatch(ui.text, /https?:\/\/(cdn|unpkg|cdnjs)/, 'nothing from a CDN');
    // Every documented endpoint has a worked example on the page.
    const { exampleFor } = await import('../../src/api/reference.js');
    const documented = Object.entries(doc.paths as Record<string, Record<string, { 'x-codeSamples'?: unknown[] }>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([m, op]) => [m, path, op['x-codeSamples']?.length] as const),
    );
    assert.ok(documented.length >= 25);
    for (const [method, path, ownSamples] of documented) assert.ok(ownSamples || exampleFor(method, path), `${method} ${path}`);

    // Valid OpenAPI 3.1, complete enough for generated clients.
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validity = await new Validator().validate(doc as never);
    assert.equal(validity.valid, true, String(JSON.stringify(validity.errors)).slice(0, 2000));
    // Redocly's CLI (its recommended rules; no telemetry) finds no error.
    const described = path.join(tempDir('docsmith-openapi-'), 'openapi.json');
    fs.writeFileSync(described, JSON.stringify(doc));
    const lint = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js'), 'lint', described, '--format=json'],
      {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 600_000,
      },
    );
    const linted = JSON.parse(lint.stdout) as {
      totals: { errors: number };
      problems: { severity: string; ruleId: string; message: string }[];
    };
    assert.deepEqual(
      linted.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`),
      [],
    );
    assert.equal(linted.totals.errors, 0);
    assert.equal(lint.status, 0, lint.stderr);
    // Named shapes are components, referred to by $ref, so generators name their types.
    const components = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    for (const name of ['Job', 'TemplateInfo', 'MergeField', 'MergeBlock', 'AccountSettings', 'TrackedChange', 'DataCheck'])
      assert.ok(components[name], name);
    const text = JSON.stringify(doc);
    assert.equal(text.match(/"\$ref":"#\/components\/schemas\/Job"/g)?.length, 5, 'the Job object written once, used by its five answers');
    assert.doesNotMatch(text, /x-type/);
    const block = components.MergeBlock as { properties: { mergeBlocks: { items: unknown } } };
    assert.deepEqual(block.properties.mergeBlocks.items, {
      $ref: '#/components/schemas/MergeBlock',
      description: 'a nested merge block of the same shape',
    });
    type Operation = {
      security?: unknown[];
      parameters?: { name: string; in: string; schema: { type?: string; enum?: string[] } }[];
      responses: Record<string, { description: string }>;
    };
    const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    for (const { path, method, op } of operations) {
      for (const [status, answer] of Object.entries(op.responses))
        assert.notEqual(answer.description, 'Default Response', `${method} ${path} ${status}`);
      if (path.startsWith('/v1/')) {
        for (const status of ['403', '413', '429', '503']) assert.ok(op.responses[status], `${method} ${path} describes ${status}`);
        if (path.startsWith('/v1/operator/')) assert.deepEqual(op.security, [{ operatorToken: [] }], `${method} ${path}`);
        else assert.equal(op.security, undefined, `${method} ${path} needs credentials`);
      } else assert.deepEqual(op.security, [], `${method} ${path} needs none`);
    }
    const mergeOp = operations.find((o) => o.path === '/v1/document/merge')!.op;
    assert.ok(mergeOp.responses['504'], 'document work can hit the processing limit');
    assert.ok(mergeOp.responses['406'], 'an Accept header naming no form the answer takes');
    const param = (name: string) => mergeOp.parameters!.find((p) => p.name === name)!.schema;
    assert.deepEqual(param('returnFormat').enum, ['PDF', 'PDFA', 'DOCX', 'DOC', 'RTF', 'HTML', 'TXT', 'TX']);
    assert.equal(param('test').type, 'boolean');
    assert.equal(param('async').type, 'boolean', 'true or false, however its description starts');
    // Tuples in 3.1's own words (prefixItems), as Redocly and 2020-12 validators read them.
    const pairs = (
      doc.paths['/v1/document/findandreplace'] as {
        post: { requestBody: { content: Record<string, { schema: { properties: { findAndReplaceData: { items: object } } } }> } };
      }
    ).post.requestBody.content['application/json']!.schema.properties.findAndReplaceData.items as Record<string, unknown>;
    assert.equal((pairs.prefixItems as unknown[]).length, 2);
    assert.equal(pairs.items, false);
    assert.equal(pairs.additionalItems, undefined);
    assert.deepEqual((doc as unknown as { servers: { url: string }[] }).servers[0]!.url, '/');
  });
});
