import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage as message, type Client } from '../helpers/http.js';
import { docx, zipBomb } from '../helpers/hostile.js';
import { zipSync, strToU8, unzipSync } from 'fflate';

const b64 = (b: Buffer) => b.toString('base64');

/** A DOCX whose document part is `xml` (any bytes: malformed, with a DOCTYPE, ...). */
function withDocumentXml(xml: string): Buffer {
  const files = unzipSync(docx(''));
  files['word/document.xml'] = strToU8(xml);
  return Buffer.from(zipSync(files));
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const deep = withDocumentXml(`<w:document ${W}><w:body>${'<w:sdt><w:sdtContent>'.repeat(5000)}<w:p/>${'</w:sdtContent></w:sdt>'.repeat(5000)}</w:body></w:document>`);
const doctype = withDocumentXml(`<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><w:document ${W}><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>`);
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
    const names = ((await c.get('/v1/templates/list')).json() as { templateName: string }[]).map((t) => t.templateName).filter((n) => n.startsWith('Caf'));
    assert.deepEqual(names, [composed]);
    assert.equal((await c.get(`/v1/templates/exists?templateName=${encodeURIComponent(decomposed)}`)).json(), true);
    for (const sneaky of ['invoice\u202Excod.docx', 'in\u200Bvoice.docx', '\uFEFFinvoice.docx', 'a\u2066b.docx']) {
      const reply = await c.upload(sneaky, docx(''));
      assert.equal(reply.status, 400, sneaky);
      assert.match(message(reply), /invisible formatting character/);
    }
  });
});
