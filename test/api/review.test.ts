import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixture } from '../helpers/server.js';
import { txWithChanges, unreadableTx } from '../helpers/tx.js';
import { errorMessage as message, type Client } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { cell, docx, p, partText, row, run, table } from '../helpers/docx.js';
import { detectFormat } from '../../src/formats/detect.js';
import { readTx } from '../../src/formats/tx/read.js';

const b64 = (b: Buffer) => b.toString('base64');
interface Change {
  id: number;
  changeKind: number;
  text: string;
  start: number;
  length: number;
  userName: string;
  changeTime: string;
}

const del = (text: string, id: number) =>
  `<w:del w:id="${id}" w:author="Bob" w:date="2024-02-03T04:05:06Z"><w:r><w:delText xml:space="preserve">${text}</w:delText></w:r></w:del>`;

describe('review: tracked changes', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    env = await serverWithAccounts({ reviewer: {} }, { DOCSMITH_OFFICE_PROCESSES: '1' });
    c = env.clients.reviewer!;
  });
  after(() => env.close());

  const list = async (document: Buffer) =>
    (await c.post('/v1/processing/review/trackedchanges', { json: b64(document) })).json() as Change[];
  const resolve = async (document: Buffer, id: number, accept: boolean) => {
    const reply = await c.post(`/v1/processing/review/removetrackedchange?id=${id}&accept=${accept}`, { json: b64(document) });
    assert.equal(reply.status, 200, reply.text);
    const body = reply.json() as { document: string; removed: boolean };
    assert.equal(body.removed, true);
    return Buffer.from(body.document, 'base64');
  };

  it('lists the two insertions of the fixture with text and positions', async () => {
    const changes = await list(fixture('tracked_changes.docx'));
    assert.deepEqual(
      changes.map((ch) => [ch.id, ch.changeKind, ch.text, ch.start, ch.length]),
      [
        [1, 4096, 'Hello. This is ', 0, 15],
        [2, 4096, 'another test', 19, 12],
      ],
    );
    assert.equal(changes[0]!.userName, 'Unknown Author');
    assert.equal(changes[0]!.changeTime, '2019-09-02T08:34:00+00:00');
    assert.deepEqual(await list(fixture('tracked_changes.docx')), changes, 'ids are stable');
  });

  it('accepts and rejects each change', async () => {
    const d = fixture('tracked_changes.docx');
    const text = (b: Buffer) => partText(b).trim();
    assert.equal(text(await resolve(d, 1, true)), 'Hello. This is yet another test and more.');
    assert.equal(text(await resolve(d, 1, false)), 'yet another test and more.');
    assert.equal(text(await resolve(d, 2, true)), 'Hello. This is yet another test and more.');
    assert.equal(text(await resolve(d, 2, false)), 'Hello. This is yet  and more.');
    assert.equal((await list(await resolve(d, 1, true))).length, 1);
  });

  it('handles deletions in a header and in a table', async () => {
    const d = docx(table(row(cell(p(run('Keep '), del('gone', 11))), cell(p(run('x'))))), { header: p(run('Head '), del('old', 12)) });
    const changes = await list(d);
    assert.deepEqual(
      changes.map((ch) => [ch.changeKind, ch.text, ch.userName]),
      [
        [8192, 'gone', 'Bob'],
        [8192, 'old', 'Bob'],
      ],
    );
    assert.equal(changes[0]!.start, 5);
    const rejected = await resolve(d, 1, false);
    assert.equal(partText(rejected).split('\n')[0], 'Keep gone');
    const accepted = await resolve(d, 2, true);
    assert.equal(partText(accepted, 'word/header1.xml'), 'Head ');
  });

  it('returns the document in its own format', async () => {
    const asDoc = Buffer.from(
      (await c.post('/v1/document/convert?returnFormat=DOC', { json: b64(fixture('tracked_changes.docx')) })).json() as string,
      'base64',
    );
    const changes = await list(asDoc);
    assert.ok(changes.length >= 1);
    const back = await resolve(asDoc, 1, true);
    assert.equal((detectFormat(back) as { format: string }).format, 'doc');
  });

  it("lists and resolves a TX document's tracked changes, as the .NET SDK's tests do with tracked.tx", async () => {
    const tx = txWithChanges([{ start: 2, end: 12, time: new Date('2019-08-06T12:34:13Z') }]);
    const changes = await list(tx);
    assert.deepEqual(
      changes.map((change) => [change.changeKind, change.text, change.start, change.length, change.changeTime]),
      [[4096, '%%FIELD1%%', 2, 10, '2019-08-06T12:34:13+00:00']],
    );
    const accepted = await resolve(tx, changes[0]!.id, true);
    assert.equal((detectFormat(accepted) as { format: string }).format, 'tx', 'TX comes back as TX');
    assert.deepEqual(await list(accepted), []);
    assert.match(readTx(accepted).text, /%%FIELD1%% -- hello world\./);
    assert.doesNotMatch(readTx(await resolve(tx, changes[0]!.id, false)).text, /%%FIELD1%%/, 'rejected: the insertion is gone');
  });

  it('refuses bad input with a clear 400', async () => {
    const d = b64(fixture('tracked_changes.docx'));
    const cases: [string, string | undefined, RegExp][] = [
      ['id=9&accept=true', d, /no tracked change with id 9 \(it has 2\)/],
      ['id=x&accept=true', d, /id must be the number/],
      ['accept=true', d, /"id" is required/],
      ['id=1&accept=maybe', d, /accept/],
      ['id=1&accept=true', b64(Buffer.from('no document')), /not a document/],
      ['id=1&accept=true', undefined, /body is empty/],
    ];
    for (const [query, body, expected] of cases) {
      const reply = await c.post(`/v1/processing/review/removetrackedchange?${query}`, body === undefined ? {} : { json: body });
      assert.equal(reply.status, 400, `${query}: ${reply.text}`);
      assert.match(message(reply), expected);
    }
    assert.equal((await c.post('/v1/processing/review/trackedchanges', { json: b64(unreadableTx()) })).status, 400);
  });
});
