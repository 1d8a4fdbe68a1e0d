import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { DEFAULT_MERGE_OPTIONS } from '../../../src/merge/engine.js';
import { workbook } from '../../../src/merge/charts.js';
import { readZip } from '../../../src/ooxml/zip.js';
import { block, cell, chart, docx, mergefield, p, partXml, row, run, table } from '../../helpers/docx.js';
import { checkedCompile } from '../../helpers/word-rules.js';

const salesChart = chart('sales', 'rIdCh1', ['Revenue', 'Cost']);
const design = workbook('Sheet1', [
  ['', 'Revenue', 'Cost'],
  ['United States', '700', '1'],
  ['Europe', '600', '2'],
]);
const template = docx(
  p(run('Sales of '), mergefield('region')) +
    table(
      row(cell(p(run('Quarter'))), cell(p(run('Revenue'))), cell(p(run('Cost')))),
      block('sales', row(cell(p(mergefield('quarter'))), cell(p(mergefield('Revenue'))), cell(p(mergefield('Cost'))))),
    ) +
    p(salesChart.xml),
  { charts: { rIdCh1: { xml: salesChart.chartXml, workbook: design } } },
);

const points = (xml: string, tag: 'cat' | 'val', series = 0) => {
  const ser = xml.match(/<c:ser>[\s\S]*?<\/c:ser>/g)![series]!;
  const part = new RegExp(`<c:${tag}>([\\s\\S]*?)</c:${tag}>`).exec(ser)![1]!;
  return [...part.matchAll(/<c:v>([^<]*)<\/c:v>/g)].map((m) => m[1]);
};

/** The cells of the first sheet of an embedded workbook, row by row. */
function sheet(xlsx: Uint8Array): string[][] {
  const xml = Buffer.from(readZip(xlsx).get('xl/worksheets/sheet1.xml')!).toString('utf8');
  return [...xml.matchAll(/<row [^>]*>([\s\S]*?)<\/row>/g)].map((r) => [...r[1]!.matchAll(/<(?:v|t[^>]*)>([^<]*)</g)].map((m) => m[1]!));
}

describe('merge engine: charts bound to merge blocks', () => {
  it('fills the chart named after a block with its rows: caches, formulas and the embedded workbook', () => {
    const rows = [
      { quarter: 'Q1', Revenue: 120, Cost: 80 },
      { quarter: 'Q2', Revenue: '180.5', Cost: 90 },
      { quarter: 'Q3', Revenue: 150, Cost: 'n/a' },
    ];
    const [out] = checkedCompile(template).merge([{ region: 'North', sales: rows }], DEFAULT_MERGE_OPTIONS, false);
    const xml = partXml(out!, 'word/charts/chart1.xml');
    assert.deepEqual(points(xml, 'cat'), ['Q1', 'Q2', 'Q3']);
    assert.deepEqual(points(xml, 'val', 0), ['120', '180.5', '150']);
    assert.deepEqual(points(xml, 'val', 1), ['80', '90'], 'a value that is not a number leaves its point empty');
    assert.doesNotMatch(xml, /United States|700/, 'no design-time data is left');
    assert.match(xml, /<c:f>Sheet1!\$C\$2:\$C\$4<\/c:f>/);
    const files = unzipSync(out!);
    assert.deepEqual(sheet(files['word/embeddings/Workbook1.xlsx']!), [
      ['quarter', 'Revenue', 'Cost'],
      ['Q1', '120', '80'],
      ['Q2', '180.5', '90'],
      ['Q3', '150', 'n/a'],
    ]);
  });

  it('gives each appended record its own chart', () => {
    const [out] = checkedCompile(template).merge(
      [
        { region: 'North', sales: [{ quarter: 'Q1', Revenue: 1, Cost: 2 }] },
        {
          region: 'South',
          sales: [
            { quarter: 'Q1', Revenue: 3, Cost: 4 },
            { quarter: 'Q2', Revenue: 5, Cost: 6 },
          ],
        },
      ],
      DEFAULT_MERGE_OPTIONS,
      true,
    );
    const files = unzipSync(out!);
    const charts = Object.keys(files)
      .filter((n) => /^word\/charts\/[^/]+\.xml$/.test(n))
      .sort();
    assert.equal(charts.length, 2);
    assert.deepEqual(
      charts.map((n) => points(Buffer.from(files[n]!).toString('utf8'), 'val', 0)),
      [['1'], ['3', '5']],
    );
  });

  it("gives each repetition of a block holding a chart its own chart, bound to that repetition's rows", () => {
    const regional = docx(block('regions', p(run('Region '), mergefield('region')), p(salesChart.xml)), {
      charts: { rIdCh1: { xml: salesChart.chartXml, workbook: design } },
    });
    const [out] = checkedCompile(regional).merge(
      [
        {
          regions: [
            { region: 'North', sales: [{ quarter: 'Q1', Revenue: 1, Cost: 2 }] },
            {
              region: 'South',
              sales: [
                { quarter: 'Q1', Revenue: 3, Cost: 4 },
                { quarter: 'Q2', Revenue: 5, Cost: 6 },
              ],
            },
            { region: 'East' },
          ],
        },
      ],
      DEFAULT_MERGE_OPTIONS,
      false,
    );
    const files = unzipSync(out!);
    const ids = [...partXml(out!).matchAll(/<c:chart\b[^>]*r:id="([^"]+)"/g)].map((m) => m[1]!);
    assert.equal(new Set(ids).size, 3, 'three charts, three parts');
    const rels = partXml(out!, 'word/_rels/document.xml.rels');
    const parts = ids.map((id) => `word/${new RegExp(`Id="${id}"[^>]*Target="([^"]+)"`).exec(rels)![1]}`);
    assert.deepEqual(
      parts.map((n) => points(Buffer.from(files[n]!).toString('utf8'), 'val', 0)),
      [['1'], ['3', '5'], []],
    );
    const workbooks = Object.keys(files)
      .filter((n) => /^word\/embeddings\/docsmith-chart\d\.xlsx$/.test(n))
      .sort();
    assert.deepEqual(
      workbooks.map((n) =>
        sheet(files[n]!)
          .slice(1)
          .map((r) => r[1]),
      ),
      [['1'], ['3', '5'], []],
    );
  });

  it('reports in the template info which block each chart shows, and what cannot be bound', () => {
    assert.deepEqual(checkedCompile(template).info.charts, [
      { name: 'sales', mergeBlock: 'sales', series: ['Revenue', 'Cost'], problem: null },
    ]);
    const stray = chart('_tx_id_4_Forecast', 'rIdCh1', ['Amount']);
    const info = checkedCompile(
      docx(block('sales', p(mergefield('Revenue'))) + p(stray.xml), { charts: { rIdCh1: { xml: stray.chartXml } } }),
    ).info;
    assert.equal(info.charts![0]!.name, 'Forecast');
    assert.equal(info.charts![0]!.mergeBlock, null);
    assert.match(info.charts![0]!.problem!, /No merge block is named "Forecast"/);
    const odd = chart('sales', 'rIdCh1', ['Profit']);
    assert.match(
      checkedCompile(docx(block('sales', p(mergefield('Revenue'))) + p(odd.xml), { charts: { rIdCh1: { xml: odd.chartXml } } })).info
        .charts![0]!.problem!,
      /series "Profit" name no field of the block "sales"/,
    );
    assert.equal(checkedCompile(docx(p(run('no charts')))).info.charts, undefined);
  });

  it('empties a bound chart whose block has no rows in the record, and keeps an unbound one as designed', () => {
    const [out] = checkedCompile(template).merge([{ region: 'West' }], DEFAULT_MERGE_OPTIONS, false);
    assert.deepEqual(points(partXml(out!, 'word/charts/chart1.xml'), 'cat'), []);
    assert.doesNotMatch(partXml(out!, 'word/charts/chart1.xml'), /United States/);
    const stray = chart('Forecast', 'rIdCh1', ['Amount']);
    const [kept] = checkedCompile(docx(p(stray.xml), { charts: { rIdCh1: { xml: stray.chartXml } } })).merge(
      [{}],
      DEFAULT_MERGE_OPTIONS,
      false,
    );
    assert.deepEqual(points(partXml(kept!, 'word/charts/chart1.xml'), 'cat'), ['United States', 'Europe', 'Asia']);
  });
});
