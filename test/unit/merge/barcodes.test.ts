import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import bwipjs from 'bwip-js';
import { DEFAULT_MERGE_OPTIONS, type MergeOptions } from '../../../src/merge/engine.js';
import type { JsonObject } from '../../../src/merge/scope.js';
import { InputError } from '../../../src/errors.js';
import { barcodeOptions, parseColour, readTxBarcode } from '../../../src/merge/barcodes.js';
import * as jsqr from 'jsqr';

// jsQR is a CommonJS bundle whose types say ESM: take the function from whichever shape it has.
type Decode = (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => { data: string; chunks: { type: string; assignmentNumber?: number }[] } | null;
const loaded = jsqr as unknown as { default: Decode | { default: Decode } };
const jsQR: Decode = typeof loaded.default === 'function' ? loaded.default : loaded.default.default;
import {
  cell,
  docx,
  field,
  nestedField,
  p,
  partXml,
  picture,
  row,
  run,
  schemaOrderProblemsOf,
  table,
  txBarcode,
} from '../../helpers/docx.js';
import { checkedCompile } from '../../helpers/word-rules.js';

const W_EXT = /<wp:extent cx="(\d+)" cy="(\d+)"\/>/g;

function merge(
  body: string,
  data: JsonObject[],
  customXml: Record<string, string> = {},
  options: Partial<MergeOptions> = {},
  append = true,
): Buffer[] {
  return checkedCompile(docx(body, { customXml })).merge(data, { ...DEFAULT_MERGE_OPTIONS, ...options }, append);
}

/**
 * The media each picture of the main document shows, in order: its vector original where it has
 * one (the svgBlip extension, what Word shows), and its main blip (`raster`).
 */
function pictures(out: Buffer): { target: string; bytes: string; raster: string; rasterBytes: Buffer }[] {
  const files = unzipSync(out);
  const xml = partXml(out);
  const rels = partXml(out, 'word/_rels/document.xml.rels');
  const targetOf = (id: string) => new RegExp(`Id="${id}"[^>]*Target="([^"]+)"`).exec(rels)![1]!;
  return [...xml.matchAll(/<a:blip\b[^>]*?r:embed="([^"]+)"[^>]*?(?:\/>|>([\s\S]*?)<\/a:blip>)/g)].map((m) => {
    const raster = targetOf(m[1]!);
    const svg = /svgBlip\b[^>]*r:embed="([^"]+)"/.exec(m[2] ?? '')?.[1];
    const target = svg ? targetOf(svg) : raster;
    return {
      target,
      bytes: Buffer.from(files[`word/${target}`]!).toString('utf8'),
      raster,
      rasterBytes: Buffer.from(files[`word/${raster}`]!),
    };
  });
}

/** The custom XML part the barcode's NetControl points to. */
function controlXml(out: Buffer, nth = 0): string {
  const xml = partXml(out);
  const id = [...xml.matchAll(/NetControl [^>]*r:id="([^"]+)"/g)][nth]![1]!;
  const rels = partXml(out, 'word/_rels/document.xml.rels');
  const target = new RegExp(`Id="${id}"[^>]*Target="([^"]+)"`).exec(rels)![1]!;
  return Buffer.from(unzipSync(out)[target.replace(/^\.\.\//, '')]!).toString('utf8');
}

describe('merge engine: barcodes', () => {
  it('draws a TX barcode picture from the field value, in its type and colours, and keeps its custom XML Text in step', () => {
    const qr = txBarcode('TrackingCode', 'rIdBc1', 'QRCode', { foreColor: '#1F3A93' });
    const [out] = merge(p(qr.xml), [{ TrackingCode: 'https://example.com/t/1Z999' }], { rIdBc1: qr.customXml });
    const [shown] = pictures(out!);
    assert.match(shown!.target, /\.svg$/);
    // Word shows raster main blips only: a PNG of the same symbol, the SVG in the svgBlip extension.
    assert.match(shown!.raster, /\.png$/);
    assert.deepEqual([...shown!.rasterBytes.subarray(1, 4)], [...Buffer.from('PNG')]);
    assert.match(
      partXml(out!),
      /<a:blip [^>]*r:embed="[^"]+"><a:extLst><a:ext uri="\{96DAC541-7B7A-43D3-8B79-37D633B846F1\}"><asvg:svgBlip xmlns:asvg="http:\/\/schemas\.microsoft\.com\/office\/drawing\/2016\/SVG\/main" r:embed="[^"]+"\/><\/a:ext><\/a:extLst><\/a:blip>/,
    );
    assert.ok(!Object.keys(unzipSync(out!)).some((name) => name.endsWith('placeholder.png')), "the template's dummy picture is gone");
    assert.ok(!partXml(out!, 'word/_rels/document.xml.rels').includes('placeholder.png'));
    // Bound for the office (PDF), which shows no svgBlip: the SVG is the main picture, drawn as vectors.
    const [office] = checkedCompile(docx(p(qr.xml), { customXml: { rIdBc1: qr.customXml } })).merge(
      [{ TrackingCode: 'x' }],
      DEFAULT_MERGE_OPTIONS,
      true,
      { officeBound: true },
    );
    assert.match(pictures(office!)[0]!.raster, /\.svg$/);
    assert.ok(!partXml(office!).includes('svgBlip') && !Object.keys(unzipSync(office!)).some((name) => name.endsWith('.png')));
    const expected = bwipjs.toSVG({
      bcid: 'qrcode',
      text: 'https://example.com/t/1Z999',
      scale: 3,
      barcolor: '1F3A93',
      textcolor: '1F3A93',
      backgroundcolor: 'FFFFFF',
    });
    assert.equal(
      shown!.bytes.replace(/ width="\d+" height="\d+" preserveAspectRatio="none"/, ''),
      expected,
      'the symbol encodes the value',
    );
    assert.match(shown!.bytes, /#1F3A93/i);
    assert.match(controlXml(out!), /<Text>https:\/\/example\.com\/t\/1Z999<\/Text>/);
    // The frame keeps the template's size.
    assert.deepEqual(
      [...partXml(out!).matchAll(W_EXT)].map((m) => [m[1], m[2]]),
      [['1143000', '1143000']],
    );
    assert.match(partXml(out!, '[Content_Types].xml'), /Extension="svg" ContentType="image\/svg\+xml"/);
    assert.deepEqual(schemaOrderProblemsOf(out!), []);
  });

  it("reads a barcode whose data path runs through a list from the list's first row (TX shipping labels)", () => {
    const code = txBarcode('Sales_SalesOrderDetail.CarrierTrackingNumber', 'rIdBc', 'Code128');
    const records = ['1Z-A', '1Z-B'].map((number) => ({
      Sales_SalesOrderDetail: [{ CarrierTrackingNumber: number }, { CarrierTrackingNumber: 'not this' }],
    }));
    const [out] = merge(p(code.xml), records, { rIdBc: code.customXml });
    assert.deepEqual(
      [0, 1].map((i) => /<Text>([^<]*)<\/Text>/.exec(controlXml(out!, i))![1]),
      ['1Z-A', '1Z-B'],
      "each label its own code, not the template's",
    );
    assert.equal(pictures(out!).filter((shown) => shown.target.endsWith('.svg')).length, 2);
  });

  it('keeps table rows that hold a barcode or picture, or one line, on one page (cantSplit), but not longer rows or pictures taller than a page', () => {
    const code = txBarcode('Code', 'rIdBc', 'QRCode');
    const body = table(
      row(cell(p(run('Item'))), cell(p(run('Code')))),
      `<w:tr><w:trPr><w:trHeight w:val="400"/></w:trPr>${cell(p(run('x')))}${cell(p(code.xml))}</w:tr>`,
      row(cell(p(run('poster'))), cell(p(picture('Poster', 400, 1200)))),
      row(cell(p(run('two')), p(run('paragraphs'))), cell(p(run('y')))),
      row(cell(p(run('a'), '<w:r><w:br/></w:r>', run('break'))), cell(p(run('z')))),
    );
    const [out] = merge(body, [{ Code: 'A-1' }], { rIdBc: code.customXml });
    const rows = [...partXml(out!).matchAll(/<w:tr\b[\s\S]*?<\/w:tr>/g)].map((m) => m[0]);
    // A row of one line: Word never splits it; LibreOffice would split off its cells' bottom margin as an empty row.
    assert.deepEqual(
      rows.map((r) => r.includes('<w:cantSplit/>')),
      [true, true, false, false, false],
    );
    assert.match(rows[1]!, /<w:trPr><w:cantSplit\/><w:trHeight w:val="400"\/><\/w:trPr>/);
    assert.deepEqual(schemaOrderProblemsOf(out!), []);
  });

  it('gives each appended record its own barcode and its own custom XML', () => {
    const code = txBarcode('OrderNo', 'rIdBc', 'Code128', { showText: true, widthPx: 260, heightPx: 70 });
    const [out] = merge(p(code.xml), [{ OrderNo: 'ORD-1' }, { OrderNo: 'ORD-2' }, { OrderNo: 'ORD-3' }], { rIdBc: code.customXml });
    const shown = pictures(out!);
    assert.equal(new Set(shown.map((s) => s.bytes)).size, 3);
    assert.deepEqual(
      [0, 1, 2].map((i) => /<Text>([^<]*)<\/Text>/.exec(controlXml(out!, i))![1]),
      ['ORD-1', 'ORD-2', 'ORD-3'],
    );
  });

  it('answers 400 for a value the symbology cannot encode, and for a type it does not know', () => {
    const ean = txBarcode('Ean', 'rIdBc', 'EAN13');
    assert.throws(
      () => merge(p(ean.xml), [{ Ean: 'ABC' }], { rIdBc: ean.customXml }),
      (e: Error) => e instanceof InputError && /"ABC" for the barcode "Ean" cannot be drawn as EAN13/.test(e.message),
    );
    const odd = txBarcode('X', 'rIdBc', 'Hieroglyphs');
    assert.throws(() => merge(p(odd.xml), [{ X: '1' }], { rIdBc: odd.customXml }), /barcode type "Hieroglyphs"/);
  });

  it('leaves a barcode without a value as designed, or removes it with removeEmptyImages', () => {
    const qr = txBarcode('Code', 'rIdBc', 'QRCode');
    assert.match(pictures(merge(p(qr.xml), [{}], { rIdBc: qr.customXml })[0]!)[0]!.target, /placeholder\.png$/);
    assert.equal(pictures(merge(p(qr.xml), [{}], { rIdBc: qr.customXml }, { removeEmptyImages: true })[0]!).length, 0);
  });

  it("draws MERGEBARCODE from the data and DISPLAYBARCODE from its text, with Word's switches", () => {
    const body =
      p(run('QR: '), field('MERGEBARCODE Url QR \\q 3 \\h 1440 \\f 0xB5413B')) +
      p(run('EAN: '), field('MERGEBARCODE Ean EAN13 \\t \\h 720')) +
      p(run('Fixed: '), field('DISPLAYBARCODE "HELLO-39" CODE39 \\t'));
    const [out] = merge(body, [{ Url: 'https://docsmith.dev', Ean: '400638133393' }]);
    const shown = pictures(out!);
    assert.equal(shown.length, 3);
    assert.equal(
      shown[0]!.bytes.replace(/ width="\d+" height="\d+" preserveAspectRatio="none"/, ''),
      bwipjs.toSVG({
        bcid: 'qrcode',
        text: 'https://docsmith.dev',
        scale: 3,
        barcolor: 'B5413B',
        textcolor: 'B5413B',
        eclevel: 'H',
      } as Parameters<typeof bwipjs.toSVG>[0]),
    );
    const sizes = [...partXml(out!).matchAll(W_EXT)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.deepEqual(sizes[0], [914400, 914400], '\\h 1440 twips is one inch, square for QR');
    assert.equal(sizes[1]?.[1], 457200);
    assert.ok(sizes[1]![0]! > sizes[1]![1]!, 'a linear code is wider than high');
    assert.doesNotMatch(partXml(out!), /MERGEBARCODE|DISPLAYBARCODE/);
    // The template has no drawings of its own: the drawn ones are numbered all the same.
    assert.deepEqual(
      [...partXml(out!).matchAll(/<(?:wp:docPr|pic:cNvPr) id="(\d+)"/g)].map((m) => m[1]),
      ['1', '2', '3', '4', '5', '6'],
    );
    assert.deepEqual(schemaOrderProblemsOf(out!), []);
    // A record without the value leaves nothing (removeEmptyFields), like an empty MERGEFIELD.
    assert.equal(pictures(merge(p(field('MERGEBARCODE Url QR')), [{}])[0]!).length, 0);
    assert.throws(() => merge(p(field('MERGEBARCODE Ean EAN8')), [{ Ean: 'nope' }]), /cannot be drawn as EAN8/);
    assert.throws(() => merge(p(field('MERGEBARCODE Ean POSTCARD')), [{ Ean: '1' }]), /use QR, CODE128/);
  });

  it('reads TX barcode descriptions and colours in the forms TX writes', () => {
    assert.equal(parseColour('#1f3a93'), '1F3A93');
    assert.equal(parseColour('-16777216'), '000000');
    // The CSS colour names, as HTML values take them (one table: util/colours.ts).
    assert.deepEqual(['orange', 'RebeccaPurple', '#f80', 'rgb(255, 0, 0)', 'transparent', 'nonsense'].map(parseColour), [
      'FFA500',
      '663399',
      'FF8800',
      'FF0000',
      undefined,
      undefined,
    ]);
    assert.equal(parseColour('0xFFB5413B'), 'B5413B');
    assert.equal(parseColour('Red'), 'FF0000');
    assert.equal(parseColour('no such colour'), undefined);
    assert.equal(readTxBarcode('<other/>', 'x'), undefined);
    assert.equal(
      readTxBarcode(
        '<BarcodeData_TXBarcode_3.0><BarcodeType>DataMatrix</BarcodeType><ShowText>True</ShowText></BarcodeData_TXBarcode_3.0>',
        'x',
      )!.spec.bcid,
      'datamatrix',
    );
  });
});

describe('template info: barcodes', () => {
  it('lists the data field of a MERGEBARCODE', () => {
    const info = checkedCompile(docx(p(field('MERGEBARCODE Url QR \\q 3')) + p(field('MERGEFIELD Name')))).info;
    assert.deepEqual(
      info.mergeFields.map((f) => f.name),
      ['Url', 'Name'],
    );
  });

  it('lists the fields of TX barcodes and of fields used only inside an IF', () => {
    const code = txBarcode('TrackingCode', 'rIdBc', 'QRCode');
    const body = p(code.xml) + p(nestedField(['IF ', field('MERGEFIELD total'), ' > 1000 "big" "small"'])) + p(field('MERGEFIELD Name'));
    const info = checkedCompile(docx(body, { customXml: { rIdBc: code.customXml } })).info;
    assert.deepEqual(
      info.mergeFields.map((f) => f.name),
      ['TrackingCode', 'total', 'Name'],
    );
  });
});

describe('barcode text beyond ASCII', () => {
  /** Encodes as the merge would and reads the symbol back with a QR decoder (jsQR). */
  const scan = (value: string) => {
    const [symbol] = bwipjs.raw(barcodeOptions(value, { bcid: 'qrcode', typeName: 'QRCode', showText: false })) as unknown as {
      pixs: number[];
      pixx: number;
      pixy: number;
    }[];
    const { pixs, pixx, pixy } = symbol!;
    const [scale, quiet] = [4, 4];
    const [w, h] = [(pixx + 2 * quiet) * scale, (pixy + 2 * quiet) * scale];
    const rgba = new Uint8ClampedArray(w * h * 4).fill(255);
    for (let y = 0; y < pixy * scale; y++) {
      for (let x = 0; x < pixx * scale; x++) {
        if (!pixs[Math.floor(y / scale) * pixx + Math.floor(x / scale)]) continue;
        const at = ((y + quiet * scale) * w + x + quiet * scale) * 4;
        rgba.fill(0, at, at + 3);
      }
    }
    const found = jsQR(rgba, w, h)!;
    return { text: found.data, eci: found.chunks.filter((c) => c.type === 'eci').map((c) => c.assignmentNumber) };
  };

  it('marks QR codes with non-ASCII text as UTF-8 (ECI 26), keeps carets, and leaves ASCII codes as they were', () => {
    assert.deepEqual(scan('Grüße aus Köln ^_^'), { text: 'Grüße aus Köln ^_^', eci: [26] });
    assert.deepEqual(scan('ABC-123'), { text: 'ABC-123', eci: [] });
    for (const bcid of ['datamatrix', 'azteccode', 'pdf417']) {
      assert.doesNotThrow(() => bwipjs.toSVG(barcodeOptions('Grüße', { bcid, typeName: bcid, showText: false })), bcid);
    }
  });
});
