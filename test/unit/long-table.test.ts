// A long table cut at its rows for a layout in parts (ooxml/longTable.ts): which documents qualify,
// and that every part is a document Word reads, numbered on from where the previous part stopped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { longTablePartDocx, longTablePartXml, splitLongTable, LONG_TABLE_BOOKMARK } from '../../src/ooxml/longTable.js';
import { docx, field, gridRow, gridTable, p, partXml, run } from '../helpers/docx.js';
import { wordProblems } from '../helpers/word-rules.js';

const widths = [2000, 5000, 2000];
const header = gridRow(widths, [p(run('Date')), p(run('Text')), p(run('Amount'))], true);
const rows = (n: number) => Array.from({ length: n }, (_, i) => gridRow(widths, [p(run(`d${i}`)), p(run(`row ${i}`)), p(run(`${i}.00`))]));
const statement = (body = gridTable(widths, header, ...rows(1200)), options: Parameters<typeof docx>[1] = {}) =>
  docx(p(run('Statement')) + body + p(run('Closing balance')), { footer: p(run('Page '), field('PAGE', '1')), ...options });

describe('a long table cut at its rows', () => {
  it('finds the table, its header rows and what surrounds it', () => {
    const split = splitLongTable(statement(), 1000)!;
    assert.ok(split);
    assert.equal(split.headerRows.length, 1);
    assert.equal(split.rows.length, 1200);
    assert.match(split.rows[0]!, /row 0</);
    assert.match(split.before, /Statement/);
    assert.match(split.after, /Closing balance/);
    assert.equal(split.firstPage, 1);
    assert.equal(split.updateFields, false, 'a page number in the footer is set by the layout');
    const dated = splitLongTable(statement(undefined, { header: p(run('Printed '), field('DATE', '1.1.2026')) }), 1000)!;
    assert.equal(dated.updateFields, true, 'a date in the header is recomputed');
    assert.equal(splitLongTable(statement(), 1202), null, 'shorter than asked (the header row counts)');
    // A header row switched off is a row like any other.
    const off = statement(gridTable(widths, header.replace('<w:tblHeader/>', '<w:tblHeader w:val="0"/>'), ...rows(1200)));
    assert.equal(splitLongTable(off, 1000)!.headerRows.length, 0);
  });

  it('makes parts Word reads: the first with what precedes the table, the others numbered on, the last with what follows', () => {
    const split = splitLongTable(statement(undefined, { restartNumbering: true }), 1000)!;
    const first = longTablePartXml(split, 0, 500, 1);
    assert.match(first, /Statement/);
    assert.doesNotMatch(first, /Closing balance/);
    // The office finds the table by a bookmark in its first row.
    assert.match(first, new RegExp(`>Date</w:t></w:r><w:bookmarkStart w:id="\\d+" w:name="${LONG_TABLE_BOOKMARK}"/>`));
    assert.equal((first.match(/<w:tr>/g) ?? []).length, 501, 'the header row and 500 rows');
    assert.match(first, /<\/w:tbl><w:p\/><w:sectPr>/);

    const middle = longTablePartXml(split, 500, 1000, 17);
    assert.doesNotMatch(middle, /Statement|Closing balance/);
    assert.match(middle, /<w:tblHeader\/>.*row 500</);
    assert.match(middle, /<w:pgNumType w:start="17"\/>/);
    assert.equal((middle.match(/w:start=/g) ?? []).length, 1, 'the start replaced, not added');

    const last = longTablePartXml(split, 1000, 1200, 30);
    assert.match(last, /row 1199<.*<\/w:tbl>.*Closing balance/);
    for (const [xml, name] of [
      [first, 'first'],
      [middle, 'middle'],
      [last, 'last'],
    ] as const) {
      const part = longTablePartDocx(split, xml);
      assert.deepEqual(wordProblems(part), [], name);
      assert.match(partXml(part, 'word/footer1.xml'), />Page </, `${name}: the other parts kept`);
    }
  });

  it('puts the page number where CT_SectPr wants it, and leaves the different first page to the first part', () => {
    const titled = statement(undefined);
    const split = splitLongTable(titled, 1000)!;
    split.sectPr = split.sectPr.replace('</w:sectPr>', '<w:titlePg/><w:docGrid w:linePitch="360"/></w:sectPr>');
    const xml = longTablePartXml(split, 500, 1200, 12);
    assert.match(xml, /<w:pgMar [^>]*\/><w:pgNumType w:start="12"\/><w:docGrid w:linePitch="360"\/><\/w:sectPr>/);
    assert.deepEqual(wordProblems(longTablePartDocx(split, xml)), []);
    assert.match(longTablePartXml(split, 0, 500, 1), /<w:titlePg\/>/);
  });

  it('leaves whole what parts would lay out differently', () => {
    const table = gridTable(widths, header, ...rows(1200));
    const cases: [string, Buffer][] = [
      ['page totals', statement(table, { footer: p(run('of '), field('NUMPAGES', '9')) })],
      ['two sections', statement(table.replace('</w:tbl>', '</w:tbl><w:p><w:pPr><w:sectPr/></w:pPr></w:p>'))],
      ['a grid that does not fit the rows', statement(table.replace('<w:gridCol w:w="2000"/>', ''))],
      [
        'vertically merged cells',
        statement(table.replace('<w:tcW w:w="5000" w:type="dxa"/>', '<w:tcW w:w="5000" w:type="dxa"/><w:vMerge/>')),
      ],
      [
        'a table in a row',
        statement(
          table.replace(
            '<w:p><w:r><w:t xml:space="preserve">row 5<',
            `${gridTable([1000], gridRow([1000], [p(run('x'))]))}<w:p><w:r><w:t xml:space="preserve">row 5<`,
          ),
        ),
      ],
      ['a floating table', statement(table.replace('<w:tblPr>', '<w:tblPr><w:tblpPr w:vertAnchor="page" w:tblpY="2000"/>'))],
    ];
    for (const [name, document] of cases) assert.equal(splitLongTable(document, 1000), null, name);
  });
});
