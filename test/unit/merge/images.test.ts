import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as mupdf from 'mupdf';
import { unzipSync } from 'fflate';
import { DEFAULT_MERGE_OPTIONS, type MergeOptions } from '../../../src/merge/engine.js';
import type { JsonObject } from '../../../src/merge/scope.js';
import { InputError } from '../../../src/errors.js';
import { fixture } from '../../helpers/server.js';
import { block, docx, p, partXml, picture, png, run } from '../../helpers/docx.js';
import { checkedCompile } from '../../helpers/word-rules.js';
import { holdsSvg, loadSvgRasteriser } from '../../../src/render/svg.js';

const merge = (body: string, data: JsonObject[], options: Partial<MergeOptions> = {}, append = false) =>
  checkedCompile(docx(body)).merge(data, { ...DEFAULT_MERGE_OPTIONS, ...options }, append);
const extent = (xml: string) => [...xml.matchAll(/<wp:extent cx="(\d+)" cy="(\d+)"\/>/g)].map((m) => [Number(m[1]), Number(m[2])]);

describe('merge engine: images', () => {
  it('replaces a named placeholder, scaled to its width with the aspect ratio kept', () => {
    const [out] = merge(p(picture('photo', 100, 100)), [{ photo: png(200, 100).toString('base64') }]);
    const xml = partXml(out!);
    assert.deepEqual(extent(xml), [[952500, 476250]]);
    const embed = /r:embed="([^"]+)"/.exec(xml)![1]!;
    const rels = partXml(out!, 'word/_rels/document.xml.rels');
    const target = new RegExp(`Id="${embed}"[^>]*Target="([^"]+)"`).exec(rels)![1]!;
    const media = unzipSync(out!)[`word/${target}`];
    assert.ok(media && Buffer.from(media).subarray(1, 4).toString() === 'PNG');
    assert.match(partXml(out!, '[Content_Types].xml'), /Extension="png"/);
  });

  it('never enlarges a small image, accepts data URIs and strips _tx_id_ prefixes', () => {
    const [out] = merge(p(picture('_tx_id_3_logo', 100, 100)), [{ logo: `data:image/png;base64,${png(50, 20).toString('base64')}` }]);
    assert.deepEqual(extent(partXml(out!)), [[476250, 190500]]);
  });

  it('keeps a placeholder without data, or removes it when asked', () => {
    assert.equal(extent(partXml(merge(p(picture('photo', 10, 10)), [{}])[0]!)).length, 1);
    assert.equal(extent(partXml(merge(p(picture('photo', 10, 10)), [{}], { removeEmptyImages: true })[0]!)).length, 0);
  });

  it('refuses a value that is not an image, naming the field', () => {
    assert.throws(
      () => merge(p(picture('photo', 10, 10)), [{ photo: Buffer.from('not an image at all').toString('base64') }]),
      (e: Error) => e instanceof InputError && /image "photo"/.test(e.message),
    );
    assert.throws(() => merge(p(picture('photo', 10, 10)), [{ photo: 'ünïcode' }]), /image "photo"/);
  });

  it('stores an image once however often it repeats, with distinct drawing ids', () => {
    const logo = png(30, 30).toString('base64');
    const [out] = merge(block('rows', p(run('row'), picture('logo', 30, 30))), [
      { rows: [{ logo }, { logo }, { logo: png(31, 31).toString('base64') }] },
    ]);
    const media = Object.keys(unzipSync(out!)).filter((name) => name.startsWith('word/media/docsmith'));
    assert.equal(media.length, 2);
    const ids = [...partXml(out!).matchAll(/<wp:docPr id="(\d+)"/g)].map((m) => m[1]);
    assert.equal(new Set(ids).size, 3);
  });

  it('merges the JPEG into the fixture template', () => {
    const template = checkedCompile(fixture('test_template_image.docx'));
    const [out] = template.merge(
      [{ title: 'Photo', source: 'test', photo: fixture('test_template_image.jpg').toString('base64') }],
      DEFAULT_MERGE_OPTIONS,
      false,
    );
    const jpeg = Object.entries(unzipSync(out!)).find(([name]) => name.endsWith('.jpeg'));
    assert.ok(jpeg);
    assert.equal(Buffer.from(jpeg[1]).length, fixture('test_template_image.jpg').length);
  });

  it('gives an SVG picture a PNG main picture for Word, drawn from it, the SVG in the svgBlip extension', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#1f3a93"/><circle cx="100" cy="50" r="40" fill="#ffcc00"/></svg>';
    const value = Buffer.from(svg).toString('base64');
    assert.equal(holdsSvg([{ rows: [{ logo: value }] }]), true);
    assert.equal(holdsSvg([{ logo: `data:image/svg+xml;base64,${value}`, name: 'PHN2Zy' }]), true);
    assert.equal(holdsSvg([{ logo: png(2, 2).toString('base64'), text: 'an svg in words' }]), false);
    const template = checkedCompile(docx(p(picture('logo', 100, 100))));
    const [word] = template.merge([{ logo: value }], DEFAULT_MERGE_OPTIONS, false, { rasterise: await loadSvgRasteriser() });
    const xml = partXml(word!);
    assert.deepEqual(extent(xml), [[952500, 476250]]);
    const rels = partXml(word!, 'word/_rels/document.xml.rels');
    const target = (id: string) => new RegExp(`Id="${id}"[^>]*Target="([^"]+)"`).exec(rels)![1]!;
    const main = unzipSync(word!)[`word/${target(/<a:blip [^>]*r:embed="([^"]+)"/.exec(xml)![1]!)}`]!;
    assert.equal(Buffer.from(main).subarray(1, 4).toString(), 'PNG');
    assert.deepEqual([Buffer.from(main).readUInt32BE(16), Buffer.from(main).readUInt32BE(20)], [200, 100], 'twice the displayed size');
    assert.match(target(/<asvg:svgBlip [^>]*r:embed="([^"]+)"/.exec(xml)![1]!), /\.svg$/);
    // Bound for the office: the SVG itself, drawn as vectors.
    const [office] = template.merge([{ logo: value }], DEFAULT_MERGE_OPTIONS, false, {
      officeBound: true,
      rasterise: await loadSvgRasteriser(),
    });
    assert.doesNotMatch(partXml(office!), /svgBlip/);
    assert.throws(
      () =>
        template.merge(
          [{ logo: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g>').toString('base64') }],
          DEFAULT_MERGE_OPTIONS,
          false,
          {
            rasterise: () => {
              throw new InputError('x');
            },
          },
        ),
      InputError,
    );
  });

  it('draws no picture an SVG links to: a file on this machine stays unread', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svg-link-'));
    const red = path.join(dir, 'red.png');
    fs.writeFileSync(red, png(50, 50, [255, 0, 0]));
    const rasterise = await loadSvgRasteriser();
    for (const href of [red, `file://${red}`, 'red.png', 'http://127.0.0.1:9/red.png']) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50"><image href="${href}" xlink:href="${href}" width="50" height="50"/></svg>`;
      const drawn = new mupdf.Image(rasterise(Buffer.from(svg), 50, 50, 'x')).toPixmap();
      const pixels = drawn.getPixels();
      const middle = (25 * drawn.getWidth() + 25) * drawn.getNumberOfComponents();
      assert.notDeepEqual([pixels[middle], pixels[middle + 1], pixels[middle + 2]], [255, 0, 0], href);
    }
    // The same picture inside the SVG is drawn: the check above can see red.
    const inside = `<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"><image href="data:image/png;base64,${png(50, 50, [255, 0, 0]).toString('base64')}" width="50" height="50"/></svg>`;
    const drawn = new mupdf.Image(rasterise(Buffer.from(inside), 50, 50, 'x')).toPixmap();
    const middle = (25 * drawn.getWidth() + 25) * drawn.getNumberOfComponents();
    assert.deepEqual([...drawn.getPixels().subarray(middle, middle + 3)], [255, 0, 0]);
    fs.rmSync(dir, { recursive: true });
  });
});
