import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { imageSize } from 'image-size';
import { fixture } from '../helpers/server.js';
import { pagelessPdf } from '../helpers/hostile.js';
import { unreadableTx } from '../helpers/tx.js';
import { errorMessage as message, type Client } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { docx, p, run } from '../helpers/docx.js';

const b64 = (b: Buffer) => b.toString('base64');
const images = (reply: { json(): unknown }) => (reply.json() as string[]).map((s) => Buffer.from(s, 'base64'));
const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  PNG: (b) => b.subarray(0, 8).toString('hex') === '89504e470d0a1a0a',
  JPG: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  GIF: (b) => b.subarray(0, 6).toString('latin1') === 'GIF89a',
  BMP: (b) => b.subarray(0, 2).toString('latin1') === 'BM',
};

describe('thumbnails and page counts', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  before(async () => {
    env = await serverWithAccounts({ viewer: { licence: 'SN-VIEW' } }, { DOCSMITH_OFFICE_PROCESSES: '2' });
    c = env.clients.viewer!;
  });
  after(() => env.close());

  const thumbs = (query: string, document: Buffer) => c.post(`/v1/document/thumbnails?${query}`, { json: b64(document) });
  const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
  const threePages = docx(p(run('One')) + pageBreak + p(run('Two')) + pageBreak + p(run('Three')));
  let threePagePdf: Buffer;
  before(async () => {
    threePagePdf = Buffer.from(
      (await c.post('/v1/document/convert?returnFormat=PDF', { json: b64(threePages) })).json() as string,
      'base64',
    );
  });

  it('writes real PNG, JPG, GIF and BMP files with the pixel size of the zoom', async () => {
    // An A4 page (595 x 842 pt) at zoom 100 is 794 x 1123 pixels (96 dpi).
    for (const format of Object.keys(SIGNATURES)) {
      for (const zoom of [50, 100, 200]) {
        const reply = await thumbs(`imageFormat=${format}&zoomFactor=${zoom}`, fixture('maelzel_machine.pdf'));
        assert.equal(reply.status, 200, reply.text);
        const [first] = images(reply);
        assert.ok(SIGNATURES[format]!(first!), `${format} signature`);
        const size = imageSize(first!);
        const expectedWidth = Math.ceil(((612 * zoom) / 100) * (96 / 72));
        assert.ok(
          Math.abs(size.width! - expectedWidth) <= 2 || Math.abs(size.width! - Math.ceil(((595.3 * zoom) / 100) * (96 / 72))) <= 2,
          `${format} ${zoom}: ${size.width}`,
        );
      }
    }
  });

  it('takes 1-based inclusive page ranges, toPage=0 meaning the last page', async () => {
    const pdf = threePagePdf;
    const all = images(await thumbs('', pdf));
    assert.equal(all.length, 3);
    assert.equal(images(await thumbs('fromPage=2&toPage=0', pdf)).length, all.length - 1);
    assert.equal(images(await thumbs('fromPage=1&toPage=1', pdf)).length, 1);
    const last = images(await thumbs(`fromPage=${all.length}`, pdf));
    assert.ok(last[0]!.equals(all[all.length - 1]!));
  });

  it('renders the fixtures: a spreadsheet, a Word 97 document, a PDF and a DOCX with images', async () => {
    for (const name of ['cash.xlsx', 'test.doc', 'maelzel_machine.pdf', 'construction_turk.docx']) {
      const reply = await thumbs('zoomFactor=25', fixture(name));
      assert.equal(reply.status, 200, `${name}: ${reply.text}`);
      assert.ok(images(reply).length >= 1);
    }
  });

  it('serves stored templates: page count, thumbnails, and new ones after a replace', async () => {
    const twoPages = docx(p(run('Page one')) + '<w:p><w:r><w:br w:type="page"/></w:r></w:p>' + p(run('Page two')));
    assert.equal((await c.upload('pages.docx', twoPages)).status, 201);
    assert.equal((await c.get('/v1/templates/pagecount?templateName=pages.docx')).text, '2');
    const first = images(await c.get('/v1/templates/thumbnails?templateName=pages.docx&zoomFactor=30'));
    assert.equal(first.length, 2);
    const again = images(await c.get('/v1/templates/thumbnails?templateName=pages.docx&zoomFactor=30'));
    assert.ok(again[0]!.equals(first[0]!), 'cached and identical');
    assert.equal((await c.upload('pages.docx', docx(p(run('Only one page now'))))).status, 201);
    assert.equal((await c.get('/v1/templates/pagecount?templateName=pages.docx')).text, '1');
    const replaced = images(await c.get('/v1/templates/thumbnails?templateName=pages.docx&zoomFactor=30'));
    assert.equal(replaced.length, 1);
    assert.ok(!replaced[0]!.equals(first[0]!));
  });

  it('counts thumbnails against the quota', async () => {
    const settings = async () => ((await c.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const before = await settings();
    await thumbs('zoomFactor=10', fixture('maelzel_machine.pdf'));
    await c.get('/v1/templates/thumbnails?templateName=pages.docx&zoomFactor=10');
    await c.get('/v1/templates/pagecount?templateName=pages.docx');
    assert.equal(await settings(), before + 2);
  });

  it('refuses bad requests with a clear 400', async () => {
    const pdf = threePagePdf;
    const cases: [string, Buffer | string, RegExp][] = [
      ['zoomFactor=0', pdf, /zoomFactor must be from 1 to 400/],
      ['zoomFactor=401', pdf, /zoomFactor must be from 1 to 400/],
      ['zoomFactor=abc', pdf, /zoomFactor must be a whole number/],
      ['imageFormat=TIFF', pdf, /imageFormat "TIFF" is not supported/],
      ['fromPage=0', pdf, /fromPage must be from 1/],
      ['fromPage=99', pdf, /outside it/],
      ['fromPage=2&toPage=1', pdf, /fromPage \(2\) is after toPage \(1\)/],
      ['', unreadableTx(), /TX Text Control/],
      ['', Buffer.from('garbage bytes here'), /not a document in a format we read \(DOCX, DOC, RTF, TX, HTML, PDF, XLSX\)/],
      ['', pagelessPdf(), /no page that can be read/],
      ['', pdf.subarray(0, 500), /./],
    ];
    for (const [query, body, expected] of cases) {
      const reply = typeof body === 'string' ? await c.post(`/v1/document/thumbnails?${query}`, { json: body }) : await thumbs(query, body);
      assert.equal(reply.status, 400, `${query}: ${reply.text.slice(0, 200)}`);
      assert.match(message(reply), expected);
    }
    // The output guard: 16 A4 pages at zoom 400 are over 200 megapixels.
    const many = docx(Array.from({ length: 16 }, (_, i) => p(run(`Page ${i + 1}`))).join(pageBreak));
    const huge = await thumbs('zoomFactor=400', many);
    assert.equal(huge.status, 400);
    assert.match(message(huge), /megapixels; the limit is 200/);
    assert.equal((await thumbs('zoomFactor=400&fromPage=1&toPage=1', many)).status, 200);
    assert.equal((await c.get('/v1/templates/thumbnails?templateName=missing.docx')).status, 400);
    assert.equal((await c.get('/v1/templates/pagecount?templateName=missing.docx')).status, 400);
  });

  it('previews a merge as page images (docsmith extension): one document counted, test runs none', async () => {
    const template = docx(p(run('Dear ')) + pageBreak + p(run('Page two')));
    const used = async () => ((await c.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const start = await used();
    const reply = await c.post('/v1/document/preview?zoomFactor=25&imageFormat=JPG', {
      json: { template: b64(template), mergeData: [{}, {}] },
    });
    assert.equal(reply.status, 200, reply.text);
    const pages = images(reply);
    assert.equal(pages.length, 4, 'two records appended, two pages each');
    assert.ok(SIGNATURES.JPG!(pages[0]!));
    assert.equal(await used(), start + 1);
    assert.equal(
      images(await c.post('/v1/document/preview?test=true&fromPage=2&toPage=2', { json: { template: b64(template), mergeData: {} } }))
        .length,
      1,
    );
    assert.equal(await used(), start + 1, 'a test preview is not counted');
    const cases: [string, unknown, RegExp][] = [
      ['', { mergeData: [{}] }, /No template/],
      ['zoomFactor=999', { template: b64(template), mergeData: [{}] }, /zoomFactor must be from 1 to 400/],
      ['', { template: b64(template) }, /mergeData is missing/],
      ['templateName=missing.docx', { mergeData: [{}] }, /missing\.docx/],
    ];
    for (const [query, body, expected] of cases) {
      const bad = await c.post(`/v1/document/preview?${query}`, { json: body });
      assert.equal(bad.status, 400, `${query}: ${bad.text.slice(0, 200)}`);
      assert.match(message(bad), expected);
    }
    assert.equal(await used(), start + 1, 'refused previews are not counted');
  });
});
