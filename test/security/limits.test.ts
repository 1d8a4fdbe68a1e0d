import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { until } from '../helpers/wait.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage as message, request, type Client } from '../helpers/http.js';
import { docx, zipBomb } from '../helpers/hostile.js';
import { block, cell, docx as docxWithBlock, mergefield, p, row, run, table } from '../helpers/docx.js';
import { zipSync, strToU8, unzipSync } from 'fflate';

const b64 = (b: Buffer) => b.toString('base64');

/** A DOCX whose document part is `xml` (any bytes: malformed, with a DOCTYPE, ...). */
function withDocumentXml(xml: string): Buffer {
  const files = unzipSync(docx(''));
  files['word/document.xml'] = strToU8(xml);
  return Buffer.from(zipSync(files));
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const deep = withDocumentXml(
  `<w:document ${W}><w:body>${'<w:sdt><w:sdtContent>'.repeat(5000)}<w:p/>${'</w:sdtContent></w:sdt>'.repeat(5000)}</w:body></w:document>`,
);
const doctype = withDocumentXml(
  `<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><w:document ${W}><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>`,
);
const malformed = withDocumentXml(`<w:document ${W}><w:body><w:p></w:body>`);
const doctypeInStyles = (() => {
  const files = unzipSync(docx(''));
  files['word/styles.xml'] = strToU8('<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x "y">]><w:styles/>');
  return Buffer.from(zipSync(files));
})();

describe('hostile packages get a clear 400 on every path, fast', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-LIM' } });
    c = env.clients.ann!;
  });
  after(() => env.close());

  it('a zip bomb with falsified sizes is refused at upload, merge and review in well under a second', async () => {
    const bomb = zipBomb('word/document.xml', 48 * 1024 * 1024);
    const started = Date.now();
    const upload = await c.upload('bomb.docx', bomb);
    assert.equal(upload.status, 400);
    assert.match(message(upload), /unpacks to more than|zip bomb/);
    const merge = await c.post('/v1/document/merge?returnFormat=DOCX', { json: { mergeData: [{}], template: b64(bomb) } });
    assert.equal(merge.status, 400, merge.text);
    const review = await c.post('/v1/processing/review/trackedchanges', { json: b64(bomb) });
    assert.equal(review.status, 400, review.text);
    const typesBomb = await c.upload('bomb2.docx', zipBomb('[Content_Types].xml', 48 * 1024 * 1024));
    assert.equal(typesBomb.status, 400);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal((await c.get('/v1/templates/count')).json(), 0, 'nothing was stored');
  });

  it('deeply nested XML is a 400 that names the limit on merge, preview, find-and-replace, review and upload', async () => {
    const calls = [
      c.post('/v1/document/merge?returnFormat=DOCX', { json: { mergeData: [{}], template: b64(deep) } }),
      c.post('/v1/document/preview?returnFormat=DOCX', { json: { mergeData: [{}], template: b64(deep) } }),
      c.post('/v1/document/findandreplace?returnFormat=DOCX', { json: { findAndReplaceData: [['a', 'b']], template: b64(deep) } }),
      c.post('/v1/processing/review/trackedchanges', { json: b64(deep) }),
      c.upload('deep.docx', deep),
    ];
    for (const reply of await Promise.all(calls)) {
      assert.equal(reply.status, 400, reply.text.slice(0, 200));
      assert.match(message(reply), /more than 1000 levels deep/);
    }
  });

  it('upload refuses templates no operation could use: DOCTYPE anywhere, malformed XML', async () => {
    for (const [name, bytes, expected] of [
      ['doctype.docx', doctype, /DOCTYPE/],
      ['doctype-styles.docx', doctypeInStyles, /DOCTYPE/],
      ['malformed.docx', malformed, /not well-formed/],
    ] as const) {
      const reply = await c.upload(name, bytes);
      assert.equal(reply.status, 400, `${name}: ${reply.text}`);
      assert.match(message(reply), expected);
    }
    assert.equal((await c.upload('fine.docx', docx('<w:p><w:r><w:t>ok</w:t></w:r></w:p>'))).status, 201);
  });

  it('template names: one name whatever its Unicode form, and no invisible formatting characters', async () => {
    const composed = 'Caf\u00e9.docx';
    const decomposed = 'Cafe\u0301.docx';
    assert.equal((await c.upload(composed, docx(''))).status, 201);
    assert.equal((await c.upload(decomposed, docx('<w:p><w:r><w:t>second</w:t></w:r></w:p>'))).status, 201, 'replaces');
    const names = ((await c.get('/v1/templates/list')).json() as { templateName: string }[])
      .map((t) => t.templateName)
      .filter((n) => n.startsWith('Caf'));
    assert.deepEqual(names, [composed]);
    assert.equal((await c.get(`/v1/templates/exists?templateName=${encodeURIComponent(decomposed)}`)).json(), true);
    for (const sneaky of ['invoice\u202Excod.docx', 'in\u200Bvoice.docx', '\uFEFFinvoice.docx', 'a\u2066b.docx']) {
      const reply = await c.upload(sneaky, docx(''));
      assert.equal(reply.status, 400, sneaky);
      assert.match(message(reply), /invisible formatting character/);
    }
  });
});

/** A PDF of `pages` empty pages, written by hand (no cross-reference table: readers rebuild it). */
function blankPdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    `1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj`,
    `2 0 obj<</Type/Pages/Kids[${kids}]/Count ${pages}>>endobj`,
    ...Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj`),
  ];
  return Buffer.from(`%PDF-1.4\n${objects.join('\n')}\ntrailer<</Root 1 0 R/Size ${pages + 3}>>\n%%EOF\n`, 'latin1');
}

/**
 * The time limit of the server below: slow work here takes many times longer on any machine, fast
 * work (a one-record merge, a 3-page PDF) fits in it on a busy one.
 */
const LIMIT_MS = 2000;

describe('limits on records, pages and time stop the work that exceeds them', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    env = await serverWithAccounts(
      { ann: { licence: 'SN-LIM', maxDocuments: 1_000_000 } },
      {
        DOCSMITH_PROCESSING_LIMIT_MS: String(LIMIT_MS),
        DOCSMITH_MAX_RECORDS: '8000',
        DOCSMITH_MAX_PAGES: '3',
        DOCSMITH_OFFICE_PROCESSES: '1',
      },
    );
    c = env.clients.ann!;
  });
  after(() => env.close());

  const template = docx(
    '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> MERGEFIELD name </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
  );

  it('refuses more records than the limit with a 413 that names the setting', async () => {
    const reply = await c.post('/v1/document/merge?returnFormat=DOCX', {
      json: { mergeData: Array.from({ length: 8001 }, (_, i) => ({ name: `n${i}` })), template: b64(template) },
    });
    assert.equal(reply.status, 413);
    assert.match(message(reply), /8001 records; this server merges at most 8000 .*DOCSMITH_MAX_RECORDS/);
  });

  it('cancels a merge that runs over the time limit with a 504, soon after the limit', async () => {
    // 8,000 records of 60 rows each, appended: far more than any machine merges within the limit.
    const withRows = docxWithBlock(p(mergefield('name')) + block('items', p(mergefield('name'))));
    const items = Array.from({ length: 60 }, (_, i) => ({ name: `row ${i}` }));
    const started = Date.now();
    const reply = await c.post('/v1/document/merge?returnFormat=DOCX&append=true', {
      json: { mergeData: Array.from({ length: 8000 }, (_, i) => ({ name: `n${i}`, items })), template: b64(withRows) },
    });
    const took = Date.now() - started;
    assert.equal(reply.status, 504, reply.text.slice(0, 200));
    assert.ok(took < 15_000, `answered after ${took} ms`);
    assert.equal(
      (await c.post('/v1/document/merge?returnFormat=DOCX', { json: { mergeData: [{ name: 'small' }], template: b64(template) } })).status,
      200,
      'the next merge is served',
    );
  });

  it('stops one huge document in the middle (the merge checks the clock as it renders), and serves the next request', async () => {
    // 400,000 rows of 12 fields each: many times the limit's work on any machine.
    const rows = docxWithBlock(block('items', p(...Array.from({ length: 12 }, () => mergefield('name')))));
    const started = Date.now();
    const reply = await c.post('/v1/document/merge?returnFormat=DOCX', {
      json: { mergeData: [{ items: Array.from({ length: 400_000 }, (_, i) => ({ name: `row ${i}` })) }], template: b64(rows) },
    });
    assert.equal(reply.status, 504, reply.text.slice(0, 200));
    assert.ok(Date.now() - started < 15_000);
    assert.equal(
      (await c.post('/v1/document/merge?returnFormat=DOCX', { json: { mergeData: [{ items: [{ name: 'one' }] }], template: b64(rows) } }))
        .status,
      200,
    );
  });

  it('refuses to read a PDF with more pages than the limit', async () => {
    assert.equal((await c.post('/v1/document/convert?returnFormat=TXT', { json: b64(blankPdf(3)) })).status, 200);
    const reply = await c.post('/v1/document/convert?returnFormat=TXT', { json: b64(blankPdf(50)) });
    assert.equal(reply.status, 413, reply.text);
    assert.match(message(reply), /50 pages; this server reads at most 3 \(DOCSMITH_MAX_PAGES\)/);
  });
});

describe('a heavy merge does not hold up other requests', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    // The big merge below doubles its records until it is still running: up to 80,000, past the default limit.
    env = await serverWithAccounts(
      { ann: { licence: 'SN-LIM', maxDocuments: 1_000_000 } },
      { DOCSMITH_DOCUMENT_THREADS: '2', DOCSMITH_MAX_RECORDS: '80000' },
    );
    c = env.clients.ann!;
  });
  after(() => env.close());

  it('answers /healthz and a small merge while a large merge is still running', async () => {
    const template = docx(
      '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> MERGEFIELD name </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
    );
    const bigUrl = '/v1/document/merge?returnFormat=DOCX&append=true';
    const arrived = () => fs.readFileSync(env.server.logPath, 'utf8').split(bigUrl).length - 1;
    // Appending is linear and fast: on a fast machine a big merge may finish before a small one
    // asked beside it is answered. A merge that held the others up would finish first at any size,
    // so the big one doubles until it is still running when the others are answered.
    let order: string[] = [];
    for (const records of [10_000, 20_000, 40_000, 80_000]) {
      order = [];
      const before = arrived();
      const big = c
        .post(bigUrl, { json: { mergeData: Array.from({ length: records }, (_, i) => ({ name: `n${i}` })), template: b64(template) } })
        .then((reply) => {
          order.push('big');
          return reply;
        });
      // Once the big merge is in the server (a condition, not a time), the others are asked.
      await until('the big merge reached the server', () => arrived() > before);
      const health = request(env.server.url, 'GET', '/healthz').then((reply) => {
        order.push('healthz');
        return reply;
      });
      const small = c
        .post('/v1/document/merge?returnFormat=DOCX', { json: { mergeData: [{ name: 'small' }], template: b64(template) } })
        .then((reply) => {
          order.push('small');
          return reply;
        });
      const [b, h, s] = await Promise.all([big, health, small]);
      assert.equal(h.status, 200);
      assert.equal(s.status, 200);
      assert.equal(b.status, 200, b.text.slice(0, 200));
      if (order.at(-1) === 'big') break;
    }
    assert.deepEqual(order.slice(-1), ['big'], `finished in the order ${order.join(', ')}`);
  });

  it('answers /healthz while a large template is read at upload', async () => {
    // 20,000 merge fields: reading the template takes a second or more, in a worker thread.
    const large = docxWithBlock(Array.from({ length: 20_000 }, (_, i) => p(run(`Line ${i} `), mergefield(`f${i % 50}`))).join(''));
    const order: string[] = [];
    const upload = c.upload('large.docx', large).then((reply) => {
      order.push('upload');
      return reply;
    });
    await until('the upload reached the server', () =>
      fs.readFileSync(env.server.logPath, 'utf8').includes('/v1/templates/upload?templateName=large.docx'),
    );
    const health = request(env.server.url, 'GET', '/healthz').then((reply) => {
      order.push('healthz');
      return reply;
    });
    const [u, h] = await Promise.all([upload, health]);
    assert.equal(h.status, 200);
    assert.equal(u.status, 201, u.text.slice(0, 200));
    assert.deepEqual(order, ['healthz', 'upload']);
    // Its fields come from the same reader, in a worker thread too.
    const info = await c.get('/v1/templates/info?templateName=large.docx');
    assert.equal((info.json() as { mergeFields: unknown[] }).mergeFields.length, 20_000);
  });

  it('holds DOCX merges to two at once per account: a third is refused with 403', async () => {
    // 60,000 rows of 12 fields each: long enough that the three requests overlap on any machine.
    const rows = docxWithBlock(block('items', p(...Array.from({ length: 12 }, () => mergefield('name')))));
    const body = { mergeData: [{ items: Array.from({ length: 60_000 }, (_, i) => ({ name: `row ${i}` })) }], template: b64(rows) };
    const replies = await Promise.all([0, 1, 2].map(() => c.post('/v1/document/merge?returnFormat=DOCX', { json: body })));
    const statuses = replies.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 200, 403], statuses.join());
    assert.match(message(replies.find((r) => r.status === 403)!), /At most 2 merge requests may run at once/);
  });
});

describe('layout stays linear in the size of the data', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-LIM', maxDocuments: 1_000_000 } }, { DOCSMITH_OFFICE_PROCESSES: '1' });
    c = env.clients.ann!;
  });
  after(() => env.close());

  it('lays out a long value in a table cell in time that grows with its length, not its square', async () => {
    // One 40,000-character paragraph in a cell took LibreOffice 16 times as long as 10,000 did.
    const template = b64(docxWithBlock(table(row(cell(p(run('Notes'))), cell(p(mergefield('notes')))))));
    const timed = async (length: number) => {
      const notes = Array.from({ length: length / 10 }, (_, i) => `w${String(i).padStart(7, '0')}`).join(' ');
      const started = performance.now();
      const reply = await c.post('/v1/document/merge?returnFormat=PDF', { json: { mergeData: [{ notes }], template } });
      assert.equal(reply.status, 200, reply.text.slice(0, 200));
      return performance.now() - started;
    };
    await timed(10_000); // warm
    const short = await timed(10_000);
    const long = await timed(40_000);
    assert.ok(long / short < 8, `10,000 characters: ${short.toFixed(0)} ms, 40,000: ${long.toFixed(0)} ms`);
  });
});
