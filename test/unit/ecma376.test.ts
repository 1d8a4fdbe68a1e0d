// DOCX we write and ship, checked against the ECMA-376 Transitional schemas (xmllint), where the
// schemas are (see helpers/ecma376.ts): what Word's own reader would call invalid.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readTx } from '../../src/formats/tx/read.js';
import { txToDocx } from '../../src/formats/tx/docx.js';
import { ROOT } from '../helpers/server.js';
import { cell, docx, p, row, run, table } from '../helpers/docx.js';
import { txWithChanges, txWithFrame, txWithPicture, txWithSignatureBox, txWithTextBox } from '../helpers/tx.js';
import { loadSvgRasteriser } from '../../src/render/svg.js';
import { ecma376Problems, ecma376Skip } from '../helpers/ecma376.js';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { translateTemplate } from '../../src/merge/syntax/index.js';

const txFiles = [
  'samples/reportingcloud/sample_invoice.tx',
  'test/fixtures/reportingcloud/resource/test_template.tx',
  'test/fixtures/reportingcloud/resource/test_find_and_replace.tx',
  'test/fixtures/reportingcloud/text-in-merge-data/template.tx',
];

describe('DOCX against the ECMA-376 schemas', { skip: ecma376Skip }, () => {
  it('validates the DOCX written from every TX file (cell borders and margins in schema order)', async () => {
    for (const file of txFiles) {
      const docx = txToDocx(readTx(fs.readFileSync(path.join(ROOT, file))));
      assert.deepEqual(ecma376Problems(docx), [], file);
    }
    assert.deepEqual(ecma376Problems(txToDocx(readTx(txWithFrame(29)))), [], 'a text frame');
    assert.deepEqual(ecma376Problems(txToDocx(readTx(txWithFrame(29, undefined, 1)))), [], 'a floating text frame (a text box)');
    assert.deepEqual(ecma376Problems(txToDocx(readTx(txWithTextBox()))), [], 'a text box in line');
    assert.deepEqual(ecma376Problems(txToDocx(readTx(txWithChanges([{ start: 2, end: 40 }])))), [], 'tracked insertions');
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10"><rect width="20" height="10" fill="#0d3964"/></svg>',
    );
    const withSvg = readTx(txWithPicture(svg, 2, undefined, 'svg'));
    assert.deepEqual(ecma376Problems(txToDocx(withSvg, await loadSvgRasteriser())), [], 'an SVG picture (PNG, svgBlip)');
    const box = { kind: 2, x: -4, y: 12, width: 3130, height: 1002 };
    assert.deepEqual(
      ecma376Problems(txToDocx(readTx(txWithSignatureBox(30, box, svg, 'svg')), await loadSvgRasteriser())),
      [],
      'a signature box',
    );
  });

  it('validates every sample template', () => {
    const samples = fs.readdirSync(path.join(ROOT, 'samples'), { withFileTypes: true }).filter((d) => d.isDirectory());
    let checked = 0;
    for (const sample of samples) {
      const file = path.join(ROOT, 'samples', sample.name, 'template.docx');
      if (!fs.existsSync(file)) continue;
      assert.deepEqual(ecma376Problems(fs.readFileSync(file)), [], file);
      checked++;
    }
    assert.ok(checked >= 6, `${checked} samples`);
  });

  it('validates raw XML values put in place of their paragraphs: in the body, last in a cell, on a section break', () => {
    const value =
      '<w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t>Shipped</w:t></w:r></w:p>' +
      '<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/></w:tblGrid>' +
      '<w:tr><w:tc><w:p><w:r><w:t>inner</w:t></w:r></w:p></w:tc></w:tr></w:tbl>';
    const template = docx(
      p(run('Before')) +
        p(run('{@x}')) +
        table(row(cell(p(run('{@x}'))))) +
        p(run('{@none}')) +
        p('<w:pPr><w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:pPr>', run('{@x}')) +
        p(run('After')),
    );
    const translated = translateTemplate(template, 'docxtemplater', undefined, { culture: 'en-US', rawXml: true });
    const merged = CompiledTemplate.compile(translated).merge([{ x: value }], { ...DEFAULT_MERGE_OPTIONS, rawXml: true }, true)[0]!;
    assert.deepEqual(ecma376Problems(merged), []);
  });

  it('finds what the schema forbids, after leaving out what mc:Ignorable names', () => {
    const { table } = ecmaCase();
    assert.deepEqual(ecma376Problems(table(false)), []);
    assert.match(ecma376Problems(table(true)).join('\n'), /word\/document\.xml: .*top.*This element is not expected/);
  });
});

/** A one-cell table with its borders in schema order or not, and a w14 attribute Word ignores. */
function ecmaCase() {
  return {
    table: (wrongOrder: boolean) => {
      const sides = wrongOrder ? ['left', 'top'] : ['top', 'left'];
      const borders = sides.map((s) => `<w:${s} w:val="single" w:sz="4" w:space="0" w:color="auto"/>`).join('');
      return docx(
        '<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/></w:tblGrid>' +
          `<w:tr><w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:tcBorders>${borders}</w:tcBorders></w:tcPr><w:p w14:paraId="1A2B3C4D"/></w:tc></w:tr></w:tbl><w:p/>`,
      );
    },
  };
}
