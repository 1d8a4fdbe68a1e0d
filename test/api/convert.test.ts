import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync } from 'fflate';
import CFB from 'cfb';
import fs from 'node:fs';
import path from 'node:path';
import { fixture, ROOT } from '../helpers/server.js';
import { unreadableTx } from '../helpers/tx.js';
import { type Client, errorMessage as message } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { pdfFacts, redShare } from '../helpers/office.js';
import { detectFormat } from '../../src/formats/detect.js';
import { TEST_WATERMARK } from '../../src/ooxml/watermark.js';
import { readTx } from '../../src/formats/tx/read.js';
import { block, docx, mergefield, p, run } from '../helpers/docx.js';

const RTF = Buffer.from('{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Liberation Serif;}}\\f0\\fs24 Hello from RTF\\par}');
const HTML = Buffer.from(
  '<!DOCTYPE html><html><head><title>t</title></head><body><p>Hello from <b>HTML</b></p>' +
    '<img src="http://127.0.0.1:9/tracker.png"><img src="file:///etc/passwd"></body></html>',
);

const INPUTS: [string, Buffer, string][] = [
  ['DOCX', fixture('test_document.docx'), 'A Test File'],
  ['DOC', fixture('test.doc'), 'Test'],
  ['RTF', RTF, 'Hello from RTF'],
  ['HTML', HTML, 'Hello from HTML'],
];

describe('POST /v1/document/convert with the real office engine', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let paid: Client;
  let trial: Client;
  before(async () => {
    env = await serverWithAccounts({ paid: { licence: 'SN-1' }, trial: { maxDocuments: 3 } }, { DOCSMITH_OFFICE_PROCESSES: '2' });
    paid = env.clients.paid!;
    trial = env.clients.trial!;
  });
  after(() => env.close());

  const convert = async (input: Buffer, format: string, extra = '') => {
    const reply = await paid.post(`/v1/document/convert?returnFormat=${format}${extra}`, { json: input.toString('base64') });
    assert.equal(reply.status, 200, `${format}: ${reply.text.slice(0, 300)}`);
    return Buffer.from(reply.json() as string, 'base64');
  };

  it('reports ready only with the office warm, and lists the rendering fonts', async () => {
    const ready = (await paid.get('/readyz')).json() as { officeWorkers: number };
    assert.equal(ready.officeWorkers, 2);
    const fonts = (await paid.get('/v1/fonts/list')).json() as string[];
    for (const name of ['Arial', 'Times New Roman', 'Courier New', 'Carlito', 'Liberation Sans', 'DejaVu Sans'])
      assert.ok(fonts.includes(name), name);
  });

  it('converts the TXT fixture exactly', async () => {
    assert.equal((await convert(fixture('test_document.docx'), 'TXT')).toString('latin1'), 'A Test File\r\n');
  });

  for (const [name, input, text] of INPUTS) {
    it(`converts ${name} to every return format`, async () => {
      const pdf = await convert(input, 'pdf');
      const facts = pdfFacts(pdf);
      assert.equal(facts.pages, 1);
      assert.match(facts.text, new RegExp(text));
      assert.ok(!pdf.includes('pdfaid:part'), 'plain PDF is not PDF/A');

      const pdfa = await convert(input, 'PDFA');
      assert.match(pdfa.toString('latin1'), /pdfaid:part[^0-9]{1,4}2/);
      assert.match(pdfFacts(pdfa).text, new RegExp(text));

      const docx = await convert(input, 'DOCX');
      const parts = unzipSync(docx);
      assert.ok(parts['word/document.xml'] && parts['[Content_Types].xml']);
      assert.equal(detectFormat(docx).ok && (detectFormat(docx) as { format: string }).format, 'docx');
      assert.match(Buffer.from(parts['word/document.xml']!).toString('utf8'), new RegExp(text.split(' ').pop()!));

      const doc = await convert(input, 'doc');
      assert.equal(doc.subarray(0, 8).toString('hex'), 'd0cf11e0a1b11ae1');
      assert.equal((detectFormat(doc) as { format: string }).format, 'doc');

      const rtf = await convert(input, 'Rtf');
      assert.ok(rtf.toString('latin1').startsWith('{\\rtf'));

      const html = (await convert(input, 'HTML')).toString('utf8');
      assert.match(html.replace(/<[^>]+>/g, ''), new RegExp(text.split(' ').pop()!));
      assert.ok(!/(src|href)="(https?:|file:)/i.test(html), 'no external references');

      const txt = (await convert(input, 'txt')).toString('utf8');
      assert.ok(txt.includes(text.replace(/<[^>]+>/g, '')), txt);
      assert.ok(txt.endsWith('\r\n') && !txt.startsWith('\uFEFF'));
    });
  }

  it('keeps images embedded in HTML output', async () => {
    const html = (await convert(fixture('construction_turk.docx'), 'HTML')).toString('utf8');
    assert.ok((html.match(/src="data:image\//g) ?? []).length >= 2);
  });

  it('reads Word 6.0 and Word 95 documents with their own import filters', async () => {
    const { legacyWordDoc } = await import('../helpers/hostile.js');
    assert.match((await convert(legacyWordDoc('Hello from Word six.'), 'TXT')).toString('utf8'), /Hello from Word six\./);
    assert.match((await convert(legacyWordDoc('Hello from Word 95.', { nFib: 104 }), 'TXT')).toString('utf8'), /Hello from Word 95\./);
    assert.ok(pdfFacts(await convert(legacyWordDoc('To PDF.'), 'PDF')).text.includes('To PDF.'));
  });

  it('reads a DOC whose compound structure is damaged through the sandboxed office, and refuses a cut-off one', async () => {
    // A fuzzed Word 97 file (Apache POI's test data): our OLE reader cannot take it apart, LibreOffice lays out 8 pages.
    const fuzzed = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'damaged', 'fuzzed-word97.doc'));
    assert.throws(() => CFB.read(fuzzed, { type: 'buffer' }), 'the fixture still defeats the OLE reader');
    assert.deepEqual(detectFormat(fuzzed), { ok: true, format: 'doc' });
    const pdf = pdfFacts(await convert(fuzzed, 'PDF'));
    assert.equal(pdf.pages, 8, 'the 8 pages LibreOffice lays out on its own');
    assert.ok(pdf.text.trim().length > 1000);
    const docx = unzipSync(await convert(fuzzed, 'DOCX'));
    assert.ok(docx['word/document.xml'], 'DOCX output is a Word package');
    const stub = await paid.post('/v1/document/convert?returnFormat=PDF', { json: fuzzed.subarray(0, 4096).toString('base64') });
    assert.equal(stub.status, 400);
    assert.match(message(stub), /damaged OLE compound file/);
    // A sound header over garbage: the office gets its try, fails, and the answer says so.
    const garbage = Buffer.concat([fuzzed.subarray(0, 512), Buffer.alloc(16_384, 0x5a)]);
    const unreadable = await paid.post('/v1/document/convert?returnFormat=PDF', { json: garbage.toString('base64') });
    assert.equal(unreadable.status, 400, unreadable.text);
    assert.match(message(unreadable), /damaged .* the office could not read it either/);
    assert.equal((await convert(fixture('test_document.docx'), 'TXT')).toString('latin1'), 'A Test File\r\n', 'still healthy');
  });

  it('writes HTML without line breaks inside text, and reads HTML fragments', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `Awesome Facts number ${i}`).join(', ');
    const html = (await convert(Buffer.from(`<div><p>${words}.</p></div>`), 'HTML')).toString('utf8');
    assert.ok(html.includes(words), 'the paragraph comes out as one line of text');
    const docxOut = await convert(Buffer.from('<p>Just a <b>fragment</b></p>'), 'TXT');
    assert.match(docxOut.toString('utf8'), /Just a fragment/);
  });

  it('extracts the text of a PDF, and passes a PDF through', async () => {
    const txt = (await convert(fixture('maelzel_machine.pdf'), 'TXT')).toString('utf8');
    assert.match(txt, /^Mälzel and the Machine\r\n/);
    const pdf = await convert(fixture('maelzel_machine.pdf'), 'PDF');
    assert.ok(pdf.equals(fixture('maelzel_machine.pdf')));
    const refused = await paid.post('/v1/document/convert?returnFormat=DOCX', { json: fixture('maelzel_machine.pdf').toString('base64') });
    assert.equal(refused.status, 400);
    assert.match(message(refused), /PDF documents can be converted to TXT or PDF only/);
  });

  it('converts templates to DOCX keeping their fields, switches and blocks: the result has the template info of its source (docsmith)', async () => {
    const rtf = Buffer.from(
      '{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Liberation Serif;}}\\f0\\fs24 Total: ' +
        '{\\field{\\*\\fldinst { MERGEFIELD total \\\\# "#,##0.00" }}{\\fldrslt {\\u171\\\'abtotal\\u187\\\'bb}}}' +
        ' due {\\field{\\*\\fldinst { MERGEFIELD due \\\\@ "d MMMM yyyy" }}{\\fldrslt {due}}}\\par}',
    );
    const sources: [string, Buffer][] = [
      ['invoice.tx', fs.readFileSync(path.join(ROOT, 'samples', 'reportingcloud', 'sample_invoice.tx'))],
      [
        'letter.docx',
        docx(
          p(run('Dear '), mergefield('name', '\\* Upper')) +
            block('items', p(mergefield('item'), run(' '), mergefield('price', '\\# "0.00"'))) +
            p(run('Due '), mergefield('due', '\\@ "dd.MM.yyyy"')),
        ),
      ],
      ['fields.rtf', rtf],
      [
        'mail.doc',
        fs.readFileSync(
          path.join(ROOT, 'test', 'fixtures', 'real-templates', 'aspose-words+Aspose.Words-for-.NET', 'Examples', 'Data', 'Mail merge.doc'),
        ),
      ],
    ];
    const info = async (name: string) => {
      const reply = await paid.get(`/v1/templates/info?templateName=${encodeURIComponent(name)}`);
      assert.equal(reply.status, 200, `${name}: ${reply.text}`);
      const { templateName: _, ...rest } = reply.json() as Record<string, unknown>;
      return rest;
    };
    for (const [name, bytes] of sources) {
      assert.equal((await paid.upload(name, bytes)).status, 201, name);
      const converted = await convert(bytes, 'DOCX');
      assert.equal(detectFormat(converted).ok && (detectFormat(converted) as { format: string }).format, 'docx', name);
      assert.equal((await paid.upload(`${name}.docx`, converted)).status, 201, name);
      const source = await info(name);
      const fields = (source as { mergeFields: unknown[] }).mergeFields;
      assert.ok(fields.length > 0, `${name} has fields`);
      assert.deepEqual(await info(`${name}.docx`), source, `${name}: the converted template reads as its source`);
    }
    const invoice = (await info('invoice.tx')) as { mergeFields: unknown[]; mergeBlocks: unknown[] };
    assert.deepEqual([invoice.mergeFields.length, invoice.mergeBlocks.length], [33, 1], 'the SDK invoice: 33 fields and its block');
    // To TX: the fields and the block stay too, and what TX cannot hold is named.
    const invoiceTx = readTx(await convert(sources[0]![1], 'TX'));
    const sourceTx = readTx(sources[0]![1]);
    const instructions = (doc: typeof sourceTx) =>
      [doc, doc.footer].flatMap((story) => [...(story?.fields.values() ?? [])].map((f) => f.instruction.join(' ')));
    assert.deepEqual(instructions(invoiceTx), instructions(sourceTx), 'every field of the body and the footer, switches too');
    assert.ok(
      Buffer.from(invoiceTx.keptFile!.settings).equals(Buffer.from(sourceTx.keptFile!.settings)),
      'its own settings and style sheet',
    );
    assert.deepEqual(
      invoiceTx.marks.map((m) => m.name),
      ['txmb_item'],
    );
    const letterTx = readTx(await convert(sources[1]![1], 'TX'));
    assert.deepEqual(
      [...letterTx.fields.values()].map((f) => f.instruction.join(' ')),
      ['MERGEFIELD name \\* Upper', 'MERGEFIELD item', 'MERGEFIELD price \\# "0.00"', 'MERGEFIELD due \\@ "dd.MM.yyyy"'],
    );
    assert.deepEqual(
      letterTx.marks.map((m) => m.name),
      ['txmb_items'],
    );
    const letter = sources[1]![1];
    assert.ok((await convert(letter, 'DOCX')).equals(letter), 'a DOCX that needs nothing removed comes back as it was');
    const stamped = await convert(letter, 'DOCX', '&test=true');
    const parts = Object.values(unzipSync(stamped)).map((part) => Buffer.from(part).toString('utf8'));
    assert.ok(
      parts.some((part) => part.includes(TEST_WATERMARK)),
      'a test run is stamped, in DOCX too',
    );
    for (const name of ['invoice.tx', 'letter.docx', 'fields.rtf', 'mail.doc']) {
      await paid.delete(`/v1/templates/delete?templateName=${encodeURIComponent(name)}`);
      await paid.delete(`/v1/templates/delete?templateName=${encodeURIComponent(`${name}.docx`)}`);
    }
  });

  it('stamps TEST MODE on test runs and does not count them', async () => {
    const before = ((await paid.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const plain = await convert(fixture('test_document.docx'), 'PDF');
    const stamped = await convert(fixture('test_document.docx'), 'PDF', '&test=true');
    assert.ok(redShare(plain) < 0.001);
    assert.ok(redShare(stamped) > 0.01, `red share ${redShare(stamped)}`);
    const html = (await convert(fixture('test_document.docx'), 'HTML', '&test=true')).toString('utf8');
    assert.match(html, /<title>ReportingCloud Test Mode<\/title>/);
    const after = ((await paid.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    assert.equal(after, before + 1);
  });

  it('counts one document per conversion and refuses at the quota', async () => {
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        trial.post('/v1/document/convert?returnFormat=TXT', { json: fixture('test_document.docx').toString('base64') }),
      ),
    );
    assert.equal(replies.filter((r) => r.status === 200).length, 3);
    assert.equal(replies.filter((r) => r.status === 403).length, 2);
    assert.equal(
      (await trial.post('/v1/document/convert?returnFormat=TXT&test=true', { json: fixture('test_document.docx').toString('base64') }))
        .status,
      403,
    );
  });

  it('answers 30 concurrent conversions with the pool of 2', async () => {
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        paid.post(`/v1/document/convert?returnFormat=${i % 2 ? 'PDF' : 'TXT'}`, { json: fixture('test_document.docx').toString('base64') }),
      ),
    );
    assert.deepEqual([...new Set(replies.map((r) => r.status))], [200]);
  });

  it('refuses bad input with a clear 400 and stays healthy', async () => {
    const docx = fixture('test_document.docx');
    const brokenXml = Buffer.from(docx); // a valid package whose main part is garbage
    const cases: [string, string, RegExp][] = [
      ['PDF', unreadableTx().toString('base64'), /TX Text Control/],
      ['PDF', Buffer.from('just some words').toString('base64'), /not a document in a format we read \(DOCX, DOC, RTF, TX, HTML, PDF\)\./],
      ['PDF', docx.subarray(0, 2000).toString('base64'), /damaged ZIP/],
      ['PDF', fixture('test.doc').subarray(0, 3000).toString('base64'), /damaged/],
      ['PDF', fixture('cash.xlsx').toString('base64'), /XLSX, which is not accepted here/],
      ['PDF', 'not base64!', /not valid Base64/],
      ['TX', fixture('maelzel_machine.pdf').toString('base64'), /A PDF cannot be converted to TX/],
      ['XPS', docx.toString('base64'), /returnFormat "XPS" is not supported/],
      ['', docx.toString('base64'), /"returnFormat" is required/],
    ];
    for (const [format, body, expected] of cases) {
      const reply = await paid.post(`/v1/document/convert?returnFormat=${format}`, { json: body });
      assert.equal(reply.status, 400, `${format} ${body.slice(0, 20)}: ${reply.text}`);
      assert.match(message(reply), expected);
    }
    void brokenXml;
    const container = CFB.utils.cfb_new();
    CFB.utils.cfb_add(container, '/EncryptionInfo', Buffer.alloc(64, 1));
    CFB.utils.cfb_add(container, '/EncryptedPackage', Buffer.alloc(4096, 2));
    const encrypted = await paid.post('/v1/document/convert?returnFormat=PDF', {
      json: (CFB.write(container, { type: 'buffer' }) as Buffer).toString('base64'),
    });
    assert.equal(encrypted.status, 400);
    assert.match(message(encrypted), /password-protected/);
    const docm = zipSync({
      '[Content_Types].xml': Buffer.from('<Types><Override ContentType="application/vnd.ms-word.document.macroEnabled.main+xml"/></Types>'),
    });
    const macro = await paid.post('/v1/document/convert?returnFormat=PDF', { json: Buffer.from(docm).toString('base64') });
    assert.equal(macro.status, 400);
    assert.match(message(macro), /Macro-enabled/);
    const random = Buffer.from(Array.from({ length: 5000 }, () => Math.floor(Math.random() * 256)));
    random.write('PK\u0003\u0004', 0, 'latin1');
    assert.equal((await paid.post('/v1/document/convert?returnFormat=PDF', { json: random.toString('base64') })).status, 400);
    assert.equal((await convert(docx, 'TXT')).toString('latin1'), 'A Test File\r\n', 'still healthy');
  });
});
