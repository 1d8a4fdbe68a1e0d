// A long table's parts as ODT (odf/longTable.ts): rows grouped into shapes (ooxml/longTable.ts), a
// prototype the office converts, and parts made from the office's ODT with each row's own texts.
// The office's side (the same pages as DOCX parts) is tested in test/office/converter.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LONG_TABLE_BOOKMARK, MAX_ROW_SHAPES, rowTexts, splitLongTable, textMarker } from '../../src/ooxml/longTable.js';
import { longTablePartOdt, odfText, odtRows, prototypeOf, type Prototype } from '../../src/odf/longTable.js';
import { readZip, writeZip } from '../../src/ooxml/zip.js';
import { docx, field, gridRow, gridTable, p, run } from '../helpers/docx.js';

const widths = [2000, 5000, 2000];
const header = gridRow(widths, [p(run('Date')), p(run('Text')), p(run('Amount'))], true);
const line = (i: number, text = `row ${i}`) => gridRow(widths, [p(run(`d${i}`)), p(run(text)), p(run(`${i}.00`))]);
const statement = (rows: string[], after = p(run('Closing balance'))) =>
  docx(p(run('Statement')) + gridTable(widths, header, ...rows) + after, { footer: p(run('Page '), field('PAGE', '1')) });
const many = (n: number, row: (i: number) => string = line) => Array.from({ length: n }, (_, i) => row(i));
const shapesOf = (rows: string[]) => splitLongTable(statement(rows), 10)?.shapes ?? null;

describe('a long table in row shapes', () => {
  it('finds rows alike but for their texts, and a prototype with one row of each whose texts are markers', () => {
    const split = splitLongTable(statement(many(40)), 10)!;
    assert.deepEqual(new Set(split.shapes!.of), new Set([0]));
    const { prototype } = split.shapes!;
    assert.match(prototype, new RegExp(`>Date</w:t></w:r><w:bookmarkStart w:id="\\d+" w:name="${LONG_TABLE_BOOKMARK}"/>`));
    assert.equal((prototype.match(/<w:tr>/g) ?? []).length, 2, 'the header row and one row');
    for (const n of [0, 1, 2]) assert.ok(prototype.includes(`>${textMarker(n)}</w:t>`), `marker ${n}`);
    assert.doesNotMatch(prototype, /Statement/, "what precedes the table is in the first part's own");
    assert.match(prototype, /<\/w:tbl><w:p\/><w:p>.*Closing balance.*<w:pgNumType w:start="1"\/>/);
  });

  it('makes the first part a prototype of its own when what precedes the table is plain text', () => {
    const { first } = splitLongTable(statement(many(40)), 10)!.shapes!;
    assert.match(first!, /<w:body><w:p><w:r><w:t xml:space="preserve">Statement<\/w:t><\/w:r><\/w:p><w:tbl>/);
    assert.doesNotMatch(first!, /<w:pgNumType/, "the document's own numbering");
    assert.match(first!, new RegExp(`>${textMarker(0)}</w:t>`));
    const withField = docx(p(run('Statement '), field('DATE', '1 May')) + gridTable(widths, header, ...many(40)), {});
    assert.equal(splitLongTable(withField, 10)!.shapes!.first, null, 'a field before the table: the first part stays DOCX');
  });

  it('tells shapes apart by everything but texts and ids', () => {
    const bold = (i: number) => line(i).replace('<w:r>', '<w:r><w:rPr><w:b/></w:rPr>');
    const rows = [...many(20), bold(20), line(21, ''), line(22).replaceAll('<w:p>', '<w:p w:rsidR="00AB12CD">')];
    assert.deepEqual(shapesOf(rows)!.of.slice(18), [0, 0, 1, 2, 0]);
    // An empty text is a shape of its own: the prototype has no marker for it.
    const split = splitLongTable(statement(rows), 10)!;
    assert.equal((split.shapes!.prototype.match(/\uE000/g) ?? []).length, 3 + 3 + 2);
  });

  it('keeps parts DOCX for rows that hold more than text, and for texts the office reads its own way', () => {
    const fieldRow = (i: number) => gridRow(widths, [p(run(`d${i}`)), p(field('PAGE', '1')), p(run('x'))]);
    const numbered = (i: number) =>
      line(i).replace('<w:p>', '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>');
    const tab = (i: number) => line(i).replace(`row ${i}`, 'a&#9;b');
    const unkept = (i: number) => line(i).replace(/<w:t xml:space="preserve">row /, '<w:t> row ');
    for (const [name, row] of Object.entries({ fieldRow, numbered, tab, unkept }))
      assert.equal(shapesOf([...many(20), row(20)]), null, name);
    const varied = (i: number) => line(i).replace('<w:r>', `<w:r><w:rPr><w:sz w:val="${20 + i}"/></w:rPr>`);
    assert.ok(shapesOf(many(MAX_ROW_SHAPES, varied)), 'as many shapes as allowed');
    assert.equal(shapesOf(many(MAX_ROW_SHAPES + 1, varied)), null, 'more');
  });

  it('reads texts as text and writes them as ODF keeps them', () => {
    assert.deepEqual(
      rowTexts('<w:r><w:t>a &amp; b</w:t></w:r><w:r><w:t/></w:r><w:tab/><w:r><w:t xml:space="preserve">&#x41;&#66; &lt;</w:t></w:r>'),
      ['a & b', '', 'AB <'],
    );
    assert.equal(odfText('a b'), 'a b');
    assert.equal(odfText(' a'), '<text:s/>a');
    assert.equal(odfText('a  b'), 'a <text:s/>b');
    assert.equal(odfText('a   '), 'a<text:s text:c="3"/>');
    assert.equal(odfText(' '), '<text:s/>');
    assert.equal(odfText('<&>'), '&lt;&amp;&gt;');
  });
});

/** An ODT in the office's manner: the prototype's table with `rows` after `header`, then `after`. */
function officeOdt(
  header: string,
  rows: string[],
  after = '<text:p text:style-name="P1">Closing balance</text:p>',
  pageNumber = '1',
): Uint8Array {
  const cell = (content: string) =>
    `<table:table-cell table:style-name="Table1.A1" office:value-type="string">${content}</table:table-cell>`;
  const content =
    '<?xml version="1.0" encoding="UTF-8"?><office:document-content><office:automatic-styles>' +
    `<style:style style:name="Table1" style:family="table" style:master-page-name="Standard"><style:table-properties style:page-number="${pageNumber}"/></style:style>` +
    '</office:automatic-styles><office:body><office:text><text:sequence-decls><text:sequence-decl text:name="Table"/></text:sequence-decls>' +
    '<table:table table:name="Table1" table:style-name="Table1"><table:table-column table:style-name="Table1.A" table:number-columns-repeated="2"/><table:table-column table:style-name="Table1.B"/>' +
    header +
    rows.map((row) => `<table:table-row>${row.split('|').map(cell).join('')}</table:table-row>`).join('') +
    '</table:table><text:p text:style-name="Standard"/>' +
    after +
    '</office:text></office:body></office:document-content>';
  const files: [string, Uint8Array][] = [
    ['mimetype', Buffer.from('application/vnd.oasis.opendocument.text')],
    ['content.xml', Buffer.from(content)],
    ['styles.xml', Buffer.from('<office:document-styles/>')],
  ];
  return writeZip(files);
}

describe("a long table part made from the office's ODT of its prototype", () => {
  const shapes = [line(0), line(1, '')];
  const prototype: Prototype = { headerRows: 1, columns: 3, shapes, after: true };
  const headerRows = `<table:table-header-rows><table:table-row>${'<table:table-cell><text:p>Date<text:bookmark text:name="_docsmith_rows"/></text:p></table:table-cell>'}</table:table-row></table:table-header-rows>`;
  const m = (n: number) => textMarker(n);
  const good = [
    `<text:p>${m(0)}</text:p>|<text:p>${m(1)}</text:p>|<text:p text:style-name="P2">${m(2)}</text:p>`,
    `<text:p>${m(3)}</text:p>|<text:p/>|<text:p>${m(4)}</text:p>`,
  ];
  const contentOf = (part: Uint8Array) => Buffer.from(readZip(part).get('content.xml')!).toString('utf8');

  it("puts each row's texts into its shape's row, numbers the pages and ends as the part should", () => {
    const odt = odtRows(officeOdt(headerRows, good), prototype)!;
    assert.ok(odt);
    assert.equal(odt.markFirstRow, false);
    // A text that looks like a marker is only text: markers are read from the office's ODT once, never from the rows.
    const rows = [line(7, ' two  spaces & more '), line(8, ''), line(9, `${textMarker(4)}<b>`)];
    const middle = contentOf(longTablePartOdt(odt, rows, [0, 1, 0], 58, false));
    assert.match(middle, /style:page-number="58"/);
    assert.match(middle, /Date<text:bookmark text:name="_docsmith_rows"\/>/);
    assert.ok(
      middle.includes(
        '<text:p>d7</text:p></table:table-cell><table:table-cell table:style-name="Table1.A1" office:value-type="string"><text:p><text:s/>two <text:s/>spaces &amp; more<text:s/></text:p>',
      ),
    );
    assert.ok(
      middle.includes(
        '<text:p>d8</text:p></table:table-cell><table:table-cell table:style-name="Table1.A1" office:value-type="string"><text:p/>',
      ),
    );
    assert.ok(middle.includes(`<text:p>${textMarker(4)}&lt;b&gt;</text:p>`));
    assert.equal((middle.match(/<table:table-row>/g) ?? []).length, 4);
    assert.doesNotMatch(middle, /Closing balance/, 'a part before the last ends with an empty paragraph');
    assert.match(middle, /<\/table:table><text:p text:style-name="Standard"\/><\/office:text>/);
    const last = contentOf(longTablePartOdt(odt, rows.slice(2), [0], 60, true));
    assert.match(last, /<\/table:table><text:p text:style-name="P1">Closing balance<\/text:p><\/office:text>/);
    assert.equal([...readZip(longTablePartOdt(odt, rows, [0, 1, 0], 58, false)).keys()][0], 'mimetype');
    assert.equal(
      odtRows(officeOdt(headerRows, good), { ...prototype, after: false })!.end.last,
      null,
      'nothing after the table: the last part stays DOCX',
    );
  });

  it("puts the bookmark into a part's first row when the table has no header rows", () => {
    const marked = [
      good[0]!.replace(`${m(0)}</text:p>`, `${m(0)}<text:bookmark text:name="_docsmith_rows"/></text:p>`),
      `<text:p/>|<text:p/>|<text:p>${m(3)}</text:p>`,
    ];
    const odt = odtRows(officeOdt('', marked), { ...prototype, headerRows: 0, shapes: [line(0), line(1, '').replace('>d1<', '><')] })!;
    assert.ok(odt?.markFirstRow);
    const part = contentOf(longTablePartOdt(odt, [line(1, '').replace('>d1<', '><'), line(2)], [1, 0], 3, false));
    assert.match(part, /<table:table-row><table:table-cell[^>]*><text:p><text:bookmark text:name="_docsmith_rows"\/><\/text:p>/);
    assert.equal(part.split(LONG_TABLE_BOOKMARK).length, 2);
  });

  it("keeps what precedes the table and the document's own page numbers in the first part", () => {
    const lead = '<text:p text:style-name="P3">Statement for Ann Lee</text:p>';
    const withLead = (odt: Uint8Array) => {
      const zip = readZip(odt);
      const content = Buffer.from(zip.get('content.xml')!)
        .toString('utf8')
        .replace('</text:sequence-decls>', `</text:sequence-decls>${lead}`);
      return writeZip([...zip].map(([name, data]): [string, Uint8Array] => [name, name === 'content.xml' ? Buffer.from(content) : data]));
    };
    const odt = odtRows(withLead(officeOdt(headerRows, good, undefined, '')), { ...prototype, first: true })!;
    assert.ok(odt);
    assert.equal(odt.start.length, 1);
    const part = contentOf(longTablePartOdt(odt, [line(0)], [0], 1, false));
    assert.match(part, new RegExp(`${lead}<table:table `));
    assert.doesNotMatch(part, /style:page-number="1"/);
    assert.equal(odtRows(withLead(officeOdt(headerRows, good)), prototype), null, 'something before the table of a part after the first');
  });

  it("keeps parts DOCX when the office's ODT is not plainly the prototype's rows", () => {
    assert.equal(odtRows(officeOdt(headerRows, good.slice(0, 1)), prototype), null, 'a row missing');
    assert.equal(odtRows(officeOdt('', good), prototype), null, 'no header rows');
    assert.equal(odtRows(officeOdt(headerRows, [good[0]!, good[1]!.replace(m(4), '')]), prototype), null, 'a text missing');
    assert.equal(
      odtRows(officeOdt(headerRows, [good[0]!, `<text:list><text:list-item>${good[1]}</text:list-item></text:list>`]), prototype),
      null,
      'a list',
    );
    assert.equal(odtRows(officeOdt(headerRows, good), { ...prototype, columns: 4 }), null, 'other columns');
    assert.equal(odtRows(officeOdt(headerRows, good, undefined, '2'), prototype), null, 'no page number to set');
    const split = splitLongTable(statement(many(20)), 10)!;
    assert.deepEqual(prototypeOf(split), { headerRows: 1, columns: 3, shapes: [split.rows[0]], after: true });
  });
});
