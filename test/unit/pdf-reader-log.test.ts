// What MuPDF says while it reads a damaged PDF is gathered per document: each message once with
// its count, at most 20 of them, nothing on stderr (formats/pdf.ts; issue 30: one damaged PDF's
// thumbnails wrote 90,754 lines).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mupdf, openPdf, withReaderLog } from '../../src/formats/pdf.js';
import { fixture } from '../helpers/server.js';
import { damagedPdf } from '../helpers/hostile.js';

describe("the PDF reader's log", () => {
  it('gathers the messages of one document, deduplicated and capped, and nothing of a sound one', async () => {
    const lib = await mupdf();
    const read = (bytes: Buffer) =>
      withReaderLog(async () => {
        const doc = openPdf(lib, bytes);
        for (let i = 0; i < doc.countPages(); i++) {
          try {
            doc.loadPage(i).toPixmap(lib.Matrix.identity, lib.ColorSpace.DeviceRGB, false, true);
          } catch {
            // a page that cannot be drawn still counts its messages
          }
        }
        return doc.countPages();
      });
    const damaged = await read(damagedPdf());
    assert.ok(damaged.log, 'the damaged PDF made the reader say something');
    assert.ok(damaged.log.messages.length <= 20);
    assert.equal(new Set(damaged.log.messages.map((m) => m.message)).size, damaged.log.messages.length, 'each message once');
    assert.ok(damaged.log.total >= damaged.log.messages.reduce((sum, m) => sum + m.count, 0));
    const sound = await read(fixture('maelzel_machine.pdf'));
    assert.equal(sound.log, undefined);
  });
});
