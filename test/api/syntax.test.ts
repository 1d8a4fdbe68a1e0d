// Templates typed in another product's syntax (templateSyntax=docxtemplater), made in LibreOffice
// Writer the way a user types them: tags split over runs where the formatting changes mid-tag.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import PizZip from 'pizzip';
import Docxtemplater from 'docxtemplater';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage, type Client } from '../helpers/http.js';
import { pdfFacts, writerDocx } from '../helpers/office.js';
import { docx, p, partText, partXml, run } from '../helpers/docx.js';
import { until } from '../helpers/wait.js';
import { tempDir } from '../helpers/server.js';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

type CarboneRender = (file: string, data: object, options: object, done: (error: Error | null, result: Buffer) => void) => void;
const carbone = createRequire(import.meta.url)('carbone') as { render: CarboneRender };

const b64 = (b: Buffer) => b.toString('base64');
const decode = (reply: { json(): unknown }) => (reply.json() as string[]).map((d) => Buffer.from(d, 'base64'));

const FODT_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?><office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">' +
  '<office:automatic-styles><style:style style:name="B" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style></office:automatic-styles>';

const cellOf = (content: string) => `<table:table-cell><text:p>${content}</text:p></table:table-cell>`;

/** An invoice typed in Writer: a bold half of a tag, a section, a row loop across three cells. */
const typedInWriter = () =>
  writerDocx(
    FODT_HEAD +
      '<office:body><office:text>' +
      '<text:p>Invoice for {cus<text:span text:style-name="B">tomer</text:span>}</text:p>' +
      '<text:p>{#vip}Thank you for being a VIP.{/vip}{^vip}Welcome.{/vip}</text:p>' +
      '<table:table table:name="Items"><table:table-column table:number-columns-repeated="3"/>' +
      `<table:table-row>${cellOf('Name')}${cellOf('Qty')}${cellOf('Price')}</table:table-row>` +
      `<table:table-row>${cellOf('{#items}{name}')}${cellOf('{qty}')}${cellOf('{price}{/items}')}</table:table-row>` +
      '</table:table>' +
      '<text:p>Total: {total}</text:p>' +
      '</office:text></office:body></office:document>',
  );

const DATA = {
  customer: 'ACME Corp',
  vip: true,
  items: [
    { name: 'Bolts', qty: 3, price: '1.50' },
    { name: 'Nuts', qty: 4, price: '0.75' },
  ],
  total: '7.50',
};

function docxtemplater(template: Buffer, data: object): Buffer {
  const doc = new Docxtemplater(new PizZip(template), { paragraphLoop: true, linebreaks: true, nullGetter: () => '' });
  doc.render(data);
  return doc.getZip().generate({ type: 'nodebuffer' });
}

describe('templates typed in docxtemplater’s syntax (templateSyntax=docxtemplater)', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  let template: Buffer;
  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-TAGS' } }, { DOCSMITH_OFFICE_PROCESSES: '1' });
    ann = env.clients.ann!;
    template = typedInWriter();
  });
  after(() => env.close());

  it('stores the syntax with the template: template info lists its tags as fields and blocks, merges give docxtemplater’s text', async () => {
    // Writer split the tag where the bold starts: two runs, one tag.
    assert.match(partXml(template), /\{cus<\/w:t>[\s\S]*?<w:b\/>[\s\S]*?tomer<\/w:t>[\s\S]*?<w:t>\}/);
    assert.equal(
      (await ann.post('/v1/templates/upload?templateName=typed.docx&templateSyntax=docxtemplater', { json: b64(template) })).status,
      201,
    );
    const info = (await ann.get('/v1/templates/info?templateName=typed.docx')).json() as {
      templateSyntax: string;
      mergeFields: { name: string }[];
      mergeBlocks: { name: string; mergeFields: { name: string }[] }[];
    };
    assert.equal(info.templateSyntax, 'docxtemplater');
    assert.deepEqual(
      info.mergeFields.map((f) => f.name),
      ['customer', 'total'],
    );
    assert.deepEqual(
      info.mergeBlocks.map((b) => [b.name, b.mergeFields.map((f) => f.name)]),
      [
        ['vip', []],
        ['vip', []],
        ['items', ['name', 'qty', 'price']],
      ],
    );

    const [merged] = decode(
      await ann.post('/v1/document/merge?returnFormat=DOCX&templateName=typed.docx', { json: { mergeData: [DATA] } }),
    );
    assert.equal(partText(merged!), partText(docxtemplater(template, DATA)));
    assert.match(
      partText(merged!),
      /Invoice for ACME Corp\nThank you for being a VIP.\nName\nQty\nPrice\nBolts\n3\n1.50\nNuts\n4\n0.75\nTotal: 7.50/,
    );
    // The value wears the formatting of the tag's first character (not bold), as in docxtemplater.
    assert.match(partXml(merged!), /<w:t xml:space="preserve">ACME Corp<\/w:t>/);

    const pdf = decode(
      await ann.post('/v1/document/merge?returnFormat=PDF&templateName=typed.docx', { json: { mergeData: [{ ...DATA, vip: false }] } }),
    );
    const text = pdfFacts(pdf[0]!).text;
    for (const expected of ['Invoice for ACME Corp', 'Welcome.', 'Bolts', 'Nuts', 'Total: 7.50'])
      assert.ok(text.includes(expected), expected);
    assert.ok(!text.includes('VIP') && !text.includes('{'), text);

    const check = (
      await ann.post('/v1/document/checkdata?templateName=typed.docx', { json: { mergeData: [{ customer: 'X', extra: 1 }] } })
    ).json() as Record<string, unknown>;
    assert.match(JSON.stringify(check), /total/);
  });

  it('takes the syntax with a template sent in the request, in a background job too; without it the tags are plain text', async () => {
    const body = { mergeData: [DATA], template: b64(template) };
    const [sent] = decode(await ann.post('/v1/document/merge?returnFormat=TXT&templateSyntax=docxtemplater', { json: body }));
    assert.match(sent!.toString('utf8'), /Invoice for ACME Corp/);
    const [plain] = decode(await ann.post('/v1/document/merge?returnFormat=TXT', { json: body }));
    assert.match(plain!.toString('utf8'), /Invoice for \{customer\}/);

    const job = (await ann.post('/v1/document/merge?returnFormat=TXT&templateSyntax=docxtemplater&async=true', { json: body })).json() as {
      id: string;
    };
    await until('the job finished', async () => ((await ann.get(`/v1/jobs/${job.id}`)).json() as { state: string }).state === 'done');
    const result = (await ann.get(`/v1/jobs/${job.id}/result`)).json() as string[];
    assert.match(Buffer.from(result[0]!, 'base64').toString('utf8'), /Invoice for ACME Corp/);

    // A stored template's syntax is overridden by the request's.
    assert.equal((await ann.upload('untyped.docx', template)).status, 201);
    const [typed] = decode(
      await ann.post('/v1/document/merge?returnFormat=TXT&templateName=untyped.docx&templateSyntax=docxtemplater', {
        json: { mergeData: [DATA] },
      }),
    );
    assert.match(typed!.toString('utf8'), /Invoice for ACME Corp/);
  });

  it('merges a template typed in Carbone’s syntax in Writer to Carbone’s text, numbers in the culture asked for', async () => {
    const typed = writerDocx(
      FODT_HEAD +
        '<office:body><office:text>' +
        '<text:p>Invoice for {d.cus<text:span text:style-name="B">tomer</text:span>:upperCase}</text:p>' +
        '<table:table table:name="Items"><table:table-column table:number-columns-repeated="3"/>' +
        `<table:table-row>${cellOf('Name')}${cellOf('Qty')}${cellOf('Price')}</table:table-row>` +
        `<table:table-row>${cellOf('{d.items[i].name}')}${cellOf('{d.items[i].qty}')}${cellOf('{d.items[i].price:formatC}')}</table:table-row>` +
        `<table:table-row>${cellOf('{d.items[i+1].name}')}${cellOf('')}${cellOf('')}</table:table-row>` +
        '</table:table>' +
        '<text:p>Total: {d.total:formatN(2)} on {d.date:formatD(DD.MM.YYYY)}</text:p>' +
        '</office:text></office:body></office:document>',
    );
    const data = {
      customer: 'Acme',
      items: [
        { name: 'Bolts', qty: 3, price: 1.5 },
        { name: 'Nuts', qty: 4, price: 0.75 },
      ],
      total: 7.5,
      date: '2026-11-29',
    };
    assert.equal(
      (await ann.post('/v1/templates/upload?templateName=carbone.docx&templateSyntax=carbone', { json: b64(typed) })).status,
      201,
    );
    const info = (await ann.get('/v1/templates/info?templateName=carbone.docx')).json() as {
      templateSyntax: string;
      mergeBlocks: { name: string }[];
    };
    assert.equal(info.templateSyntax, 'carbone');
    assert.deepEqual(
      info.mergeBlocks.map((b) => b.name),
      ['items'],
    );
    const file = path.join(tempDir(), 'carbone.docx');
    fs.writeFileSync(file, typed);
    const expected = await new Promise<Buffer>((resolve, reject) =>
      carbone.render(file, data, { lang: 'de-de', timezone: 'UTC' }, (error, result) => (error ? reject(error) : resolve(result))),
    );
    const merge = (format: string) =>
      ann.post(`/v1/document/merge?returnFormat=${format}&templateName=carbone.docx`, {
        json: { mergeData: [data], mergeSettings: { culture: 'de-DE' } },
      });
    const [merged] = decode(await merge('DOCX'));
    // (What lies between the XML declaration and the document, a line break in Writer's file, Carbone writes as a space.)
    assert.equal(partText(merged!).trimStart(), partText(expected).trimStart());
    assert.match(partText(merged!), /Invoice for ACME\nName\nQty\nPrice\nBolts\n3\n1,50 €\nNuts\n4\n0,75 €\nTotal: 7,50 on 29.11.2026/);
    const text = pdfFacts(decode(await merge('PDF'))[0]!).text;
    for (const expectedText of ['Invoice for ACME', 'Bolts', '0,75 €', 'Total: 7,50 on 29.11.2026'])
      assert.ok(text.includes(expectedText), expectedText);
  });

  it('takes Carbone’s render options in mergeSettings (timezone, complement, translations), in a stored template and a background job', async () => {
    const typed = docx(
      p(run('{t(Invoice)} {t(for)} {c.company}: {d.at:formatD(LLLL)}')) + p(run('{d.name} ({c.city:upperCase}) {t(Unknown)}')),
    );
    const data = { at: '2024-05-06T22:08:09Z', name: 'Bolts' };
    const settings = {
      culture: 'fr-FR',
      timezone: 'Asia/Tokyo',
      complement: { company: 'ACME', city: 'Lyon' },
      translations: { 'fr-fr': { Invoice: 'Facture', for: 'pour' } },
    };
    const file = path.join(tempDir(), 'options.docx');
    fs.writeFileSync(file, typed);
    const expected = await new Promise<Buffer>((resolve, reject) =>
      carbone.render(
        file,
        data,
        { lang: 'fr-fr', timezone: settings.timezone, complement: settings.complement, translations: settings.translations },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    );
    assert.equal(partText(expected), 'Facture pour ACME: mardi 7 mai 2024 07:08\nBolts (LYON) Unknown');
    const body = { mergeData: [data], mergeSettings: settings, template: b64(typed) };
    const reply = await ann.post('/v1/document/merge?returnFormat=DOCX&templateSyntax=carbone', { json: body });
    assert.equal(reply.status, 200, errorMessage(reply));
    const [sent] = decode(reply);
    assert.equal(partText(sent!), partText(expected));

    assert.equal(
      (await ann.post('/v1/templates/upload?templateName=options.docx&templateSyntax=carbone', { json: b64(typed) })).status,
      201,
    );
    const stored = { mergeData: [data], mergeSettings: settings };
    const job = (await ann.post('/v1/document/merge?returnFormat=TXT&templateName=options.docx&async=true', { json: stored })).json() as {
      id: string;
    };
    await until('the job finished', async () => ((await ann.get(`/v1/jobs/${job.id}`)).json() as { state: string }).state === 'done');
    const result = (await ann.get(`/v1/jobs/${job.id}/result`)).json() as string[];
    assert.equal(Buffer.from(result[0]!, 'base64').toString('utf8').trim(), partText(expected).replace('\n', '\r\n'));
    // Another language's merge of the same stored template is translated for it, not served from the first one's.
    const [english] = decode(
      await ann.post('/v1/document/merge?returnFormat=DOCX&templateName=options.docx', {
        json: { mergeData: [data], mergeSettings: { ...settings, culture: 'en-US' } },
      }),
    );
    assert.equal(partText(english!), 'Invoice for ACME: Tuesday, May 7, 2024 7:08 AM\nBolts (LYON) Unknown');

    // The data check counts the complement's values as given.
    const check = (await ann.post('/v1/document/checkdata?templateName=options.docx', { json: stored })).json() as {
      missingFields: { name: string }[];
    };
    assert.deepEqual(check.missingFields, []);
    const without = (await ann.post('/v1/document/checkdata?templateName=options.docx', { json: { mergeData: [data] } })).json() as {
      missingFields: { name: string }[];
    };
    assert.deepEqual(without.missingFields.map((f) => f.name).sort(), ['$c.city', '$c.company']);

    const zone = await ann.post('/v1/document/merge?returnFormat=TXT&templateName=options.docx', {
      json: { mergeData: [data], mergeSettings: { timezone: 'Mars/Olympus' } },
    });
    assert.equal(zone.status, 400);
    assert.match(errorMessage(zone), /mergeSettings.timezone "Mars\/Olympus" is not a time zone; use an IANA name such as Europe\/Paris/);
  });

  it('refuses with a 400 naming the tag and where it is, before anything is stored', async () => {
    const raw = docx(p(run('Hello {@body}')));
    const upload = await ann.post('/v1/templates/upload?templateName=raw.docx&templateSyntax=docxtemplater', { json: b64(raw) });
    assert.equal(upload.status, 400);
    assert.match(
      errorMessage(upload),
      /The template "raw.docx" \(the document\), paragraph 1: the tag "\{@body\}" cannot be merged: raw XML tags/,
    );
    assert.ok(!JSON.stringify((await ann.get('/v1/templates/list')).json()).includes('raw.docx'));
    const unknown = await ann.post('/v1/document/merge?returnFormat=TXT&templateSyntax=mustache', {
      json: { mergeData: [{}], template: b64(raw) },
    });
    assert.equal(unknown.status, 400);
    assert.match(errorMessage(unknown), /templateSyntax/);
  });
});

describe('raw XML tags where the operator allows them (DOCSMITH_RAW_XML=1)', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-TAGS' } }, { DOCSMITH_OFFICE_PROCESSES: '1', DOCSMITH_RAW_XML: '1' });
    ann = env.clients.ann!;
  });
  after(() => env.close());

  it('puts the checked markup in place of its paragraph in DOCX and PDF, and answers a 400 for markup that refers outside', async () => {
    const template = docx(p(run('Dear {name},')) + p(run('{@body}')) + p(run('Regards')));
    const upload = await ann.post('/v1/templates/upload?templateName=raw.docx&templateSyntax=docxtemplater', { json: b64(template) });
    assert.equal(upload.status, 201);
    const body = '<w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Your order has shipped.</w:t></w:r></w:p>';
    const merge = (format: string, value: string) =>
      ann.post(`/v1/document/merge?returnFormat=${format}&templateName=raw.docx`, { json: { mergeData: [{ name: 'Ann', body: value }] } });
    const docxReply = await merge('DOCX', body);
    assert.equal(docxReply.status, 200);
    const merged = decode(docxReply)[0]!;
    assert.equal(partText(merged), 'Dear Ann,\nYour order has shipped.\nRegards');
    assert.match(partXml(merged), /<w:b\/><\/w:rPr><w:t>Your order has shipped\./);
    const pdf = await merge('PDF', body);
    assert.equal(pdf.status, 200);
    assert.match(pdfFacts(decode(pdf)[0]!).text, /Dear Ann,\s+Your order has shipped\.\s+Regards/);
    const linked = await merge('DOCX', '<w:p><w:r><w:instrText>INCLUDETEXT "/etc/passwd"</w:instrText></w:r></w:p>');
    assert.equal(linked.status, 400);
    assert.match(errorMessage(linked), /The raw XML of \{@body\} holds <w:instrText>/);
  });
});
