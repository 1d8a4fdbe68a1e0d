/**
 * Visual regression: real-world-like templates merged to PDF, each page rendered to PNG and
 * compared with an approved reference image (test/visual/references/) within a tolerance. A
 * failing comparison leaves the page and a diff image in .test-output/visual/. References are
 * replaced only on purpose: `npm run test:visual -- --update`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as mupdf from 'mupdf';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { loadSvgRasteriser } from '../../src/render/svg.js';
import { Converter } from '../../src/convert/converter.js';
import type { OfficePool } from '../../src/office/pool.js';
import type { JsonObject } from '../../src/merge/scope.js';
import { testPool } from '../helpers/office.js';
import { FIXTURES, ROOT } from '../helpers/server.js';
import { readTx } from '../../src/formats/tx/read.js';
import { txToDocx } from '../../src/formats/tx/docx.js';
import { cases } from './cases.js';
import { assertWordValid } from '../helpers/word-rules.js';

const REFERENCES = path.join(ROOT, 'test', 'visual', 'references');
const OUTPUT = path.join(ROOT, '.test-output', 'visual');
const UPDATE = process.env.DOCSMITH_VISUAL_UPDATE === '1';
/** Share of pixels that may differ (anti-aliasing, font hinting). */
const TOLERANCE = 0.002;
/** The TX twin is another writer's file: the same layout, text and colours, not the same bytes. */
const TWIN_TOLERANCE = 0.01;

function pagesOf(pdf: Uint8Array): mupdf.Pixmap[] {
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  return Array.from({ length: doc.countPages() }, (_, i) =>
    doc.loadPage(i).toPixmap(mupdf.Matrix.scale(0.75, 0.75), mupdf.ColorSpace.DeviceRGB, false, true),
  );
}

/**
 * The text of a PDF as runs of one look: font (without its subset tag), size and colour, in
 * reading order, spaces left out. A row set in another colour or weight changes few pixels but
 * every run of it.
 */
function formattedRuns(pdf: Uint8Array): string[] {
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  const runs: string[] = [];
  let look = '';
  let text = '';
  for (let i = 0; i < doc.countPages(); i++) {
    doc
      .loadPage(i)
      .toStructuredText('preserve-whitespace')
      .walk({
        onChar(char: string, _origin: mupdf.Point, font: mupdf.Font, size: number, _quad: mupdf.Quad, color: mupdf.Color) {
          if (!char.trim()) return;
          const now = `${font.getName().replace(/^[A-Z]{6}\+/, '')} ${Math.round(size * 2) / 2}pt ${color.map((c) => Math.round(c * 255)).join(',')}`;
          if (now !== look && text) {
            runs.push(`${text} [${look}]`);
            text = '';
          }
          look = now;
          text += char;
        },
      });
  }
  if (text) runs.push(`${text} [${look}]`);
  return runs;
}

/** Share of pixels that differ by more than a small amount, and an image marking them red. */
function compare(actual: mupdf.Pixmap, expected: mupdf.Pixmap): { share: number; diff: Uint8Array } | undefined {
  if (actual.getWidth() !== expected.getWidth() || actual.getHeight() !== expected.getHeight()) return undefined;
  const a = actual.getPixels();
  const b = expected.getPixels();
  const out = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, [0, 0, actual.getWidth(), actual.getHeight()], false);
  const d = out.getPixels();
  let differing = 0;
  for (let i = 0; i < a.length; i += 3) {
    const delta = Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
    const faint = Math.round(((a[i]! + a[i + 1]! + a[i + 2]!) / 3) * 0.3 + 178);
    if (delta > 48) {
      differing++;
      d[i] = 255;
      d[i + 1] = 0;
      d[i + 2] = 0;
    } else {
      d[i] = faint;
      d[i + 1] = faint;
      d[i + 2] = faint;
    }
  }
  return { share: differing / (a.length / 3), diff: out.asPNG() };
}

describe('visual regression: merged real-world-like templates against approved images', () => {
  let pool: OfficePool;
  let converter: Converter;
  before(async () => {
    pool = testPool({ size: 1 });
    await pool.start();
    converter = new Converter(pool);
    fs.mkdirSync(OUTPUT, { recursive: true });
  });
  after(() => pool.close());

  for (const c of cases) {
    it(`${c.name} looks as approved`, async () => {
      // Merged as the service merges for PDF (bound for the office: barcodes as vector main pictures).
      const template = CompiledTemplate.compile(c.template);
      const options = { ...DEFAULT_MERGE_OPTIONS, culture: 'en-US', ...c.options };
      const merged = template.merge(c.records, options, c.append, { officeBound: true });
      // The DOCX a user gets (raster main pictures, SVGs drawn as PNG as the service draws them) keeps the rules Word applies.
      for (const docx of template.merge(c.records, options, c.append, { rasterise: await loadSvgRasteriser() }))
        assertWordValid(docx, [c.template], `${c.name} as DOCX`);
      const pdfs = await Promise.all(merged.map(async (d) => (await converter.convert(d, 'docx', 'pdf', { sectionPages: c.append })).data));
      const pages = pdfs.flatMap(pagesOf);
      if (c.pageTexts) {
        const texts = pdfs.flatMap((pdf) => {
          const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
          return Array.from({ length: doc.countPages() }, (_, i) => doc.loadPage(i).toStructuredText('preserve-whitespace').asText());
        });
        assert.equal(texts.length, c.pageTexts.length, `${c.name}: pages`);
        c.pageTexts.forEach((expected, i) => assert.match(texts[i]!, expected, `${c.name}, page ${i + 1}`));
      }
      const problems: string[] = [];
      pages.forEach((page, i) => {
        const file = `${c.name}-${i + 1}.png`;
        const reference = path.join(REFERENCES, file);
        if (UPDATE) {
          fs.mkdirSync(REFERENCES, { recursive: true });
          fs.writeFileSync(reference, page.asPNG());
          return;
        }
        fs.writeFileSync(path.join(OUTPUT, file), page.asPNG());
        if (!fs.existsSync(reference)) {
          problems.push(`${file}: no approved reference (run npm run test:visual -- --update and look at it)`);
          return;
        }
        const result = compare(page, new mupdf.Image(fs.readFileSync(reference)).toPixmap());
        if (!result) problems.push(`${file}: the page size differs from the reference`);
        else if (result.share > TOLERANCE) {
          fs.writeFileSync(path.join(OUTPUT, file.replace('.png', '.diff.png')), result.diff);
          problems.push(`${file}: ${(result.share * 100).toFixed(2)}% of the pixels differ (diff in .test-output/visual/)`);
        }
      });
      if (!UPDATE) {
        const approved = fs.existsSync(REFERENCES)
          ? fs.readdirSync(REFERENCES).filter((f) => new RegExp(`^${c.name}-\\d+\\.png$`).test(f)).length
          : 0;
        if (approved !== pages.length) problems.push(`${c.name}: ${pages.length} pages, ${approved} approved`);
      }
      assert.deepEqual(problems, []);
    });
  }

  // The one public twin: a .tx and the .docx TX Text Control saved from it (ReportingCloud PHP SDK,
  // BSD-3). Read by formats/tx/ and merged with the SDK's data, it looks like the twin merged.
  it('text-in-merge-data.tx looks like its DOCX twin, merged with the same data', async () => {
    const folder = path.join(FIXTURES, 'text-in-merge-data');
    const records = JSON.parse(fs.readFileSync(path.join(folder, 'merge_data.json'), 'utf8')) as JsonObject[];
    const render = async (docx: Buffer) => {
      const [merged] = CompiledTemplate.compile(docx).merge(records, { ...DEFAULT_MERGE_OPTIONS, culture: 'en-US' }, true, {
        officeBound: true,
      });
      return (await converter.convert(merged!, 'docx', 'pdf')).data;
    };
    const oursPdf = await render(txToDocx(readTx(fs.readFileSync(path.join(folder, 'template.tx')))));
    const theirsPdf = await render(fs.readFileSync(path.join(folder, 'template.docx')));
    // Text, fonts, sizes and colours run by run. The one difference is the twin's own: its data row
    // is bold white (on light grey), while the .tx gives that row character format 1, Arial 10 pt
    // regular in the automatic colour, which is what we show. Any other change fails here.
    const header = 'qtyitem_descriptionitem_discountitem_noitem_totalitem_unitprice';
    const data = 'OrJbxeBlmHaU9SzE4IQJSfGk56fvfklWYkvaHlLUJGgT3jOS';
    assert.deepEqual(formattedRuns(oursPdf), [`${header} [LiberationSans-Bold 10pt 255,255,255]`, `${data} [LiberationSans 10pt 0,0,0]`]);
    assert.deepEqual(formattedRuns(theirsPdf), [`${header}${data} [LiberationSans-Bold 10pt 255,255,255]`]);
    const ours = pagesOf(oursPdf);
    const theirs = pagesOf(theirsPdf);
    assert.equal(ours.length, theirs.length);
    ours.forEach((page, i) => {
      fs.writeFileSync(path.join(OUTPUT, `tx-twin-${i + 1}.png`), page.asPNG());
      const result = compare(page, theirs[i]!);
      assert.ok(result, 'the page sizes differ');
      if (result.share > TWIN_TOLERANCE) fs.writeFileSync(path.join(OUTPUT, `tx-twin-${i + 1}.diff.png`), result.diff);
      assert.ok(result.share <= TWIN_TOLERANCE, `${(result.share * 100).toFixed(2)}% of the pixels differ (diff in .test-output/visual/)`);
    });
  });
});
