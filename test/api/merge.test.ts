import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, fixture } from '../helpers/server.js';
import {
  txWithFormField,
  txWithFrame,
  txWithPicture,
  txWithRegions,
  txWithSignatureBox,
  txWithTargets,
  unreadableTx,
} from '../helpers/tx.js';
import { errorMessage as message, request, type Client } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { pdfFacts, redShare, writerDocx } from '../helpers/office.js';
import {
  block,
  cell,
  docx,
  field,
  gridRow,
  gridTable,
  mergefield,
  p,
  partText,
  partXml,
  picture,
  png,
  row,
  rtfObject,
  run,
  table,
} from '../helpers/docx.js';
import * as mupdf from 'mupdf';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { readTx } from '../../src/formats/tx/read.js';
import { unprotectedPdf } from '../helpers/hostile.js';

const b64 = (b: Buffer) => b.toString('base64');
const decode = (reply: { json(): unknown }) => (reply.json() as string[]).map((d) => Buffer.from(d, 'base64'));

describe('POST /v1/document/merge and GET /v1/templates/info', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let paid: Client;
  let trial: Client;
  before(async () => {
    env = await serverWithAccounts({ merger: { licence: 'SN-MERGE' }, 'trial-merger': {} }, { DOCSMITH_OFFICE_PROCESSES: '2' });
    paid = env.clients.merger!;
    trial = env.clients['trial-merger']!;
  });
  after(() => env.close());

  const merge = (query: string, body: unknown, c: Client = paid) => c.post(`/v1/document/merge?${query}`, { json: body });

  it('merges text-in-merge-data to PDF with every value of its data in the text', async () => {
    const template = fs.readFileSync(path.join(FIXTURES, 'text-in-merge-data', 'template.docx'));
    const data = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'text-in-merge-data', 'merge_data.json'), 'utf8')) as {
      item: Record<string, string>[];
    }[];
    const reply = await merge('returnFormat=PDF', { mergeData: data, template: b64(template) });
    assert.equal(reply.status, 200, reply.text);
    const [pdf] = decode(reply);
    const text = pdfFacts(pdf!).text;
    for (const item of data[0]!.item) for (const value of Object.values(item)) assert.ok(text.includes(value), value);
  });

  it('merges a stored template, one document per record or all appended', async () => {
    assert.equal((await paid.upload('letter.docx', fixture('test_template.docx'))).status, 201);
    const records = [
      { name: 'Ann', age: 31 },
      { name: 'Bob', age: 42 },
      { name: 'Cy', age: 53 },
    ];
    const separate = await merge('returnFormat=TXT&templateName=letter.docx&append=false', { mergeData: records });
    assert.equal(separate.status, 200, separate.text);
    const texts = decode(separate).map((d) => d.toString('utf8'));
    assert.equal(texts.length, 3);
    assert.match(texts[1]!, /Bob/);
    assert.match(texts[1]!, /42/);
    const appended = await merge('returnFormat=PDF&templateName=letter.docx', { mergeData: records });
    const [pdf] = decode(appended);
    const facts = pdfFacts(pdf!);
    assert.equal(facts.pages, 3, 'each record starts a new section on a new page');
    assert.ok(facts.text.indexOf('Ann') < facts.text.indexOf('Bob') && facts.text.indexOf('Bob') < facts.text.indexOf('Cy'));
    const single = await merge('returnFormat=TXT&templateName=letter.docx', { mergeData: { name: 'Solo', age: 1 } });
    assert.match(decode(single)[0]!.toString('utf8'), /Solo/);
  });

  it('appends 1,000 records into one valid document, a section each', async () => {
    const records = Array.from({ length: 1000 }, (_, i) => ({ name: `Person ${i}`, age: i }));
    const reply = await merge('returnFormat=DOCX', { mergeData: records, template: b64(fixture('test_template.docx')) });
    assert.equal(reply.status, 200);
    const [out] = decode(reply);
    const xml = (await import('fflate')).unzipSync(out!)['word/document.xml'];
    const text = Buffer.from(xml!).toString('utf8');
    assert.equal((text.match(/<w:sectPr\b/g) ?? []).length, 1000);
    assert.ok(text.includes('Person 999'));
  });

  it('numbers each record on its own when the template restarts page numbering: "page X of Y" counts the record\'s own pages', async () => {
    // Records of 1, 2 and 3 pages; the template's stored total is "x", which no page may show.
    const items = table(block('items', row(cell(p(mergefield('n'))), cell(p(run('item'))))));
    const footer = p(run('Page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', 'x'));
    const template = docx(p(run('Invoice for '), mergefield('name')) + items, { footer });
    const restarting = docx(p(run('Invoice for '), mergefield('name')) + items, { footer, restartNumbering: true });
    const mergeData = [
      ['A', 3],
      ['B', 60],
      ['C', 110],
    ].map(([name, rows]) => ({ name, items: Array.from({ length: rows as number }, (_, n) => ({ n })) }));
    const [pdf] = decode(await merge('returnFormat=PDF', { mergeData, template: b64(restarting) }));
    const doc = mupdf.Document.openDocument(pdf!, 'application/pdf');
    const footers = Array.from({ length: doc.countPages() }, (_, i) =>
      /Page (\S+) of (\S+)/.exec(doc.loadPage(i).toStructuredText('preserve-whitespace').asText())?.slice(1).join('/'),
    );
    assert.deepEqual(footers, ['1/1', '1/2', '2/2', '1/3', '2/3', '3/3']);
    // As DOCX: Word computes the totals; LibreOffice shows the stored results, which are each record's own.
    const [word] = decode(await merge('returnFormat=DOCX', { mergeData, template: b64(restarting) }));
    assert.deepEqual([...partXml(word!).matchAll(/<w:footerReference [^>]*r:id="([^"]+)"/g)].length, 3);
    const again = mupdf.Document.openDocument(unprotectedPdf(word!, 'docx'), 'application/pdf'); // LibreOffice on its own, as a user opens the file
    assert.deepEqual(
      Array.from({ length: again.countPages() }, (_, i) =>
        /Page (\S+) of (\S+)/.exec(again.loadPage(i).toStructuredText('preserve-whitespace').asText())?.slice(1).join('/'),
      ),
      footers,
    );
    const stored = Object.entries((await import('fflate')).unzipSync(word!))
      .filter(([name]) => /^word\/.*footer.*\.xml$/.test(name))
      .map(([, xml]) => /SECTIONPAGES[^]*?<w:t[^>]*>([^<]*)</.exec(Buffer.from(xml).toString('utf8'))?.[1]);
    assert.deepEqual(stored.sort(), ['1', '2', '3'], "each record's footer");
    // Without a restart, the whole document is counted.
    const [whole] = decode(await merge('returnFormat=PDF', { mergeData: [{ name: 'A' }, { name: 'B' }], template: b64(template) }));
    assert.match(pdfFacts(whole!).text, /Page 2 of 2/);
  });

  it("counts a record's pages per section when the section has a different first page (w:titlePg), with or without a first-page footer", async () => {
    const items = table(block('items', row(cell(p(mergefield('n'))), cell(p(run('item'))))));
    const pageOf = (label: string) => p(run(`${label} `), field('PAGE', '1'), run(' of '), field('NUMPAGES', 'x'));
    const mergeData = [
      ['A', 60],
      ['B', 110],
      ['C', 3],
    ].map(([name, rows]) => ({ name, items: Array.from({ length: rows as number }, (_, n) => ({ n })) }));
    const shown = (pdf: Buffer) => {
      const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
      return Array.from({ length: doc.countPages() }, (_, i) =>
        /(\w+) (\S+ of \S+)/.exec(doc.loadPage(i).toStructuredText('preserve-whitespace').asText())?.slice(1).join(' '),
      );
    };
    const body = p(run('Invoice for '), mergefield('name')) + items;
    const firstFooter = docx(body, { footer: pageOf('Page'), firstFooter: pageOf('First'), titlePg: true, restartNumbering: true });
    const [pdf] = decode(await merge('returnFormat=PDF', { mergeData, template: b64(firstFooter) }));
    assert.deepEqual(shown(pdf!), ['First 1 of 2', 'Page 2 of 2', 'First 1 of 3', 'Page 2 of 3', 'Page 3 of 3', 'First 1 of 1']);
    // The DOCX as LibreOffice opens it on its own shows the same stored totals.
    const [word] = decode(await merge('returnFormat=DOCX', { mergeData, template: b64(firstFooter) }));
    assert.deepEqual(shown(unprotectedPdf(word!, 'docx')), shown(pdf!));
    // Only w:titlePg, no first-page footer: the first pages show none; the others count their record.
    const onlyTitlePg = docx(body, { footer: pageOf('Page'), titlePg: true, restartNumbering: true });
    const [plain] = decode(await merge('returnFormat=PDF', { mergeData, template: b64(onlyTitlePg) }));
    assert.deepEqual(shown(plain!), [undefined, 'Page 2 of 2', undefined, 'Page 2 of 3', 'Page 3 of 3', undefined]);
    // The total in a framed footer paragraph (how TX's footer box is written) and in a Word text box
    // (the office keeps a box's text apart from its footer's).
    const framed = (label: string) =>
      pageOf(label).replace(
        '<w:p>',
        '<w:p><w:pPr><w:framePr w:w="4000" w:h="400" w:hRule="atLeast" w:wrap="around" w:vAnchor="text" w:hAnchor="margin" w:x="0" w:y="0"/></w:pPr>',
      );
    const inFrame = docx(body, { footer: framed('Page'), firstFooter: framed('First'), titlePg: true, restartNumbering: true });
    const [frames] = decode(await merge('returnFormat=PDF', { mergeData, template: b64(inFrame) }));
    assert.deepEqual(shown(frames!), shown(pdf!));
    const boxed = (label: string) =>
      p(
        `<w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml" style="position:absolute;margin-left:0;margin-top:0;width:300pt;height:24pt"><v:textbox><w:txbxContent>${pageOf(label)}</w:txbxContent></v:textbox></v:shape></w:pict></w:r>`,
      );
    const inBox = docx(body, { footer: boxed('Page'), firstFooter: boxed('First'), titlePg: true, restartNumbering: true });
    const [boxes] = decode(await merge('returnFormat=PDF', { mergeData, template: b64(inBox) }));
    assert.deepEqual(shown(boxes!), shown(pdf!));
    const [boxesWord] = decode(await merge('returnFormat=DOCX', { mergeData, template: b64(inBox) }));
    assert.deepEqual(shown(unprotectedPdf(boxesWord!, 'docx')), shown(pdf!));
  });

  it("points each appended record's REF and PAGEREF fields and internal links at its own bookmark", async () => {
    const template = docx(
      p(run('Total: '), '<w:bookmarkStart w:id="0" w:name="Total"/>', mergefield('total'), '<w:bookmarkEnd w:id="0"/>') +
        p(run('Repeated: '), field('REF Total \\h', 'T-10'), run(' on page '), field('PAGEREF Total \\h', '1')) +
        p('<w:hyperlink w:anchor="Total"><w:r><w:t>to the total</w:t></w:r></w:hyperlink>') +
        `<w:p><w:r><w:br w:type="page"/></w:r></w:p>`,
      { restartNumbering: true },
    );
    const mergeData = ['T-10', 'T-20', 'T-30'].map((total) => ({ total }));
    const [pdf] = decode(await merge('returnFormat=PDF', { mergeData, template: b64(template) }));
    const doc = mupdf.Document.openDocument(pdf!, 'application/pdf');
    const repeated = Array.from({ length: doc.countPages() }, (_, i) =>
      /Repeated: (\S+) on page (\d+)/.exec(doc.loadPage(i).toStructuredText('preserve-whitespace').asText())?.slice(1).join(' p'),
    ).filter(Boolean);
    assert.deepEqual(repeated, ['T-10 p1', 'T-20 p1', 'T-30 p1']);
    const [word] = decode(await merge('returnFormat=DOCX', { mergeData, template: b64(template) }));
    assert.deepEqual(
      [...partXml(word!).matchAll(/w:anchor="([^"]+)"/g)].map((m) => m[1]),
      ['Total', 'Total_2', 'Total_3'],
    );
  });

  it('keeps rows whose vertically merged cell holds a picture on one page, the whole group', async () => {
    const merged = (restart: boolean, ...content: string[]) =>
      `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:vMerge${restart ? ' w:val="restart"' : ''}/></w:tcPr>${content.length ? content.join('') : p()}</w:tc>`;
    // Rows of a fixed height, as TX writes them: the picture spans the three.
    const high = '<w:trPr><w:trHeight w:val="720" w:hRule="exact"/></w:trPr>';
    const group = block(
      'items',
      `<w:tr>${high}${merged(true, p(picture('Code', 130, 130)))}${cell(p(mergefield('name')))}</w:tr>`,
      `<w:tr>${high}${merged(false)}${cell(p(run('qty '), mergefield('qty')))}</w:tr>`,
      `<w:tr>${high}${merged(false)}${cell(p(run('checked')))}</w:tr>`,
    );
    const template = docx(p(run('Packing list')) + table(row(cell(p(run('Code'))), cell(p(run('Item')))), group));
    const items = Array.from({ length: 15 }, (_, n) => ({ name: `Item ${n + 1}`, qty: n + 1 }));
    const [pdf] = decode(await merge('returnFormat=PDF', { mergeData: [{ items }], template: b64(template) }));
    const doc = mupdf.Document.openDocument(pdf!, 'application/pdf');
    // A group cut by a page break shows an item's name on one page and its quantity on the next.
    const pages = Array.from({ length: doc.countPages() }, (_, i) => doc.loadPage(i).toStructuredText('preserve-whitespace').asText());
    assert.ok(pages.length > 1, 'the list runs over pages');
    for (const page of pages)
      assert.deepEqual(
        [...page.matchAll(/qty (\d+)/g)].map((m) => m[1]),
        [...page.matchAll(/Item (\d+)/g)].map((m) => m[1]),
        page,
      );
    const [word] = decode(await merge('returnFormat=DOCX', { mergeData: [{ items }], template: b64(template) }));
    const rows = [...partXml(word!).matchAll(/<w:tr\b[\s\S]*?<\/w:tr>/g)].map((m) => m[0]).slice(1, 4);
    assert.deepEqual(
      rows.map((r) => [r.includes('<w:cantSplit/>'), r.includes('<w:keepNext/>')]),
      [
        [true, true],
        [true, true],
        [true, false],
      ],
    );
  });

  it("prints each appended record's footnote with its own text when the template has comments too", async () => {
    const template = docx(
      p(
        run('Order '),
        mergefield('order'),
        `<w:commentRangeStart w:id="0"/><w:r><w:t> checked</w:t></w:r><w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>`,
        '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:footnoteReference w:id="1"/></w:r>',
      ),
      {
        comments: `<w:comment w:id="0" w:author="Ann" w:date="2024-01-01T00:00:00Z">${p(run('Check the order'))}</w:comment>`,
        footnotes: `<w:footnote w:id="1">${p(run('Shipped from '), mergefield('depot'))}</w:footnote>`,
      },
    );
    const mergeData = ['Leeds', 'York', 'Hull'].map((depot, i) => ({ order: `A-${i + 1}`, depot }));
    const [pdf] = decode(await merge('returnFormat=PDF', { mergeData, template: b64(template) }));
    const text = pdfFacts(pdf!).text;
    for (const depot of ['Leeds', 'York', 'Hull']) assert.match(text, new RegExp(`Shipped from ${depot}`));
    assert.doesNotMatch(text, /Check the order/);
    const [word] = decode(await merge('returnFormat=DOCX', { mergeData, template: b64(template) }));
    assert.ok(unzipSync(word!)['word/comments.xml'], 'DOCX keeps its comments');
  });

  it('merges a row block made in LibreOffice Writer (a start in each cell, one end) and warns of a block over one cell of a row', async () => {
    const cellOf = (content: string) => `<table:table-cell><text:p>${content}</text:p></table:table-cell>`;
    const dbField = (name: string) =>
      `<text:database-display text:database-name="data" text:table-name="items" text:column-name="${name}">&lt;${name}&gt;</text:database-display>`;
    const writer = (row: string) =>
      writerDocx(
        '<?xml version="1.0" encoding="UTF-8"?><office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
          'office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text><text:p>Items</text:p>' +
          '<table:table table:name="T"><table:table-column table:number-columns-repeated="2"/>' +
          `<table:table-row>${cellOf('Name')}${cellOf('Qty')}</table:table-row><table:table-row>${row}</table:table-row>` +
          `<table:table-row>${cellOf('Total')}${cellOf('7')}</table:table-row></table:table></office:text></office:body></office:document>`,
      );
    // The row selected and bookmarked, as docs/authoring.md tells Writer users.
    const wholeRow = writer(
      cellOf(`<text:bookmark-start text:name="txmb_items"/>${dbField('name')}`) +
        cellOf(`${dbField('qty')}<text:bookmark-end text:name="txmb_items"/>`),
    );
    assert.equal((partXml(wholeRow).match(/<w:bookmarkStart [^>]*w:name="txmb_items"/g) ?? []).length, 2, 'as Writer writes it');
    const mergeData = [
      {
        items: [
          { name: 'Bolts', qty: 3 },
          { name: 'Nuts', qty: 4 },
        ],
      },
    ];
    const [text] = decode(await merge('returnFormat=TXT', { mergeData, template: b64(wholeRow) }));
    assert.match(text!.toString('utf8'), /Name\s+Qty\s+Bolts\s+3\s+Nuts\s+4\s+Total\s+7/);
    const info = async (name: string) => (await paid.get(`/v1/templates/info?templateName=${name}`)).json() as Record<string, unknown>;
    assert.equal((await paid.upload('writer-rows.docx', wholeRow)).status, 201);
    const rows = await info('writer-rows.docx');
    assert.deepEqual(
      (rows.mergeBlocks as { name: string; mergeFields: { name: string }[] }[]).map((b) => [b.name, b.mergeFields.map((f) => f.name)]),
      [['items', ['name', 'qty']]],
    );
    assert.equal(rows.warnings, undefined);
    // Only the first cell's text bookmarked: the quantity stays outside the block; template info says so.
    const oneCell = writer(
      cellOf(`<text:bookmark-start text:name="txmb_items"/>${dbField('name')}<text:bookmark-end text:name="txmb_items"/>`) +
        cellOf(dbField('qty')),
    );
    assert.equal((await paid.upload('writer-cell.docx', oneCell)).status, 201);
    const cell = await info('writer-cell.docx');
    assert.equal((cell.warnings as string[]).length, 1);
    assert.match(
      (cell.warnings as string[])[0]!,
      /The merge block "items" covers text in one table cell; the fields qty in the same row are outside it/,
    );
    // What docs/authoring.md tells Writer users plainly: a field's number format stays in Writer (the
    // DOCX has the bare MERGEFIELD), so the value is shown as sent; sent as the text to show, it shows so.
    const formatted = writerDocx(
      '<?xml version="1.0" encoding="UTF-8"?><office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
        'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" ' +
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">' +
        '<office:automatic-styles><number:number-style style:name="N2"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/></number:number-style></office:automatic-styles>' +
        '<office:body><office:text><text:p>Total: <text:database-display text:database-name="data" text:table-name="items" text:column-name="total" style:data-style-name="N2">&lt;total&gt;</text:database-display></text:p></office:text></office:body></office:document>',
    );
    assert.deepEqual(partXml(formatted).match(/<w:instrText[^>]*>[^<]*/g), ['<w:instrText xml:space="preserve"> MERGEFIELD total ']);
    const shown = async (total: unknown) =>
      decode(await merge('returnFormat=TXT', { mergeData: [{ total }], template: b64(formatted) }))[0]!.toString('utf8');
    assert.match(await shown(8210.5), /Total: 8210\.5\b/);
    assert.match(await shown('8,210.50'), /Total: 8,210\.50/);
  });

  it('writes DOCX that LibreOffice opens, in every return format', async () => {
    const body = { mergeData: [{ name: 'Ann', age: 31 }], template: b64(fixture('test_template.docx')) };
    const [out] = decode(await merge('returnFormat=DOCX', body));
    const reopened = await paid.post('/v1/document/convert?returnFormat=TXT', { json: b64(out!) });
    assert.equal(reopened.status, 200);
    assert.match(Buffer.from(reopened.json() as string, 'base64').toString('utf8'), /Ann/);
    for (const format of ['PDFA', 'DOC', 'RTF', 'HTML']) {
      const reply = await merge(`returnFormat=${format}`, body);
      assert.equal(reply.status, 200, `${format}: ${reply.text}`);
    }
  });

  it('merges templates stored as DOC and RTF like their DOCX twin', async () => {
    const template = fixture('test_template.docx');
    const record = { mergeData: [{ name: 'Twin', age: 7 }] };
    assert.equal((await paid.upload('twin.docx', template)).status, 201);
    const expected = decode(await merge('returnFormat=TXT&templateName=twin.docx', record))[0]!.toString('utf8');
    for (const format of ['DOC', 'RTF']) {
      const converted = await paid.post(`/v1/document/convert?returnFormat=${format}`, { json: b64(template) });
      const name = `twin.${format.toLowerCase()}`;
      assert.equal((await paid.upload(name, Buffer.from(converted.json() as string, 'base64'))).status, 201);
      const merged = decode(await merge(`returnFormat=TXT&templateName=${name}`, record))[0]!.toString('utf8');
      assert.equal(merged.trim(), expected.trim(), format);
    }
  });

  it('refuses merge data for an RTF chart it cannot bind, naming the chart; a chart no data names stays as drawn', async () => {
    const rtf = Buffer.from(
      `{\\rtf1\\ansi {\\fonttbl{\\f0 Arial;}}\\pard Sales of {\\field{\\*\\fldinst MERGEFIELD region}{\\fldrslt x}}\\par ${rtfObject('MSGraph.Chart.8', 'sales')}\\par}`,
      'latin1',
    );
    const inline = await merge('returnFormat=PDF', { mergeData: [{ region: 'North', sales: [{ Revenue: 1 }] }], template: b64(rtf) });
    assert.equal(inline.status, 400);
    assert.match(message(inline), /the chart "sales" \(MSGraph\.Chart\.8\) is an object embedded in RTF[^]*Save the template as DOCX/);
    assert.equal((await paid.upload('chart.rtf', rtf)).status, 201);
    const named = await merge('returnFormat=PDF&templateName=chart.rtf', {
      mergeData: [{ region: 'North' }, { region: 'South', Sales: [] }],
    });
    assert.equal(named.status, 400, 'any record naming it, in any case');
    // Data that does not name the chart: merged, the chart as drawn (an unnamed one, as Excel embeds, too).
    const asDrawn = await merge('returnFormat=TXT&templateName=chart.rtf', { mergeData: [{ region: 'North' }] });
    assert.equal(asDrawn.status, 200, asDrawn.text);
    assert.match(decode(asDrawn)[0]!.toString('utf8'), /Sales of North/);
    const unnamed = Buffer.from(
      `{\\rtf1\\ansi \\pard Report {\\field{\\*\\fldinst MERGEFIELD region}{\\fldrslt x}}\\par ${rtfObject('Excel.Chart.8')}\\par}`,
      'latin1',
    );
    const excel = await merge('returnFormat=PDF', { mergeData: [{ region: 'West', sales: [{ Revenue: 1 }] }], template: b64(unnamed) });
    assert.equal(excel.status, 200, excel.text);
    assert.match(pdfFacts(decode(excel)[0]!).text, /Report West/);
    const info = (await paid.get('/v1/templates/info?templateName=chart.rtf')).json() as {
      mergeFields: { name: string }[];
      charts?: { name: string; problem: string | null }[];
    };
    assert.deepEqual(
      info.mergeFields.map((f) => f.name),
      ['region'],
    );
    assert.equal(info.charts?.[0]?.name, 'sales');
    assert.match(info.charts?.[0]?.problem ?? '', /embedded in RTF[^]*design-time data, and merge data naming it is refused/);
  });

  it('merges an SVG picture into DOCX as Word shows it (a PNG drawn from it, the SVG kept) and into PDF', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="120" height="60" fill="#c00000"/><text x="10" y="40" font-size="24" fill="#fff">ACME</text></svg>',
    ).toString('base64');
    const template = b64(docx(p(run('Logo: '), picture('logo', 120, 60))));
    // The HTTP helper checks every DOCX answer against Word's rules (test/helpers/word-rules.ts): a raster main picture among them.
    const [word] = decode(await merge('returnFormat=DOCX', { mergeData: [{ logo: svg }], template }));
    const media = Object.keys((await import('fflate')).unzipSync(word!))
      .filter((name) => name.startsWith('word/media/docsmith'))
      .map((name) => name.slice(name.lastIndexOf('.')));
    assert.deepEqual(media.sort(), ['.png', '.svg']);
    const [pdf] = decode(await merge('returnFormat=PDF', { mergeData: [{ logo: svg }], template }));
    assert.match(pdfFacts(pdf!).text, /Logo/);
  });

  it("reports the compiled-template caches (the worker threads', the event loop's) in /metrics", async () => {
    const lookups = async () => {
      const text = (await request(env.server.url, 'GET', '/metrics')).text;
      return ['hit', 'miss'].map((result) =>
        Number(new RegExp(`^docsmith_cache_lookups_total\\{cache="templates",result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN),
      );
    };
    const [hits, misses] = await lookups();
    const template = b64(docx(p(run('Cache '), mergefield('n'), run(` ${Date.now()}`))));
    for (const n of [1, 2]) assert.equal((await merge('returnFormat=DOCX', { mergeData: [{ n }], template })).status, 200);
    const [hitsAfter, missesAfter] = await lookups();
    assert.ok(missesAfter! >= misses! + 1, `misses ${misses} -> ${missesAfter}`);
    assert.ok(hitsAfter! + missesAfter! >= hits! + misses! + 2, `hits ${hits} -> ${hitsAfter}`);
  });

  it('counts one document per request, not per record; test runs are watermarked and free', async () => {
    const settings = async () => ((await paid.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const before = await settings();
    await merge('returnFormat=TXT&templateName=letter.docx&append=false', { mergeData: [{}, {}, {}] });
    assert.equal(await settings(), before + 1);
    const stamped = decode(await merge('returnFormat=PDF&templateName=letter.docx&test=true', { mergeData: [{ name: 'T' }] }))[0]!;
    assert.ok(redShare(stamped) > 0.005);
    assert.equal(await settings(), before + 1);
    const refused = await merge('returnFormat=PDF&templateName=letter.docx&test=true', { mergeData: [{}], template: undefined }, trial);
    assert.equal(refused.status, 403);
  });

  it("gives a test run's DOCX the real run's content with a watermark Word and LibreOffice show, without an office round trip", async () => {
    const { unzipSync } = await import('fflate');
    const body = { mergeData: [{ name: 'Ann' }, { name: 'Bob' }] };
    const [real] = decode(await merge('returnFormat=DOCX&templateName=letter.docx', body));
    const [test] = decode(await merge('returnFormat=DOCX&templateName=letter.docx&test=true', body));
    const [a, b] = [unzipSync(real!), unzipSync(test!)];
    const text = (files: Record<string, Uint8Array>, name: string) => Buffer.from(files[name]!).toString('utf8');
    assert.equal(text(b, 'docProps/app.xml'), text(a, 'docProps/app.xml'), 'written by docsmith, not by LibreOffice');
    // The document itself differs only by the header references that carry the mark.
    const unmarked = text(b, 'word/document.xml')
      .replace(/<w:headerReference w:type="default" r:id="rIdDsWatermark\d+"\/>/g, '')
      .replace(/ xmlns:(v|o)="[^"]+"/g, '');
    assert.equal(unmarked, text(a, 'word/document.xml').replace(/ xmlns:(v|o)="[^"]+"/g, ''));
    const headers = Object.keys(b)
      .filter((name) => /^word\/header/.test(name))
      .map((name) => text(b, name));
    assert.ok(headers.length > 0 && headers.every((h) => h.includes('string="TEST MODE"')));
    const shown = await paid.post('/v1/document/convert?returnFormat=PDF', { json: test!.toString('base64') });
    const pdf = Buffer.from(shown.json() as string, 'base64');
    assert.equal(pdfFacts(pdf).pages, 2);
    assert.ok(redShare(pdf) > 0.005, `the mark shows on the page (red share ${redShare(pdf)})`);
  });

  it('runs at most two DOCX merges of one account at once: a third is refused with the documented 403', async () => {
    const template = docx(block('rows', p(mergefield('v')))).toString('base64');
    const body = { template, mergeData: [{ rows: Array.from({ length: 40_000 }, (_, i) => ({ v: `row ${i}` })) }] };
    const replies = await Promise.all(Array.from({ length: 3 }, () => merge('returnFormat=DOCX', body)));
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, 200, 403]);
    assert.match(message(replies.find((r) => r.status === 403)!), /At most 2 merge requests may run at once for one account/);
  });

  it('writes document properties and honours merge settings', async () => {
    const template = docx(p(mergefield('a')) + p(mergefield('missing')) + block('rows', p(mergefield('v'))));
    const body = {
      mergeData: [{ a: 'A', rows: [] }],
      template: b64(template),
      mergeSettings: {
        removeEmptyFields: false,
        removeEmptyBlocks: false,
        author: 'Ann Author',
        documentTitle: 'Merged',
        culture: 'de-DE',
      },
    };
    const [out] = decode(await merge('returnFormat=DOCX', body));
    assert.equal(partText(out!).split('\n').slice(0, 2).join('|'), 'A|«missing»');
    const core = (await import('fflate')).unzipSync(out!)['docProps/core.xml'];
    assert.match(Buffer.from(core!).toString('utf8'), /<dc:creator>Ann Author<\/dc:creator>/);
    assert.match(Buffer.from(core!).toString('utf8'), /<dc:title>Merged<\/dc:title>/);
    const reopened = await paid.post('/v1/document/convert?returnFormat=PDF', { json: b64(out!) });
    assert.equal(reopened.status, 200, 'the package with new core properties opens');
  });

  it('applies userPassword where the format carries one and ignores it elsewhere, as the SDK suites expect', async () => {
    const body = { mergeData: [{ a: 'Secret text' }], template: b64(docx(p(mergefield('a')))), mergeSettings: { userPassword: 'pw-123' } };
    const [pdf] = decode(await merge('returnFormat=PDF', body));
    assert.equal(pdfFacts(pdf!).needsPassword, true);
    assert.match(pdfFacts(pdf!, 'pw-123').text, /Secret text/);
    for (const format of ['HTML', 'RTF', 'TXT', 'PDFA']) {
      const reply = await merge(`returnFormat=${format}`, body);
      assert.equal(reply.status, 200, `${format}: ${reply.text.slice(0, 200)}`);
      const [out] = decode(reply);
      if (format === 'PDFA') assert.equal(pdfFacts(out!).needsPassword, false, 'PDF/A forbids encryption');
      else assert.match(out!.toString('utf8'), /Secret text/);
    }
  });

  /** A long table's PDF has the pages of one layout: count, text, header row and number on each, pixels. */
  const samePages = (pdf: Buffer, onePdf: Buffer) => {
    const ours = mupdf.Document.openDocument(pdf, 'application/pdf');
    const theirs = mupdf.Document.openDocument(onePdf, 'application/pdf');
    assert.ok(ours.countPages() > 30);
    assert.equal(ours.countPages(), theirs.countPages());
    assert.equal(ours.getMetaData('info:Title'), 'Statement');
    const text = (d: mupdf.Document, i: number) => d.loadPage(i).toStructuredText('preserve-whitespace').asText();
    const pixels = (d: mupdf.Document, i: number) =>
      d.loadPage(i).toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceGray, false).getPixels();
    for (let i = 0; i < ours.countPages(); i++) {
      assert.equal(text(ours, i), text(theirs, i), `page ${i + 1}'s text`);
      assert.match(
        text(ours, i),
        new RegExp(`^Date\\s+Text\\s+Amount[\\s\\S]*Page ${i + 1}\\s*$|^Statement`),
        `page ${i + 1}: header row and number`,
      );
      assert.ok(Buffer.from(pixels(ours, i)).equals(Buffer.from(pixels(theirs, i))), `page ${i + 1} looks the same`);
    }
  };
  const widths = [1800, 5400, 1800];
  const right = (x: string) => x.replace('<w:p>', '<w:p><w:pPr><w:jc w:val="right"/></w:pPr>');
  const statement = (footer: string) =>
    docx(
      p(run('Statement for '), mergefield('name')) +
        gridTable(
          widths,
          gridRow(widths, [p(run('Date')), p(run('Text')), right(p(run('Amount')))], true),
          block('items', gridRow(widths, [p(mergefield('date')), p(mergefield('text')), right(p(mergefield('amount')))])),
        ) +
        p(run('Closing balance')),
      { footer },
    );
  const numbered = b64(statement(p(run('Page '), field('PAGE', '1'))));
  /** The PDF merged in parts, and one layout of the same merged DOCX. */
  const inPartsAndWhole = async (data: object) => {
    const inParts = await merge('returnFormat=PDF', { ...data, template: numbered });
    assert.equal(inParts.status, 200, inParts.text);
    assert.ok(Number(inParts.headers['x-layout-parts']) >= 2, `laid out in parts (${inParts.headers['x-layout-parts']})`);
    const asDocx = await merge('returnFormat=DOCX', { ...data, template: numbered });
    const whole = await paid.post('/v1/document/convert?returnFormat=PDF', { json: decode(asDocx)[0]!.toString('base64') });
    assert.equal(whole.status, 200, whole.text);
    return { pdf: decode(inParts)[0]!, one: Buffer.from(whole.json() as string, 'base64') };
  };
  const partsLaid = async () => {
    const metrics = (await request(env.server.url, 'GET', '/metrics')).text;
    const count = (laid: string) =>
      Number(new RegExp(`docsmith_long_table_parts_total\\{laid="${laid}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    const odt = Number(/docsmith_long_table_odt_parts_total (\d+)/.exec(metrics)?.[1] ?? 0);
    return { inTurn: count('in_turn'), ahead: count('ahead'), discarded: count('discarded'), odt };
  };

  it('lays out a long table to PDF part by part, each part from a true page start, with the pages of one layout', async () => {
    // Some rows wrap over lines and split over pages: a part may only break where no row is torn.
    const items = Array.from({ length: 2100 }, (_, i) => ({
      date: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
      text:
        i % 17 === 0 ? `Transfer ${i} with a description long enough to wrap onto further lines of the middle column` : `Card payment ${i}`,
      amount: (i * 7.31).toFixed(2),
    }));
    const data = { mergeData: [{ name: 'Ann Lee', items }], mergeSettings: { documentTitle: 'Statement' } };
    const { pdf, one } = await inPartsAndWhole(data);
    samePages(pdf, one);
    const text = (d: mupdf.Document, i: number) => d.loadPage(i).toStructuredText('preserve-whitespace').asText();
    // "Page X of Y" needs the whole layout: not in parts, and the total right.
    const counted = await merge('returnFormat=PDF', {
      ...data,
      template: b64(statement(p(run('Page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', '1')))),
    });
    assert.equal(counted.status, 200, counted.text);
    assert.equal(counted.headers['x-layout-parts'], undefined);
    const all = mupdf.Document.openDocument(decode(counted)[0]!, 'application/pdf');
    assert.match(text(all, all.countPages() - 1), new RegExp(`Page ${all.countPages()} of ${all.countPages()}`));
  });

  it('lays the parts of a long table out at once on the spare office process, whatever its rows, each from the true break of the part before', async () => {
    // Rows of one, two and three lines in no steady order: no page's start can be foretold.
    const lines = ['', ' with a description long enough to wrap onto a second line', ' '.padEnd(140, 'and a third line ')];
    const items = Array.from({ length: 3000 }, (_, i) => ({
      date: '2026-02-01',
      text: `Transfer ${i}${lines[(i * 7919) % 11 < 7 ? 0 : (i * 7919) % 11 < 10 ? 1 : 2]}`,
      amount: (i * 3.17).toFixed(2),
    }));
    const before = await partsLaid();
    const inParts = await merge('returnFormat=PDF', {
      mergeData: [{ name: 'Bo Chen', items }],
      mergeSettings: { documentTitle: 'Statement' },
      template: numbered,
    });
    const laid = await partsLaid();
    const parts = Number(inParts.headers['x-layout-parts']);
    assert.ok(parts >= 3, `${parts} parts`);
    // The first part is laid out in turn, the others ahead while the server is otherwise idle (one
    // may fall back to its turn if its process is being replaced).
    const counted = { inTurn: laid.inTurn - before.inTurn, ahead: laid.ahead - before.ahead };
    assert.equal(counted.inTurn + counted.ahead, parts, JSON.stringify(counted));
    assert.ok(counted.ahead >= parts - 2, JSON.stringify(counted));
    // Every part read from ODT, faster than from DOCX (what precedes the table is a plain paragraph).
    assert.equal(laid.odt - before.odt, parts, 'parts read from ODT');
    const { pdf, one } = await inPartsAndWhole({ mergeData: [{ name: 'Bo Chen', items }], mergeSettings: { documentTitle: 'Statement' } });
    samePages(pdf, one);
  });

  it('lays out many appended records to PDF in parts across the office processes, with the pages of one layout', async () => {
    const records = Array.from({ length: 240 }, (_, i) => ({ number: `INV-${i + 1}`, total: i + 1 }));
    const settings = { documentTitle: 'Invoices', author: 'ACME' };
    // Records that stand alone: laid out in parts and joined; every record on its own page, in order.
    const plain = docx(p(run('Invoice '), mergefield('number')) + p(run('Total '), mergefield('total')));
    const joined = await merge('returnFormat=PDF', { mergeData: records, template: b64(plain), mergeSettings: settings });
    assert.equal(joined.status, 200, joined.text);
    assert.equal(joined.headers['x-layout-parts'], '3', 'laid out in three parts of 100 records or fewer');
    const [pdf] = decode(joined);
    const doc = mupdf.Document.openDocument(pdf!, 'application/pdf');
    assert.equal(doc.countPages(), 240);
    for (const i of [0, 1, 59, 60, 119, 180, 239])
      assert.match(
        doc.loadPage(i).toStructuredText('preserve-whitespace').asText(),
        new RegExp(`Invoice INV-${i + 1}\\b`),
        `page ${i + 1}`,
      );
    assert.equal(doc.getMetaData('info:Title'), 'Invoices');
    assert.equal(doc.getMetaData('info:Author'), 'ACME');
    // "Page X of Y" through the document needs one layout: the last page says 240 of 240.
    const counted = docx(p(run('Invoice '), mergefield('number')), {
      footer: p(run('Page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', '1')),
    });
    const whole = await merge('returnFormat=PDF', { mergeData: records, template: b64(counted) });
    assert.equal(whole.status, 200, whole.text);
    assert.equal(whole.headers['x-layout-parts'], undefined, 'laid out whole');
    const last = mupdf.Document.openDocument(decode(whole)[0]!, 'application/pdf');
    assert.equal(last.countPages(), 240);
    assert.match(last.loadPage(239).toStructuredText('preserve-whitespace').asText(), /Page 240 of 240/);
  });

  it('reads TX Text Control templates: the twin merges, describes and converts like its DOCX; what it cannot read is a 400 naming it', async () => {
    const folder = path.join(FIXTURES, 'text-in-merge-data');
    const tx = fs.readFileSync(path.join(folder, 'template.tx'));
    const twin = fs.readFileSync(path.join(folder, 'template.docx'));
    const data = JSON.parse(fs.readFileSync(path.join(folder, 'merge_data.json'), 'utf8')) as object[];
    assert.equal((await paid.upload('twin.tx', tx)).status, 201);
    assert.equal((await paid.upload('twin.docx', twin)).status, 201);
    const info = async (name: string) => (await paid.get(`/v1/templates/info?templateName=${name}`)).json() as Record<string, unknown>;
    const [ours, theirs] = [await info('twin.tx'), await info('twin.docx')];
    assert.deepEqual(ours.mergeBlocks, theirs.mergeBlocks);
    assert.deepEqual(ours.mergeFields, theirs.mergeFields);
    const text = async (name: string) => {
      const reply = await merge(`returnFormat=TXT&templateName=${name}`, { mergeData: data });
      assert.equal(reply.status, 200, reply.text);
      return decode(reply)[0]!.toString('utf8');
    };
    const merged = await text('twin.tx');
    assert.equal(merged, await text('twin.docx'));
    for (const item of (data[0] as { item: Record<string, string>[] }).item)
      for (const value of Object.values(item)) assert.ok(merged.includes(value));
    // Sent in the body, to DOCX (Word's rules hold), and the page count and images of the stored template.
    const asDocx = await merge('returnFormat=DOCX', { mergeData: data, template: b64(tx) });
    assert.equal(asDocx.status, 200, asDocx.text);
    assert.equal((await paid.get('/v1/templates/pagecount?templateName=twin.tx')).text, '1');
    assert.equal(((await paid.get('/v1/templates/thumbnails?templateName=twin.tx&zoomFactor=20')).json() as string[]).length, 1);
    const converted = await paid.post('/v1/document/convert?returnFormat=TXT', { json: b64(tx) });
    assert.equal(converted.status, 200, converted.text);
    assert.match(Buffer.from(converted.json() as string, 'base64').toString('utf8'), /item_description/);
    // Find and replace in the SDK's .tx, as its suite does.
    assert.equal((await paid.upload('replace.tx', fixture('test_find_and_replace.tx'))).status, 201);
    const replaced = await paid.post('/v1/document/findandreplace?returnFormat=TXT&templateName=replace.tx', {
      json: {
        findAndReplaceData: [
          ['%%FIELD1%%', 'one'],
          ['%%FIELD2%%', 'two'],
        ],
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.match(Buffer.from(replaced.json() as string, 'base64').toString('utf8'), /one -- hello world\.\s+two -- hello world again/);
    // With a text frame in the body (as the .NET SDK's replace_template.tx): replaced in the frame too, in HTML as its suite asks.
    assert.equal((await paid.upload('framed.tx', txWithFrame(30))).status, 201);
    const framed = await paid.post('/v1/document/findandreplace?returnFormat=HTML&templateName=framed.tx', {
      json: { findAndReplaceData: [['%%FIELD1%%', 'ReplacedString']] },
    });
    assert.equal(framed.status, 200, framed.text);
    const html = Buffer.from(framed.json() as string, 'base64')
      .toString('utf8')
      .replace(/<[^>]+>/g, '');
    assert.equal(html.split('ReplacedString -- hello world.').length - 1, 2, 'in the body and in the frame');
    assert.doesNotMatch(html, /%%FIELD1%%/);
    // The SDK's invoice, whose footer is a text box of address fields: one page, its fields and
    // block described, and the footer filled in the merged PDF.
    assert.equal((await paid.upload('invoice.tx', fixture('test_template.tx'))).status, 201);
    assert.equal((await paid.get('/v1/templates/pagecount?templateName=invoice.tx')).text, '1');
    const invoiceInfo = await info('invoice.tx');
    assert.deepEqual(
      (invoiceInfo.mergeBlocks as { name: string }[]).map((b) => b.name),
      ['item'],
    );
    assert.ok((invoiceInfo.mergeFields as { name: string }[]).some((f) => f.name === 'yourcompany_email'));
    const invoice = await merge('returnFormat=PDF&templateName=invoice.tx', {
      mergeData: [
        {
          yourcompany_companyname: 'Text Control, LLC',
          yourcompany_email: 'sales@example.com',
          invoice_no: '778723',
          item: [{ qty: 1, item_description: 'Item description 1' }],
        },
      ],
    });
    assert.equal(invoice.status, 200, invoice.text);
    const pdf = mupdf.Document.openDocument(decode(invoice)[0]!, 'application/pdf');
    assert.equal(pdf.countPages(), 1);
    const invoiceText = pdf.loadPage(0).toStructuredText('preserve-whitespace').asText();
    for (const expected of [/Invoice number #778723/, /Item description 1/, /TEXT CONTROL, LLC/, /sales@example\.com/])
      assert.match(invoiceText, expected);
    // A TX template with parts the reader does not read yet is refused at upload, naming them.
    const refused = await paid.upload('unreadable.tx', unreadableTx());
    assert.equal(refused.status, 400);
    assert.match(
      message(refused),
      /paragraph settings in TX documents that this reader does not know are not supported yet.*save it as DOCX/,
    );
    // TX Text Control Words' files: a protected one merges (the DOCX keeps its region for everyone and
    // its protection) and comes back as TX with both (its protection lives in the template's settings, which
    // TX output keeps); one with link targets and links to places merges, and comes back as TX with its targets.
    const protectedTemplate = txWithRegions([{ start: 2, end: 12, id: 1 }], 'readOnly;0;1');
    assert.equal((await paid.upload('protected.tx', protectedTemplate)).status, 201);
    const protectedDocx = decode(await merge('returnFormat=DOCX&templateName=protected.tx', { mergeData: [{}] }))[0]!;
    assert.match(partXml(protectedDocx), /<w:permStart w:id="1" w:edGrp="everyone"\/>/);
    assert.match(partXml(protectedDocx, 'word/settings.xml'), /<w:documentProtection w:edit="readOnly" w:enforcement="1"\/>/);
    const protectedTx = readTx(decode(await merge('returnFormat=TX&templateName=protected.tx', { mergeData: [{}] }))[0]!);
    assert.deepEqual(protectedTx.protection, { edit: 'readOnly', enforced: true });
    assert.deepEqual(protectedTx.regions, readTx(protectedTemplate).regions);
    // The same document sent as DOCX has no TX settings to carry its protection: a 400 naming it, not a lost protection.
    const protectedFromDocx = await merge('returnFormat=TX', { mergeData: [{}], template: b64(protectedDocx) });
    assert.equal(protectedFromDocx.status, 400);
    assert.match(message(protectedFromDocx), /returnFormat TX cannot hold document protection/);
    assert.equal((await paid.upload('targets.tx', txWithTargets([{ position: 14, name: 'page_03' }]))).status, 201);
    const targetsDocx = decode(await merge('returnFormat=DOCX&templateName=targets.tx', { mergeData: [{}] }))[0]!;
    assert.match(partXml(targetsDocx), /<w:bookmarkStart w:id="\d+" w:name="page_03"\/>/);
    // A form field with conditional instructions (TX Text Control Words): merged as a Word form field, the
    // instructions named in the template's info; a picture in line merged into the PDF.
    assert.equal(
      (await paid.upload('form.tx', txWithFormField('dropdown', 'Travelers', { items: ['1', '2'], conditions: '{"A":\u001f"x"\u001f,}' })))
        .status,
      201,
    );
    const formInfo = await info('form.tx');
    assert.deepEqual(formInfo.mergeFields, []);
    assert.match((formInfo.warnings as string[]).join('\n'), /The form fields "Travelers" have conditional instructions/);
    const formDocx = decode(await merge('returnFormat=DOCX&templateName=form.tx', { mergeData: [{}] }))[0]!;
    assert.match(partXml(formDocx), /<w:ffData><w:name w:val="Travelers"\/>.*FORMDROPDOWN/);
    assert.equal(
      (
        await paid.upload(
          'picture.tx',
          txWithPicture(png(40, 40, [10, 200, 10]), 2, { width: 2880, height: 2880, scaleX: 100, scaleY: 100 }),
        )
      ).status,
      201,
    );
    const picturePdf = mupdf.Document.openDocument(
      decode(await merge('returnFormat=PDF&templateName=picture.tx', { mergeData: [{}] }))[0]!,
      'application/pdf',
    );
    assert.ok(picturePdf.loadPage(0).toStructuredText('preserve-images').asJSON().includes('"type":"image"'), 'the picture is drawn');
    // An SVG logo (TextControl's Financial sample has one): Word gets a PNG drawn from it with the SVG in svgBlip, the PDF
    // shows it, and TX output keeps the SVG itself.
    const logo = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><rect width="200" height="100" fill="#ea1183"/></svg>',
    );
    const logoTemplate = txWithPicture(logo, 2, { width: 2880, height: 1440, scaleX: 100, scaleY: 100 }, 'svg');
    assert.equal((await paid.upload('logo.tx', logoTemplate)).status, 201);
    assert.match(partXml(decode(await merge('returnFormat=DOCX&templateName=logo.tx', { mergeData: [{}] }))[0]!), /<asvg:svgBlip /);
    const logoPage = mupdf.Document.openDocument(
      decode(await merge('returnFormat=PDF&templateName=logo.tx', { mergeData: [{}] }))[0]!,
      'application/pdf',
    ).loadPage(0);
    const pixels = logoPage.toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceRGB, false).getPixels();
    let pink = 0;
    for (let i = 0; i + 2 < pixels.length; i += 3) if (pixels[i]! > 200 && pixels[i + 1]! < 60 && pixels[i + 2]! > 100) pink++;
    assert.ok(pink > 1000, `the logo is drawn (${pink} pink pixels)`);
    const logoTx = readTx(decode(await merge('returnFormat=TX&templateName=logo.tx', { mergeData: [{}] }))[0]!);
    assert.deepEqual(
      logoTx.pictures?.map((picture) => [picture.type, Buffer.from(picture.data).equals(logo)]),
      [['svg', true]],
    );
    // An SVG with entity declarations is refused at upload, naming it, and nothing is stored.
    const entities = Buffer.from(logo.toString().replace('<svg', '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg'));
    const hostile = await paid.upload('entities.tx', txWithPicture(entities, 2, undefined, 'svg'));
    assert.equal(hostile.status, 400);
    assert.match(message(hostile), /SVG pictures with a DOCTYPE \(entity declarations\)/);
    assert.equal((await paid.get('/v1/templates/exists?templateName=entities.tx')).json(), false);
    // A signature box (TextControl's e-signing samples): its picture floats where TX places it, the info says what it was,
    // and TX output writes it back as a signature box.
    const signing = txWithSignatureBox(30, { kind: 2, x: 0, y: 12, width: 2880, height: 1440 }, png(40, 20, [234, 17, 131]));
    assert.equal((await paid.upload('signing.tx', signing)).status, 201);
    assert.match(((await info('signing.tx')) as { warnings?: string[] }).warnings?.join(' ') ?? '', /a signature box/);
    const signingPage = mupdf.Document.openDocument(
      decode(await merge('returnFormat=PDF&templateName=signing.tx', { mergeData: [{}] }))[0]!,
      'application/pdf',
    ).loadPage(0);
    assert.ok(signingPage.toStructuredText('preserve-images').asJSON().includes('"type":"image"'), 'the box is drawn');
    const signingTx = readTx(decode(await merge('returnFormat=TX&templateName=signing.tx', { mergeData: [{}] }))[0]!);
    assert.deepEqual(
      signingTx.frames?.map((frame) => ('signature' in frame ? [frame.placement, frame.y, frame.width, frame.height] : null)),
      [['paragraph', 12, 2880, 1440]],
    );
    const targetsTx = readTx(decode(await merge('returnFormat=TX&templateName=targets.tx', { mergeData: [{}] }))[0]!);
    assert.ok(targetsTx.marks.some((mark) => mark.name === 'page_03' && mark.start === mark.end && mark.start === 14));
    // TX out (the PHP SDK's suite asks for it by template name and by file): merged, written in TX's
    // layout, read back by our reader with the merged values, fields gone, the block's rows there.
    const txOut = decode(
      await merge('returnFormat=TX&templateName=invoice.tx', { mergeData: [{ invoice_no: '778723', item: [{ qty: 3 }, { qty: 4 }] }] }),
    )[0]!;
    const written = readTx(txOut);
    assert.match(written.text, /Invoice number #778723/);
    const invoiceSettings = Buffer.from(readTx(fixture('test_template.tx')).keptFile!.settings);
    assert.ok(Buffer.from(written.keptFile!.settings).equals(invoiceSettings), "the template's own settings and style sheet");
    assert.equal(written.tables.length, 6);
    assert.equal(written.tables.find((t) => t.columns === 6)!.rows, 7, 'the item block gave two rows');
    assert.deepEqual([...written.fields.values()], [], 'merged: no fields left');
    assert.equal(written.footer!.text, '', 'the footer: an empty text box, as TX keeps it');
    assert.match(written.firstFooter!.text, /^\s*\n/, "the first page's footer of address fields, merged empty");
    const stamped = readTx(decode(await merge('returnFormat=TX&test=true', { mergeData: data, template: b64(tx) }))[0]!);
    assert.match(stamped.header!.text, /^TEST MODE/, 'a test run is marked on every page');
    const replacedTx = await paid.post('/v1/document/findandreplace?returnFormat=TX&templateName=replace.tx', {
      json: { findAndReplaceData: [['%%FIELD1%%', 'one']], mergeSettings: { author: 'A', documentTitle: 'T' } },
    });
    assert.equal(replacedTx.status, 200, replacedTx.text);
    assert.match(readTx(Buffer.from(replacedTx.json() as string, 'base64')).text, /one -- hello world\./);
    const invoiceReplaced = await paid.post('/v1/document/findandreplace?returnFormat=TX&templateName=invoice.tx', {
      json: { findAndReplaceData: [['Invoice', 'Bill']] },
    });
    assert.equal(invoiceReplaced.status, 200, invoiceReplaced.text);
    const replacedInvoice = readTx(Buffer.from(invoiceReplaced.json() as string, 'base64'));
    assert.match(replacedInvoice.text, /Bill number/);
    assert.ok(Buffer.from(replacedInvoice.keptFile!.settings).equals(invoiceSettings), 'find and replace keeps them too');
    // What TX cannot hold is a 400 naming it, not a lossy file.
    const withPicture = await merge('returnFormat=TX', { mergeData: [{}], template: b64(docx(p(picture('logo', 20, 20)))) });
    assert.equal(withPicture.status, 200, withPicture.text);
    assert.equal(readTx(decode(withPicture)[0]!).pictures?.length, 1, 'a logo in line is written as TX embeds one');
    const wide = `<w:tc><w:tcPr><w:tcW w:w="4000" w:type="dxa"/><w:gridSpan w:val="2"/></w:tcPr>${p(run('wide'))}</w:tc>`;
    const spanned = await merge('returnFormat=TX', {
      mergeData: [{}],
      template: b64(docx(table(row(wide) + row(cell(p(run('a'))) + cell(p(run('b'))))))),
    });
    assert.equal(spanned.status, 200, spanned.text);
    assert.deepEqual(
      readTx(decode(spanned)[0]!).tables[0]!.cells.map((c) => c.merged ?? null),
      [{ right: true }, { left: true }, null, null],
      'a cell merged across is written as TX keeps one',
    );
    const floating = docx(p(picture('logo', 20, 20).replace(/<wp:inline>([\s\S]*)<\/wp:inline>/, '<wp:anchor>$1</wp:anchor>')));
    const withFloating = await merge('returnFormat=TX', { mergeData: [{}], template: b64(floating) });
    assert.equal(withFloating.status, 400);
    assert.match(message(withFloating), /returnFormat TX cannot hold pictures that are not in line with the text; choose DOCX/);
  });

  it('marks every test run, a minimal DOCX without section properties too: DOCX and PDF (issue 48)', async () => {
    const files = unzipSync(docx(p(run('Hello'))));
    files['word/document.xml'] = strToU8(
      Buffer.from(files['word/document.xml']!)
        .toString('utf8')
        .replace(/<w:sectPr\b[\s\S]*?<\/w:sectPr>/, ''),
    );
    const minimal = b64(Buffer.from(zipSync(files)));
    const asDocx = decode(await merge('returnFormat=DOCX&test=true', { template: minimal, mergeData: [{}] }))[0]!;
    assert.ok(Object.values(unzipSync(asDocx)).some((part) => Buffer.from(part).toString('utf8').includes('string="TEST MODE"')));
    const pdf = decode(await merge('returnFormat=PDF&test=true', { template: minimal, mergeData: [{}] }))[0]!;
    assert.ok(redShare(pdf) > 0.01, `red share ${redShare(pdf)}`);
  });

  it('checks merge data against a template without making a document (POST /document/checkdata)', async () => {
    const template = docx(
      p(mergefield('customer.name'), run(' '), mergefield('city')) +
        table(row(cell(p('Item')), cell(p('Price'))), block('items', row(cell(p(mergefield('sku'))), cell(p(mergefield('price')))))),
    );
    const records = [
      { customer: { name: 'Ann' }, city: 'Oslo', items: [{ sku: 'A1', price: 3 }, { sku: 'B2' }], phone: '555' },
      { Customer: { Name: 'Bob' }, items: [], notes: 'x' },
    ];
    const before = (await paid.get('/v1/account/settings')).json() as { createdDocuments: number };
    const reply = await paid.post('/v1/document/checkdata', { json: { template: b64(template), mergeData: records } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json(), {
      records: 2,
      missingFields: [
        { name: 'price', block: 'items', records: [0] },
        { name: 'city', block: null, records: [1] },
      ],
      emptyBlocks: [{ name: 'items', records: [1] }],
      unusedData: ['phone', 'notes'],
    });
    const after = (await paid.get('/v1/account/settings')).json() as { createdDocuments: number };
    assert.equal(after.createdDocuments, before.createdDocuments, 'a check makes no document and counts none');
    // The same template stored, and the body rules of a merge.
    assert.equal((await paid.upload('check.docx', template)).status, 201);
    const stored = await paid.post('/v1/document/checkdata?templateName=check.docx', { json: { mergeData: records[0] } });
    assert.deepEqual((stored.json() as { missingFields: unknown[] }).missingFields, [{ name: 'price', block: 'items', records: [0] }]);
    const bad = await paid.post('/v1/document/checkdata', { json: { template: b64(template), mergeData: 'x' } });
    assert.equal(bad.status, 400);
  });

  it('describes a stored template in the shape clients parse', async () => {
    const template = docx(p(mergefield('title', '\\* MERGEFORMAT')) + block('items', p(mergefield('price', '\\# "$#,###.00"'))));
    assert.equal((await paid.upload('info.docx', template)).status, 201);
    const info = (await paid.get('/v1/templates/info?templateName=info.docx')).json() as Record<string, unknown>;
    const example = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'template_info_example.json'), 'utf8')) as Record<string, unknown>;
    for (const key of Object.keys(example)) assert.ok(key in info, key);
    assert.deepEqual(info.userDocumentProperties, {});
    assert.equal(info.templateName, 'info.docx');
    const block0 = (info.mergeBlocks as { name: string; mergeFields: Record<string, unknown>[] }[])[0]!;
    assert.equal(block0.name, 'items');
    const exampleField = (example.mergeBlocks as { mergeFields: Record<string, unknown>[] }[])[0]!.mergeFields[0]!;
    assert.deepEqual(Object.keys(block0.mergeFields[0]!).sort(), Object.keys(exampleField).sort());
    assert.equal(block0.mergeFields[0]!.numericFormat, '$#,###.00');
    assert.equal((await paid.get('/v1/templates/info?templateName=nope.docx')).status, 400);
  });

  it('merges the JPEG into test_template_image.docx, giving a PDF with the image', async () => {
    const body = {
      mergeData: [{ title: 'A photo', source: 'the SDK tests', photo: b64(fixture('test_template_image.jpg')) }],
      template: b64(fixture('test_template_image.docx')),
    };
    const [pdf] = decode(await merge('returnFormat=PDF', body));
    const doc = mupdf.Document.openDocument(pdf!, 'application/pdf');
    const json = JSON.parse(doc.loadPage(0).toStructuredText('preserve-images').asJSON()) as {
      blocks: { type: string; bbox: { w: number } }[];
    };
    const images = json.blocks.filter((b) => b.type === 'image');
    assert.ok(images.length >= 1, 'the PDF shows an image');
    assert.ok(images[0]!.bbox.w > 300, `image width ${images[0]!.bbox.w}pt`);
    assert.match(pdfFacts(pdf!).text, /A photo/);
    const bad = await merge('returnFormat=PDF', { ...body, mergeData: [{ photo: b64(Buffer.from('no image')) }] });
    assert.equal(bad.status, 400);
    assert.match(message(bad), /image "photo"/);
  });

  it('merges HTML values as formatted content that LibreOffice lays out', async () => {
    const template = docx(p(run('Intro: '), mergefield('body')));
    const html =
      '<html><h2>Heading</h2><p>Some <b>bold</b> and <i>italic</i> text.</p><ul><li>one</li><li>two</li></ul><table><tr><td>A1</td><td>B1</td></tr></table></html>';
    const reply = await merge('returnFormat=PDF', {
      mergeData: [{ body: html }],
      template: b64(template),
      mergeSettings: { mergeHtml: true },
    });
    assert.equal(reply.status, 200, reply.text);
    const text = pdfFacts(decode(reply)[0]!).text;
    for (const piece of ['Intro:', 'Heading', 'Some bold and italic text.', 'one', 'two', 'A1', 'B1'])
      assert.ok(text.includes(piece), piece);
    assert.ok(!text.includes('<b>'));
    const lists = '<html><ol><li>first<ol><li>inner</li></ol></li><li>second</li></ol><ul><li>dot</li></ul><ol><li>again</li></ol></html>';
    const listed = await merge('returnFormat=PDF', {
      mergeData: [{ body: lists }],
      template: b64(template),
      mergeSettings: { mergeHtml: true },
    });
    assert.match(
      pdfFacts(decode(listed)[0]!).text,
      /1\.\s*first\s+a\.\s*inner\s+2\.\s*second\s+•\s*dot\s+1\.\s*again/,
      'Word lists as LibreOffice numbers them',
    );
  });

  it('finds and replaces in a stored or uploaded template', async () => {
    const reply = await paid.post('/v1/document/findandreplace?returnFormat=TXT&templateName=letter.docx', {
      json: {
        findAndReplaceData: [
          ['Name', 'Nom'],
          ['Age', 'Âge'],
        ],
      },
    });
    assert.equal(reply.status, 200, reply.text);
    const text = Buffer.from(reply.json() as string, 'base64').toString('utf8');
    assert.match(text, /Nom/);
    assert.match(text, /Âge/);
    const uploaded = await paid.post('/v1/document/findandreplace?returnFormat=DOCX', {
      json: { findAndReplaceData: [['Test', 'Probe']], template: b64(fixture('test_document.docx')) },
    });
    assert.match(partText(Buffer.from(uploaded.json() as string, 'base64')), /^\n?A Probe File$/);
    for (const [body, expected] of [
      [{ template: b64(fixture('test_document.docx')) }, /findAndReplaceData is missing/],
      [{ findAndReplaceData: [['', 'x']], template: b64(fixture('test_document.docx')) }, /empty find text/],
      [{ findAndReplaceData: [['a', 'b']] }, /No template/],
    ] as const) {
      const bad = await paid.post('/v1/document/findandreplace?returnFormat=PDF', { json: body });
      assert.equal(bad.status, 400);
      assert.match(message(bad), expected);
    }
  });

  it('merges records a thread parses from the text they came as: no __proto__ or constructor keys; broken JSON in a record is a 400, not counted', async () => {
    const template = b64(docx(p(mergefield('name'), run('|'), mergefield('constructor'), run('|'), mergefield('polluted'))));
    const records =
      '[ {"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "name": "Ann"} ,\n{"name": "Bob"} ]';
    const send = (mergeData: string, query = 'returnFormat=DOCX&append=false') =>
      paid.post(`/v1/document/merge?${query}`, { body: `{"mergeData": ${mergeData}, "template": "${template}"}` });
    const merged = await send(records);
    assert.equal(merged.status, 200, merged.text);
    assert.deepEqual(
      decode(merged).map((d) => partText(d, 'word/document.xml')),
      ['Ann||', 'Bob||'],
    );
    const count = async () => ((await paid.get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
    const before = await count();
    for (const query of ['returnFormat=DOCX', 'returnFormat=PDF']) {
      const broken = await send('[{"name": "Ann"}, {"name": }]', query);
      assert.equal(broken.status, 400, broken.text);
      assert.match(message(broken), /^mergeData is not valid JSON \(/);
    }
    const checked = await paid.post('/v1/document/checkdata', { body: `{"mergeData": [{"name": ]}], "template": "${template}"}` });
    assert.equal(checked.status, 400, checked.text);
    assert.equal(await count(), before, 'nothing counted');
  });

  it('refuses bad requests with a clear 400', async () => {
    const template = b64(fixture('test_template.docx'));
    const unbalanced = b64(docx(p('<w:bookmarkStart w:id="9" w:name="txmb_open"/>', mergefield('x'))));
    const cases: [string, unknown, RegExp][] = [
      ['returnFormat=PDF', undefined, /request body is empty/],
      ['returnFormat=PDF', 'just a string', /must be a JSON object/],
      ['returnFormat=PDF', { template }, /mergeData is missing/],
      ['returnFormat=PDF', { mergeData: 'x', template }, /not a JSON string/],
      ['returnFormat=PDF', { mergeData: [], template }, /empty array/],
      ['returnFormat=PDF', { mergeData: [{}, 3], template }, /mergeData\[1\] must be a record/],
      ['returnFormat=PDF', { mergeData: [{}] }, /No template/],
      ['returnFormat=PDF&templateName=letter.docx', { mergeData: [{}], template }, /either templateName or a template/],
      ['returnFormat=PDF&templateName=missing.docx', { mergeData: [{}] }, /no template named "missing.docx"/],
      ['returnFormat=PDF', { mergeData: [{}], template: 'not base64!' }, /not valid Base64/],
      ['returnFormat=PDF', { mergeData: [{}], template: b64(unreadableTx()) }, /TX Text Control/],
      ['returnFormat=PDF', { mergeData: [{}], template: b64(fixture('maelzel_machine.pdf')) }, /PDF, which is not accepted/],
      ['returnFormat=PDF', { mergeData: [{}], template, mergeSettings: { culture: 'zz-ZZZ-bad' } }, /culture/],
      [
        'returnFormat=PDF',
        { mergeData: [{}], template, mergeSettings: { removeEmptyFields: 'maybe' } },
        /removeEmptyFields must be true or false/,
      ],
      ['returnFormat=PDF', { mergeData: [{}], template, mergeSettings: 'yes' }, /mergeSettings must be a JSON object/],
      ['returnFormat=PDF', { mergeData: [{}], template, mergeSettings: { documentTitle: 'x'.repeat(2001) } }, /longer than 2000/],
      ['returnFormat=PDF', { mergeData: [{}], template: unbalanced }, /merge block "open"/],
      [
        'returnFormat=PDF',
        { mergeData: [{ ean: 'ABC' }], template: b64(docx(p(field('MERGEBARCODE ean EAN13')))) },
        /"ABC" for the barcode .* cannot be drawn as EAN13/,
      ],
      ['returnFormat=DOCX', { mergeData: [{ x: 1 }], template: b64(docx(p(field('MERGEBARCODE x EAN99')))) }, /type "EAN99"; use QR/],
      [
        'returnFormat=XPS',
        { mergeData: [{}], template },
        /returnFormat "XPS" is not supported; choose PDF, PDFA, DOCX, DOC, RTF, HTML, TXT or TX/,
      ],
      ['', { mergeData: [{}], template }, /"returnFormat" is required/],
    ];
    for (const [query, body, expected] of cases) {
      const reply = body === undefined ? await paid.post(`/v1/document/merge?${query}`) : await merge(query, body);
      assert.equal(reply.status, 400, `${query} ${JSON.stringify(body)?.slice(0, 80)}: ${reply.text}`);
      assert.match(message(reply), expected);
    }
  });
});
