import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixture } from '../helpers/server.js';
import { errorMessage as message, type Client } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { pdfFacts } from '../helpers/office.js';
import { partText } from '../helpers/docx.js';
import * as mupdf from 'mupdf';

const b64 = (b: Buffer) => b.toString('base64');

describe('POST /v1/document/append', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    env = await serverWithAccounts({ appender: { licence: 'SN-APPEND' } }, { DOCSMITH_OFFICE_PROCESSES: '2' });
    c = env.clients.appender!;
  });
  after(() => env.close());

  const append = (query: string, body: unknown) => c.post(`/v1/document/append?${query}`, { json: body });

  it('joins DOCX, DOC, RTF and HTML with each divider, into every format', async () => {
    const html = Buffer.from('<!DOCTYPE html><html><body><p>From HTML</p></body></html>');
    const rtf = Buffer.from('{\\rtf1\\ansi From RTF\\par}');
    const body = {
      documents: [
        { document: b64(fixture('test_document.docx')), documentDivider: 1 },
        { document: b64(fixture('test.doc')), documentDivider: 'NewSection' },
        { document: b64(rtf), documentDivider: 2 },
        { document: b64(html), documentDivider: 3 },
      ],
      documentSettings: { author: 'Ann', documentTitle: 'Joined' },
    };
    const reply = await append('returnFormat=PDF', body);
    assert.equal(reply.status, 200, reply.text);
    const pdf = Buffer.from(reply.json() as string, 'base64');
    const facts = pdfFacts(pdf);
    assert.equal(facts.pages, 3);
    const order = ['A Test File', 'Test', 'From RTF', 'From HTML'].map((t) => facts.text.indexOf(t));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)),
      facts.text,
    );
    const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
    assert.equal(doc.getMetaData('info:Title'), 'Joined');
    for (const format of ['DOCX', 'DOC', 'RTF', 'HTML', 'TXT', 'PDFA']) {
      assert.equal((await append(`returnFormat=${format}`, body)).status, 200, format);
    }
    const docx = Buffer.from(
      (
        await append('returnFormat=DOCX', {
          documents: body.documents.slice(0, 1).concat([{ document: b64(fixture('test_document.docx')), documentDivider: 1 }]),
        })
      ).json() as string,
      'base64',
    );
    assert.match(partText(docx), /A Test FileA Test File/);
  });

  it('counts one document per request and watermarks test runs', async () => {
    const settings = async () => ((await c.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const before = await settings();
    const documents = [
      { document: b64(fixture('test_document.docx')) },
      { document: b64(fixture('test_document.docx')), documentDivider: 3 },
    ];
    assert.equal((await append('returnFormat=PDF', { documents })).status, 200);
    assert.equal((await append('returnFormat=PDF&test=true', { documents })).status, 200);
    assert.equal(await settings(), before + 1);
  });

  it('refuses bad input with a 400 that names the entry', async () => {
    const good = { document: b64(fixture('test_document.docx')), documentDivider: 1 };
    const cases: [unknown, RegExp][] = [
      [undefined, /request body is empty/],
      [{}, /^documents is missing: send an array/],
      [{ documents: [{ document: 5 }] }, /documents\[0\]\.document must be the document .* as a Base64 string, not a JSON number/],
      [{ documents: [good], documentSettings: { author: 7 } }, /documentSettings\.author must be the author .*, not a JSON number/],
      [{ documents: [] }, /empty array/],
      [{ documents: 'x' }, /must be an array/],
      [{ documents: [good, 5] }, /documents\[1\] must be an object/],
      [{ documents: [good, { document: b64(Buffer.from('plain words')) }] }, /documents\[1\] cannot be used: The data is not a document/],
      [{ documents: [good, { document: b64(fixture('maelzel_machine.pdf')) }] }, /documents\[1\] is PDF, which is not accepted/],
      [{ documents: [good, { document: 'not base64!' }] }, /documents\[1\]\.document is not valid Base64/],
      [{ documents: [good, { ...good, documentDivider: 9 }] }, /documents\[1\]\.documentDivider must be 1/],
      [{ documents: [good], documentSettings: { creationDate: 'yesterday' } }, /documentSettings\.creationDate/],
    ];
    for (const [body, expected] of cases) {
      const reply = body === undefined ? await c.post('/v1/document/append?returnFormat=PDF') : await append('returnFormat=PDF', body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)?.slice(0, 80)}: ${reply.text}`);
      assert.match(message(reply), expected);
    }
  });
});
