import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as mupdf from 'mupdf';
import { inspectPages, renderPages } from '../../src/render/pages.js';
import { InputError } from '../../src/errors.js';

/** A PDF of blank pages of the given sizes (points). */
function pdfOf(sizes: [number, number][]): Buffer {
  const objects = [
    '1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj',
    `2 0 obj<</Type/Pages/Count ${sizes.length}/Kids[${sizes.map((_, i) => `${i + 3} 0 R`).join(' ')}]>>endobj`,
    ...sizes.map(([w, h], i) => `${i + 3} 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 ${w} ${h}]>>endobj`),
  ];
  return Buffer.from(`%PDF-1.4\n${objects.join('\n')}\ntrailer<</Root 1 0 R/Size ${sizes.length + 3}>>\n%%EOF\n`, 'latin1');
}

describe('page images (render/pages.ts, run in the document worker threads)', () => {
  const pdf = pdfOf([
    [200, 100],
    [100, 300],
    [50, 50],
  ]);

  it('counts pages and measures only the asked range, and not a range longer than the limit', async () => {
    assert.deepEqual(await inspectPages({ pdf, from: 1, to: 2, maxPages: 10 }), {
      count: 3,
      sizes: [
        { width: 200, height: 100 },
        { width: 100, height: 300 },
      ],
    });
    assert.deepEqual(await inspectPages({ pdf, from: 1, to: 0, maxPages: 2 }), { count: 3 }, 'three pages, at most two measured');
    assert.deepEqual(await inspectPages({ pdf, from: 4, to: 4, maxPages: 10 }), { count: 3 }, 'outside the document');
  });

  it('draws the asked pages at the scale in each format', async () => {
    const [png, jpg] = [
      await renderPages({ pdf, pages: [0], scale: 0.5, format: 'png' }),
      await renderPages({ pdf, pages: [1], scale: 1, format: 'jpg' }),
    ];
    const first = new mupdf.Image(png[0]!);
    assert.deepEqual([first.getWidth(), first.getHeight()], [100, 50]);
    const second = new mupdf.Image(jpg[0]!);
    assert.deepEqual([second.getWidth(), second.getHeight()], [100, 300]);
    const [gif] = await renderPages({ pdf, pages: [2], scale: 1, format: 'gif' });
    assert.equal(Buffer.from(gif!).subarray(0, 6).toString('latin1'), 'GIF89a');
    const [bmp] = await renderPages({ pdf, pages: [2], scale: 1, format: 'bmp' });
    assert.equal(Buffer.from(bmp!).subarray(0, 2).toString('latin1'), 'BM');
  });

  it('refuses what is not a readable PDF with a 400, not a 500', async () => {
    await assert.rejects(inspectPages({ pdf: Buffer.from('not a pdf at all'), from: 1, to: 1, maxPages: 10 }), InputError);
  });
});
