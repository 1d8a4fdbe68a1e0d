import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rtfCharts } from '../../src/formats/rtf-charts.js';
import { putInSchemaOrder } from '../../src/ooxml/properties-order.js';
import { tidyOfficeDocx } from '../../src/ooxml/tidy.js';
import { parseXml, serialize } from '../../src/ooxml/xml.js';
import { docx, p, partXml, rtfObject, run } from '../helpers/docx.js';
import { wordProblems } from '../helpers/word-rules.js';

describe('charts embedded in RTF', () => {
  it('finds chart objects with their names and classes, and nothing else', () => {
    const rtf = Buffer.from(
      `{\\rtf1\\ansi {\\fonttbl{\\f0 Arial;}}\\pard Sales {\\b report}\\par ${rtfObject('MSGraph.Chart.8', 'sales')} ${rtfObject('Word.Document.12', 'letter')}` +
        ` {\\*\\shppict{\\pict\\pngblip 89504e47}} ${rtfObject('Excel.Chart.8')} {\\bin4 {}}\\par}`,
    );
    assert.deepEqual(rtfCharts(rtf), [
      { name: 'sales', objectClass: 'MSGraph.Chart.8' },
      { name: undefined, objectClass: 'Excel.Chart.8' },
    ]);
    assert.deepEqual(rtfCharts(Buffer.from('{\\rtf1\\ansi \\pard no objects, a chart in words only: Chart\\par}')), []);
  });

  it('reads names written in escapes, and survives cut-off input', () => {
    const rtf = `{\\rtf1 ${rtfObject('MSGraph.Chart.8', "Ums\\'e4tze")}}`;
    assert.deepEqual(rtfCharts(Buffer.from(rtf, 'latin1')), [{ name: 'Umsätze', objectClass: 'MSGraph.Chart.8' }]);
    for (let cut = 1; cut < rtf.length; cut += 7) assert.ok(Array.isArray(rtfCharts(Buffer.from(rtf.slice(0, cut), 'latin1'))));
  });
});

describe('DOCX the office writes, tidied for Word', () => {
  it('puts section properties after the other paragraph properties, as LibreOffice does not', () => {
    const root = parseXml(
      '<w:p xmlns:w="w"><w:pPr><w:sectPr><w:pgSz/><w:type/></w:sectPr><w:pStyle w:val="Normal"/><w:rPr/></w:pPr></w:p>',
      'x',
    ).root;
    assert.equal(putInSchemaOrder(root), true);
    assert.equal(
      serialize(root),
      '<w:p xmlns:w="w"><w:pPr><w:pStyle w:val="Normal"/><w:rPr/><w:sectPr><w:type/><w:pgSz/></w:sectPr></w:pPr></w:p>',
    );
    assert.equal(putInSchemaOrder(root), false, 'in order now');
  });

  it('changes a package only where it is out of order', () => {
    const clean = docx(p(run('a')));
    assert.equal(tidyOfficeDocx(clean), clean);
    const office = docx(
      `<w:p><w:pPr><w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr><w:pStyle w:val="Normal"/></w:pPr>${run('one')}</w:p>${p(run('two'))}`,
    );
    assert.ok(wordProblems(office).some((problem) => problem.startsWith('order:')));
    const tidied = tidyOfficeDocx(office);
    assert.deepEqual(wordProblems(tidied), []);
    assert.match(partXml(tidied), /<w:pPr><w:pStyle w:val="Normal"\/><w:sectPr>/);
    // A numbering level as LibreOffice 7.4 writes it: its paragraph style before its number format.
    const listed = docx(p(run('one')), {
      numbering:
        '<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:pStyle w:val="Heading1"/><w:numFmt w:val="none"/><w:suff w:val="nothing"/><w:lvlText w:val=""/><w:lvlJc w:val="left"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>',
    });
    assert.ok(wordProblems(listed).some((problem) => problem.startsWith('order:')));
    const numbered = tidyOfficeDocx(listed);
    assert.deepEqual(wordProblems(numbered), []);
    assert.match(partXml(numbered, 'word/numbering.xml'), /<w:start w:val="1"\/><w:numFmt w:val="none"\/><w:pStyle w:val="Heading1"\/>/);
  });
});
