import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { DEFAULT_MERGE_OPTIONS, type MergeOptions } from '../../../src/merge/engine.js';
import type { JsonObject } from '../../../src/merge/scope.js';
import { InputError } from '../../../src/errors.js';
import { fixture } from '../../helpers/server.js';
import { block, docx, p, partXml, picture, png, run } from '../../helpers/docx.js';
import { checkedCompile } from '../../helpers/word-rules.js';

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
    assert.throws(() => merge(p(picture('photo', 10, 10)), [{ photo: Buffer.from('not an image at all').toString('base64') }]),
      (e: Error) => e instanceof InputError && /image "photo"/.test(e.message));
    assert.throws(() => merge(p(picture('photo', 10, 10)), [{ photo: 'ünïcode' }]), /image "photo"/);
  });

  it('stores an image once however often it repeats, with distinct drawing ids', () => {
    const logo = png(30, 30).toString('base64');
    const [out] = merge(block('rows', p(run('row'), picture('logo', 30, 30))), [{ rows: [{ logo }, { logo }, { logo: png(31, 31).toString('base64') }] }]);
    const media = Object.keys(unzipSync(out!)).filter((name) => name.startsWith('word/media/docsmith'));
    assert.equal(media.length, 2);
    const ids = [...partXml(out!).matchAll(/<wp:docPr id="(\d+)"/g)].map((m) => m[1]);
    assert.equal(new Set(ids).size, 3);
  });

  it('merges the JPEG into the fixture template', () => {
    const template = checkedCompile(fixture('test_template_image.docx'));
    const [out] = template.merge([{ title: 'Photo', source: 'test', photo: fixture('test_template_image.jpg').toString('base64') }], DEFAULT_MERGE_OPTIONS, false);
    const jpeg = Object.entries(unzipSync(out!)).find(([name]) => name.endsWith('.jpeg'));
    assert.ok(jpeg);
    assert.equal(Buffer.from(jpeg[1]).length, fixture('test_template_image.jpg').length);
  });
});
