import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { client } from '../helpers/http.js';
import { docx, mergefield, p, partText, run } from '../helpers/docx.js';
import { hasOpenssl, makeP12 } from '../helpers/certificates.js';

function cli(env: Record<string, string>, args: string[], input?: string) {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'docsmith.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    input,
    encoding: 'utf8',
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe('docsmith CLI: accounts and API keys', () => {
  const env = { DOCSMITH_DATA_DIR: tempDir() };
  let server: RunningServer;
  before(async () => {
    server = await startServer(env);
  });
  after(() => server.stop());

  it('creates an account the running server accepts, with licence and limits', async () => {
    const made = cli(env, [
      'account',
      'create',
      '--user',
      'carol',
      '--password',
      'carol-secret-1',
      '--licence',
      'SN-4242',
      '--max-documents',
      '12',
      '--max-templates',
      '3',
      '--valid-until',
      '2031-05-06',
      '--json',
    ]);
    assert.equal(made.code, 0, made.err);
    const [row] = JSON.parse(made.out) as Record<string, unknown>[];
    assert.equal(row!.licence, 'SN-4242');
    const settings = (await client(server.url, { basic: ['carol', 'carol-secret-1'] }).get('/v1/account/settings')).json();
    assert.deepEqual(settings, {
      serialNumber: 'SN-4242',
      createdDocuments: 0,
      uploadedTemplates: 0,
      maxDocuments: 12,
      maxTemplates: 3,
      validUntil: '2031-05-06T00:00:00+00:00',
      proofingTransactions: 0,
      maxProofingTransactions: 1_000_000,
    });
  });

  it('gives an account it creates the sample templates when its own environment asks (DOCSMITH_SAMPLE_TEMPLATES=1)', async () => {
    assert.equal(
      cli({ ...env, DOCSMITH_SAMPLE_TEMPLATES: '1' }, ['account', 'create', '--user', 'sampled', '--password', 'sampled-secret-1']).code,
      0,
    );
    assert.equal(cli(env, ['account', 'create', '--user', 'plain', '--password', 'plain-secret-1']).code, 0);
    const list = async (user: string, password: string) =>
      ((await client(server.url, { basic: [user, password] }).get('/v1/templates/list')).json() as { templateName: string }[]).map(
        (t) => t.templateName,
      );
    assert.deepEqual(await list('sampled', 'sampled-secret-1'), ['sample_invoice.tx']);
    assert.deepEqual(await list('plain', 'plain-secret-1'), []);
  });

  it('reads the password from standard input, lists and updates accounts', async () => {
    assert.equal(cli(env, ['account', 'create', '--user', 'dave', '--password-stdin', '--license', 'free'], 'dave-secret-1\n').code, 0);
    const list = cli(env, ['account', 'list']);
    assert.equal(list.code, 0);
    assert.match(list.out, /carol\s+SN-4242/);
    assert.match(list.out, /dave\s+FREE/);
    const updated = cli(env, [
      'account',
      'update',
      '--user',
      'dave',
      '--password',
      'dave-secret-2',
      '--max-documents',
      '99',
      '--valid-until',
      'never',
      '--json',
    ]);
    assert.equal(updated.code, 0, updated.err);
    assert.equal((JSON.parse(updated.out) as Record<string, unknown>[])[0]!.maxDocuments, 99);
    const dave = client(server.url, { basic: ['dave', 'dave-secret-2'] });
    const settings = (await dave.get('/v1/account/settings')).json() as Record<string, unknown>;
    assert.equal(settings.validUntil, '9999-12-31T00:00:00+00:00', 'never expires: a far date, as the SDKs parse a date');
    // Read in local time east of UTC (as the .NET SDK does), it is still in year 9999.
    for (const zone of ['Europe/Berlin', 'Asia/Tokyo', 'Pacific/Kiritimati', 'America/Los_Angeles']) {
      const script = `process.stdout.write(String(new Date(${JSON.stringify(settings.validUntil)}).getFullYear()))`;
      const year: string = spawnSync(process.execPath, ['-e', script], { env: { TZ: zone }, encoding: 'utf8' }).stdout;
      assert.equal(year, '9999', zone);
    }
    assert.equal(
      (await client(server.url, { basic: ['dave', 'dave-secret-1'] }).get('/v1/account/settings')).status,
      403,
      'old password is gone',
    );
  });

  it('creates, lists and revokes API keys', async () => {
    const made = cli(env, ['apikey', 'create', '--user', 'carol', '--name', 'Billing']);
    assert.equal(made.code, 0, made.err);
    const key = made.out.trim();
    const viaKey = client(server.url, { key });
    assert.equal((await viaKey.get('/v1/templates/count')).status, 200);
    // Listed by its ends, with its name and dates; the full key is shown only when made.
    const listed = cli(env, ['apikey', 'list', '--user', 'carol']).out;
    assert.doesNotMatch(listed, new RegExp(key));
    assert.match(listed, new RegExp(`Billing\\s+${key.slice(0, 4)}…${key.slice(-4)}\\s+full\\s+true\\s+\\d{4}-`));
    type Listed = { id: number; name: string; key: string; lastUsed: string | null };
    const [row] = JSON.parse(cli(env, ['apikey', 'list', '--user', 'carol', '--json']).out) as Listed[];
    assert.ok(row?.lastUsed, 'its use is recorded');
    assert.equal(cli(env, ['apikey', 'rename', '--user', 'carol', '--id', String(row.id), '--name', 'Billing (old)']).code, 0);
    assert.match(cli(env, ['apikey', 'list', '--user', 'carol']).out, /Billing \(old\)/);
    const long = cli(env, ['apikey', 'rename', '--user', 'carol', '--id', String(row.id), '--name', 'x'.repeat(101)]);
    assert.equal(long.code, 2);
    assert.match(long.err, /--name has at most 100 characters/);
    assert.equal(cli(env, ['apikey', 'rename', '--user', 'carol', '--id', 'one', '--name', 'x']).code, 2);
    assert.equal(cli(env, ['apikey', 'revoke', '--user', 'carol', '--id', String(row.id)]).code, 0);
    assert.equal((await viaKey.get('/v1/templates/count')).status, 403);
    assert.equal(cli(env, ['apikey', 'revoke', '--user', 'carol', '--key', key]).code, 1);
    const other = cli(env, ['apikey', 'create', '--user', 'carol', '--scope', 'merge']).out.trim();
    assert.match(cli(env, ['apikey', 'list', '--user', 'carol']).out, /\s{2}merge\s{2}/);
    const badScope = cli(env, ['apikey', 'create', '--user', 'carol', '--scope', 'admin']);
    assert.equal(badScope.code, 2);
    assert.match(badScope.err, /--scope is one of full, merge, read, not "admin"/);
    assert.equal(cli(env, ['apikey', 'revoke', '--user', 'carol', '--key', other]).code, 0);
    assert.equal((await viaKey.get('/v1/templates/count')).status, 403);
    const again = cli(env, ['apikey', 'revoke', '--user', 'carol', '--key', other]);
    assert.equal(again.code, 1);
    assert.match(again.err, /no such key/);
  });

  it("lists a stored template's versions, diffs their fields and rolls back", async () => {
    assert.equal(cli(env, ['account', 'create', '--user', 'tess', '--password', 'tess-secret-12']).code, 0);
    const tess = client(server.url, { basic: ['tess', 'tess-secret-12'] });
    assert.equal((await tess.upload('memo.docx', docx(p(run('To '), mergefield('name'))))).status, 201);
    assert.equal((await tess.upload('memo.docx', docx(p(run('To '), mergefield('title'), mergefield('name'))))).status, 201);
    const listed = JSON.parse(cli(env, ['template', 'versions', '--user', 'tess', '--template', 'memo.docx', '--json']).out) as {
      version: number;
      current: boolean;
    }[];
    assert.deepEqual(
      listed.map((v) => [v.version, v.current]),
      [
        [2, true],
        [1, false],
      ],
    );
    const diff = cli(env, ['template', 'diff', '--user', 'tess', '--template', 'memo.docx', '--from', '1']);
    assert.equal(diff.code, 0, diff.err);
    assert.match(diff.out, /from version 1 to 2:\n {2}fields added: title\n {2}fields removed: none/);
    const back = cli(env, ['template', 'rollback', '--user', 'tess', '--template', 'memo.docx', '--to', '1']);
    assert.equal(back.code, 0, back.err);
    assert.match(back.out, /version 1 of "memo.docx" is current again, as version 3/);
    assert.match((await tess.get('/v1/templates/info?templateName=memo.docx')).text, /"name":"name"/);
    assert.doesNotMatch((await tess.get('/v1/templates/info?templateName=memo.docx')).text, /"name":"title"/);
    const bad = cli(env, ['template', 'rollback', '--user', 'tess', '--template', 'memo.docx', '--to', 'last']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--to is a version number/);
    // The operator's changes are in the account's audit log, with the uploads made over HTTP.
    assert.equal(cli(env, ['account', 'update', '--user', 'tess', '--max-documents', '500']).code, 0);
    const audit = JSON.parse(cli(env, ['audit', '--user', 'tess', '--json']).out) as { action: string; actor: string; detail: string }[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.actor]),
      [
        ['account changed', 'operator (CLI)'],
        ['template rolled back', 'operator (CLI)'],
        ['template replaced', 'password'],
        ['template uploaded', 'password'],
        ['account created', 'operator (CLI)'],
      ],
    );
    assert.equal(audit[0]!.detail, '--max-documents');
    const none = cli(env, ['template', 'versions', '--user', 'tess', '--template', 'nothing.docx']);
    assert.equal(none.code, 1);
    assert.match(none.err, /no template named "nothing.docx"/);
  });

  it(
    "keeps the certificates PDFs are signed with, sealed (the server's and an account's own), and grants an account signing",
    { skip: !hasOpenssl },
    () => {
      const p12 = makeP12('CLI signer', 'p12-pw');
      assert.match(cli(env, ['signing', 'show']).out, /no signing certificate/);
      const wrong = cli(env, ['signing', 'import', '--p12', p12, '--password', 'not-it']);
      assert.equal(wrong.code, 1);
      assert.match(wrong.err, /the password is wrong/);
      const imported = cli(env, ['signing', 'import', '--p12', p12, '--password', 'p12-pw']);
      assert.equal(imported.code, 0, imported.err);
      assert.match(imported.out, /PDFs are signed as "CLI signer" \(certificate valid until \d{4}-\d\d-\d\d\)/);
      assert.match(cli(env, ['signing', 'show']).out, /CLI signer/);
      const sealed = fs.readFileSync(path.join(env.DOCSMITH_DATA_DIR, 'docsmith.sqlite'));
      assert.equal(sealed.includes(fs.readFileSync(p12).subarray(0, 64)), false, 'not stored in clear');
      assert.equal(sealed.includes(Buffer.from('p12-pw')), false, 'nor its password');
      assert.equal(cli(env, ['account', 'create', '--user', 'sid', '--password', 'sid-secret-123']).code, 0);
      const ungranted = cli(env, ['account', 'update', '--user', 'sid', '--pdf-signature', 'visible']);
      assert.equal(ungranted.code, 2, 'no signing default without the grant');
      assert.match(ungranted.err, /may not sign PDFs: grant it first \(--signing grant\)/);
      assert.match(
        cli(env, ['signing', 'show', '--user', 'sid']).out,
        /"sid" may not sign \(no grant\); would sign as "CLI signer" \(the server's certificate/,
      );
      const set = cli(env, ['account', 'update', '--user', 'sid', '--signing', 'grant', '--pdf-signature', 'visible', '--json']);
      assert.equal(set.code, 0, set.err);
      assert.deepEqual(
        (JSON.parse(set.out) as { pdfSignature: string; signing: string }[]).map((a) => [a.signing, a.pdfSignature]),
        [['granted', 'visible']],
      );
      assert.equal(cli(env, ['account', 'update', '--user', 'sid', '--pdf-signature', 'always']).code, 2);
      assert.equal(cli(env, ['account', 'update', '--user', 'sid', '--signing', 'maybe']).code, 2);
      // An account's own certificate, kept beside the server's.
      const own = cli(env, ['signing', 'import', '--p12', makeP12('Sid Ltd', 'sid-pw'), '--password', 'sid-pw', '--user', 'sid']);
      assert.equal(own.code, 0, own.err);
      assert.match(own.out, /"sid" signs as "Sid Ltd"/);
      assert.match(cli(env, ['signing', 'show', '--user', 'sid']).out, /"sid" signs as "Sid Ltd" \(valid until/);
      assert.match(cli(env, ['signing', 'show']).out, /CLI signer/, "the server's stays");
      const revoked = cli(env, ['account', 'update', '--user', 'sid', '--signing', 'revoke', '--json']);
      assert.deepEqual(
        (JSON.parse(revoked.out) as { pdfSignature: string; signing: string }[]).map((a) => [a.signing, a.pdfSignature]),
        [['none', 'none']],
        'revoking takes the default with it',
      );
      const audit = cli(env, ['audit', '--user', 'sid', '--json']);
      assert.match(audit.out, /--signing/);
      assert.match(audit.out, /signing certificate \\"Sid Ltd\\" imported/);
      assert.match(cli(env, ['signing', 'remove', '--user', 'sid']).out, /removed the signing certificate/);
      assert.match(cli(env, ['signing', 'remove']).out, /removed the signing certificate/);
    },
  );

  it('gives new accounts the sample invoice when DOCSMITH_SAMPLE_TEMPLATES=1, as the SDK suites expect', async () => {
    assert.equal(
      cli({ ...env, DOCSMITH_SAMPLE_TEMPLATES: '1' }, ['account', 'create', '--user', 'sam', '--password', 'sam-secret-1']).code,
      0,
    );
    assert.equal(cli(env, ['account', 'create', '--user', 'tom', '--password', 'tom-secret-1']).code, 0);
    const sam = client(server.url, { basic: ['sam', 'sam-secret-1'] });
    const names = ((await sam.get('/v1/templates/list')).json() as { templateName: string }[]).map((t) => t.templateName);
    assert.deepEqual(names, ['sample_invoice.tx']);
    assert.equal((await client(server.url, { basic: ['tom', 'tom-secret-1'] }).get('/v1/templates/count')).json(), 0, 'opt-in only');
    const info = (await sam.get('/v1/templates/info?templateName=sample_invoice.tx')).json() as { mergeBlocks: { name: string }[] };
    assert.deepEqual(
      info.mergeBlocks.map((b) => b.name),
      ['item'],
    );
    const merged = await sam.post('/v1/document/merge?returnFormat=DOCX&templateName=sample_invoice.tx', {
      json: { mergeData: [{ invoice_no: '778723', item: [{ item_description: 'Widget' }] }] },
    });
    assert.equal(merged.status, 200, merged.text);
    assert.match(partText(Buffer.from((merged.json() as string[])[0]!, 'base64')), /Invoice number #778723[\s\S]*Widget/);
  });

  it('deletes an account with its data', async () => {
    assert.equal(cli(env, ['account', 'delete', '--user', 'dave']).code, 0);
    assert.equal((await client(server.url, { basic: ['dave', 'dave-secret-2'] }).get('/v1/account/settings')).status, 403);
  });

  it('explains bad input with a message and a non-zero exit', () => {
    const cases: [string[], number, RegExp][] = [
      [[], 2, /docsmith account create/],
      [['account', 'create', '--password', 'x-secret-123'], 2, /--user is required/],
      [['account', 'create', '--user', 'erin'], 2, /--password/],
      [['account', 'create', '--user', 'carol', '--password', 'carol-secret-1'], 1, /exists already/],
      // Usage errors (2) in the CLI's words: the option, and that command's usage only.
      [
        ['account', 'create', '--user', 'erin', '--password', 'short'],
        2,
        /docsmith: --password must have 8 to 1024 characters\n\n {2}docsmith account create [^\n]*\n[^]*\[--valid-until YYYY-MM-DD\|never\]\n$/,
      ],
      [['account', 'create', '--user', 'erin', '--password', 'erin-secret-1', '--licence', 'x'], 2, /--licence must be FREE, TRIAL/],
      [['account', 'create', '--user', 'er in', '--password', 'erin-secret-1'], 2, /--user must be 1-128 characters/],
      [['account', 'update', '--user', 'carol', '--password', 'short'], 2, /--password must have 8/],
      [['account'], 2, /account needs a subcommand: create, list, update, delete\n\n {2}docsmith account create/],
      [['apikey'], 2, /apikey needs a subcommand: create, list, rename, revoke/],
      [['account', 'create', '--user', 'erin', '--password', 'erin-secret-1', '--max-documents', 'lots'], 2, /whole number/],
      [['account', 'create', '--user', 'erin', '--password', 'erin-secret-1', '--valid-until', 'soon'], 2, /--valid-until/],
      [['account', 'update', '--user', 'nobody'], 1, /no account named "nobody"/],
      [['account', 'frobnicate'], 2, /unknown command/],
      [['account', 'list', '--bogus'], 2, /Unknown option/],
    ];
    for (const [args, code, expected] of cases) {
      const result = cli(env, args);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.err}`);
      assert.match(result.err + result.out, expected, args.join(' '));
    }
    // Help for one command.
    const help = cli(env, ['account', 'update', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^ {2}docsmith account update --user NAME/);
    assert.doesNotMatch(help.out, /docsmith merge|account create/);
    const badConfig = cli({ ...env, DOCSMITH_DATABASE_URL: 'mysql://x' }, ['account', 'list']);
    assert.equal(badConfig.code, 1);
    assert.match(badConfig.err, /postgres:\/\//);
  });
});

describe('docsmith CLI: where the data is, and backups', () => {
  it('creates nothing for a mistyped command, and says which database it reads', () => {
    const cwd = tempDir();
    const typo = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'docsmith.js'), 'acount', 'list'], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /unknown command "acount list"/);
    const nothing = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'docsmith.js'), 'account', 'list'], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.equal(nothing.status, 1);
    assert.match(nothing.stderr, /there is no database at .*data\/docsmith\.sqlite; set DOCSMITH_DATA_DIR/);
    assert.deepEqual(fs.readdirSync(cwd), [], 'no ./data was made');
    const env = { DOCSMITH_DATA_DIR: tempDir() };
    assert.equal(cli(env, ['account', 'create', '--user', 'dan', '--password', 'dan-secret-1']).code, 0);
    const list = cli(env, ['account', 'list']);
    assert.match(
      list.err,
      new RegExp(`accounts in SQLite at ${env.DOCSMITH_DATA_DIR.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/docsmith\\.sqlite`),
    );
  });

  it("backs up a running service's database into one file that a fresh data folder starts from", async () => {
    const env = { DOCSMITH_DATA_DIR: tempDir() };
    assert.equal(cli(env, ['account', 'create', '--user', 'erin', '--password', 'erin-secret-1', '--max-documents', '77']).code, 0);
    const server = await startServer(env);
    try {
      const erin = client(server.url, { basic: ['erin', 'erin-secret-1'] });
      assert.equal(
        (
          await erin.upload(
            'kept.docx',
            fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'reportingcloud', 'resource', 'test_document.docx')),
          )
        ).status,
        201,
      );
      const file = path.join(tempDir(), 'docsmith-backup.sqlite');
      const backup = cli(env, ['backup', '--out', file]);
      assert.equal(backup.code, 0, backup.err);
      assert.match(backup.out, /backed up SQLite at .* to /);
      const mode = (file: string) => fs.statSync(file).mode & 0o777;
      assert.equal(mode(file), 0o600, "the backup is the owner's alone");
      const live = path.join(env.DOCSMITH_DATA_DIR, 'docsmith.sqlite');
      assert.equal(mode(live), 0o600);
      assert.equal(mode(`${live}-wal`), 0o600);
      assert.equal(mode(env.DOCSMITH_DATA_DIR), 0o700);
      // --out at the live database, its journal or a folder: refused with the reason, nothing destroyed or left.
      for (const out of [live, `${live}-wal`, path.join(env.DOCSMITH_DATA_DIR, '.', 'docsmith.sqlite')]) {
        const refused = cli(env, ['backup', '--out', out]);
        assert.equal(refused.code, 2, refused.out);
        assert.match(refused.err, /is the live database .*Choose another file/);
      }
      const folder = tempDir();
      const intoFolder = cli(env, ['backup', '--out', folder]);
      assert.equal(intoFolder.code, 2);
      assert.match(intoFolder.err, /is a folder; name a file in it/);
      assert.doesNotMatch(intoFolder.err, /\n\s+at /, 'no stack trace');
      assert.ok(!fs.existsSync(`${folder}.partial`));
      assert.equal(
        (
          await erin.upload(
            'after.docx',
            fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'reportingcloud', 'resource', 'test_document.docx')),
          )
        ).status,
        201,
      );
      assert.equal((await erin.get('/v1/templates/exists?templateName=kept.docx')).text, 'true', 'the live database is intact');
      // Restore: the backup becomes docsmith.sqlite of a new data folder (with the same secret.key).
      const restored = { DOCSMITH_DATA_DIR: tempDir() };
      fs.copyFileSync(file, path.join(restored.DOCSMITH_DATA_DIR, 'docsmith.sqlite'));
      fs.copyFileSync(path.join(env.DOCSMITH_DATA_DIR, 'secret.key'), path.join(restored.DOCSMITH_DATA_DIR, 'secret.key'));
      const second = await startServer(restored);
      try {
        const again = client(second.url, { basic: ['erin', 'erin-secret-1'] });
        assert.equal((await again.get('/v1/templates/exists?templateName=kept.docx')).text, 'true');
        assert.equal(((await again.get('/v1/account/settings')).json() as { maxDocuments: number }).maxDocuments, 77);
      } finally {
        await second.stop();
      }
    } finally {
      await server.stop();
    }
    assert.equal(cli(env, ['backup']).code, 2, '--out is required');
  });
});
