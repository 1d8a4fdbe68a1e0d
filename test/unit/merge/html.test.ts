import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { DEFAULT_MERGE_OPTIONS } from '../../../src/merge/engine.js';
import { htmlToWordprocessingML } from '../../../src/merge/html.js';
import { decimalList, docx, mergefield, p, partText, partXml, png, run } from '../../helpers/docx.js';
import { checkedCompile } from '../../helpers/word-rules.js';
import { holdsSvg, loadSvgRasteriser } from '../../../src/render/svg.js';

const merge = (html: string, mergeHtml = true) =>
  checkedCompile(docx(p(run('Before '), mergefield('body'), run(' after')))).merge(
    [{ body: html }],
    { ...DEFAULT_MERGE_OPTIONS, mergeHtml },
    false,
  )[0]!;

describe('merge engine: HTML values', () => {
  it('turns HTML paragraphs into real paragraphs, splitting the host paragraph', () => {
    const out = merge('<html><p>One <b>bold</b></p><p>Two<br>lines</p></html>');
    assert.equal(partText(out), 'Before \nOne bold\nTwo\nlines\n after');
    assert.match(partXml(out), /<w:r><w:rPr><w:b\/><\/w:rPr><w:t xml:space="preserve">bold<\/w:t><\/w:r>/);
  });

  it('maps inline formatting and span styles to run properties in schema order', () => {
    const xml = partXml(
      merge(
        '<html><i>it</i><u>un</u><s>st</s><sub>lo</sub><sup>hi</sup><span style="color:#ff0000;font-size:12pt;font-family:\'Courier New\';background-color:yellow">sp</span></html>',
      ),
    );
    assert.match(xml, /<w:rPr><w:i\/><\/w:rPr><w:t xml:space="preserve">it/);
    assert.match(xml, /<w:u w:val="single"\/><\/w:rPr><w:t xml:space="preserve">un/);
    assert.match(xml, /<w:strike\/><\/w:rPr><w:t xml:space="preserve">st/);
    assert.match(xml, /<w:vertAlign w:val="subscript"\/>/);
    assert.match(xml, /<w:vertAlign w:val="superscript"\/>/);
    assert.match(
      xml,
      /<w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New" w:cs="Courier New"\/><w:color w:val="FF0000"\/><w:sz w:val="24"\/><w:shd w:val="clear" w:color="auto" w:fill="FFFF00"\/><\/w:rPr><w:t xml:space="preserve">sp/,
    );
  });

  it('renders headings, lists, tables, links and data-URI images', () => {
    const image = `data:image/png;base64,${png(40, 20).toString('base64')}`;
    const out = merge(
      `<html><h1>Title</h1><ul><li>apple</li><li>pear</li></ul><ol><li>first</li></ol>` +
        `<table><tr><th>H</th><td>cell</td></tr></table><p><a href="https://example.org/x">link</a> <img src="${image}"></p></html>`,
    );
    const xml = partXml(out);
    assert.match(partText(out), /Title\napple\npear\nfirst\nH\ncell\nlink/);
    assert.match(xml, /<w:b\/><w:sz w:val="48"\/><\/w:rPr><w:t xml:space="preserve">Title/);
    assert.match(xml, /<w:pPr><w:numPr><w:ilvl w:val="0"\/><w:numId w:val="1"\/><\/w:numPr><\/w:pPr><w:r><w:t xml:space="preserve">apple/);
    assert.match(xml, /<w:tbl>[\s\S]*cell[\s\S]*<\/w:tbl>/);
    const link = /<w:hyperlink r:id="([^"]+)">/.exec(xml)![1]!;
    assert.match(
      partXml(out, 'word/_rels/document.xml.rels'),
      new RegExp(`Id="${link}"[^>]*Target="https://example.org/x" TargetMode="External"`),
    );
    assert.ok(Object.keys(unzipSync(out)).some((name) => name.startsWith('word/media/docsmith')));
  });

  it('draws an <img> at the size its attributes or style ask, one side keeping the ratio', () => {
    const image = `data:image/png;base64,${png(20, 10).toString('base64')}`;
    const extents = (html: string) =>
      [...partXml(merge(`<html><p>${html}</p></html>`)).matchAll(/<wp:extent cx="(\d+)" cy="(\d+)"\/>/g)].map((m) => [
        Number(m[1]) / 9525,
        Number(m[2]) / 9525,
      ]);
    assert.deepEqual(extents(`<img src="${image}">`), [[20, 10]], 'its own size');
    assert.deepEqual(extents(`<img src="${image}" width="200" height="100">`), [[200, 100]]);
    assert.deepEqual(extents(`<img src="${image}" style="width: 200px; height: 100px">`), [[200, 100]]);
    assert.deepEqual(extents(`<img src="${image}" width="80">`), [[80, 40]], 'the height follows the ratio');
    assert.deepEqual(extents(`<img src="${image}" style="height:1in">`), [[192, 96]]);
    const [cm] = extents(`<img src="${image}" style="width:3cm" width="10">`);
    assert.deepEqual(cm!.map(Math.round), [113, 57], 'the style before the attribute: 3 cm is 113 px');
    assert.deepEqual(extents(`<img src="${image}" width="50%" height="auto">`), [[20, 10]], 'percentages and auto: its own size');
  });

  it('makes HTML lists real Word lists: own definitions, nested levels, numbered lists restarting at 1', () => {
    const template = docx(p(run('Before '), mergefield('body'), run(' after')), { numbering: decimalList });
    const out = checkedCompile(template).merge(
      [{ body: '<html><ol><li>one<ol><li>inner</li></ol></li><li>two</li></ol><ul><li>dot</li></ul><ol><li>again</li></ol></html>' }],
      { ...DEFAULT_MERGE_OPTIONS, mergeHtml: true },
      false,
    )[0]!;
    const numbering = partXml(out, 'word/numbering.xml');
    assert.match(numbering, /<w:abstractNum w:abstractNumId="0"><w:nsid w:val="1A2B3C4D"\/>/, "the template's own definition stays");
    const abstracts = [...numbering.matchAll(/<w:abstractNum w:abstractNumId="(\d+)">/g)].map((m) => m[1]);
    assert.deepEqual(abstracts, ['0', '1', '2']);
    assert.ok(numbering.indexOf('<w:abstractNum w:abstractNumId="2">') < numbering.indexOf('<w:num '), 'abstractNum before num');
    assert.match(numbering, /<w:numFmt w:val="decimal"\/><w:lvlText w:val="%1\."\/>/);
    assert.match(numbering, /<w:numFmt w:val="bullet"\/><w:lvlText w:val="\u2022"\/>/);
    const numIds = [...numbering.matchAll(/<w:num w:numId="(\d+)">/g)].map((m) => Number(m[1]));
    assert.deepEqual(numIds, [1, 2, 3, 4, 5], "one instance per list after the template's");
    assert.equal((numbering.match(/<w:startOverride w:val="1"\/>/g) ?? []).length, 3, 'each numbered list restarts');
    const xml = partXml(out);
    const items = [...xml.matchAll(/<w:ilvl w:val="(\d)"\/><w:numId w:val="(\d+)"\/>[\s\S]*?<w:t xml:space="preserve">(\w+)/g)].map(
      (m) => `${m[3]}:${m[1]}:${m[2]}`,
    );
    assert.deepEqual(items, ['one:0:2', 'inner:1:3', 'two:0:2', 'dot:0:4', 'again:0:5']);
    assert.ok(!xml.includes('docsmith-list'), 'no placeholder left');
  });

  it('adds a numbering part when the template has none, and keeps list labels where only runs fit', () => {
    const out = merge('<html><ul><li>a</li></ul></html>');
    assert.match(
      partXml(out, 'word/_rels/document.xml.rels'),
      /Type="http:\/\/schemas.openxmlformats.org\/officeDocument\/2006\/relationships\/numbering" Target="numbering.xml"/,
    );
    assert.match(partXml(out, '[Content_Types].xml'), /PartName="\/word\/numbering.xml"/);
    const lines = htmlToWordprocessingML('<html><ol><li>x</li><li>y</li></ol><ul><li>z</li></ul></html>', '', '', {
      sink: undefined,
      part: 'word/document.xml',
      link: () => undefined,
      list: () => 'docsmith-list-1',
    });
    assert.match(lines.blocks, /<w:numId w:val="docsmith-list-1"\/>/);
    assert.equal(lines.inline.replace(/<[^>]+>/g, ''), '1.\u00a0x2.\u00a0y•\u00a0z', 'runs only: the labels are text');
  });

  it('drops scripts and external resources, keeps the text of unknown tags', () => {
    const out = merge(
      '<html><script>alert(1)</script><p>safe <blink>text</blink><img src="http://127.0.0.1/x.png"></p><a href="javascript:alert(1)">js</a></html>',
    );
    assert.equal(partText(out), 'Before \nsafe text\njs after');
    assert.ok(!partXml(out).includes('alert'));
    assert.ok(!partXml(out, 'word/_rels/document.xml.rels').includes('javascript'));
  });

  it('leaves values that are not wrapped in <html> literal, and HTML literal without mergeHtml', () => {
    assert.equal(partText(merge('<html>only <b>inline</b></html>')), 'Before only inline after');
    assert.equal(partText(merge('<b>not html</b>')), 'Before <b>not html</b> after');
    assert.equal(partText(merge('<html><b>x</b></html>', false)), 'Before <html><b>x</b></html> after');
  });

  it('draws an SVG image of an HTML value as a PNG for Word, keeping the SVG', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#00a"/></svg>',
    ).toString('base64');
    const body = `<html><p>Logo <img src="data:image/svg+xml;base64,${svg}"></p></html>`;
    assert.equal(holdsSvg([{ body }]), true);
    const [out] = checkedCompile(docx(p(mergefield('body')))).merge([{ body }], { ...DEFAULT_MERGE_OPTIONS, mergeHtml: true }, false, {
      rasterise: await loadSvgRasteriser(),
    });
    assert.match(
      partXml(out!),
      /<a:blip [^>]*r:embed="[^"]+"><a:extLst><a:ext uri="\{96DAC541-7B7A-43D3-8B79-37D633B846F1\}"><asvg:svgBlip /,
    );
    assert.deepEqual(
      Object.keys(unzipSync(out!))
        .filter((name) => name.startsWith('word/media/'))
        .map((name) => name.slice(name.lastIndexOf('.')))
        .sort(),
      ['.png', '.svg'],
    );
  });
});
