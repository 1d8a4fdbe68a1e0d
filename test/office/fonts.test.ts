// DOCSMITH_FONTS_DIR: fonts put in the folder are listed and used by the running office, no restart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import opentype from 'opentype.js';
import * as mupdf from 'mupdf';
import { serverWithAccounts } from '../helpers/accounts.js';
import { tempDir } from '../helpers/server.js';
import { docx, p, run } from '../helpers/docx.js';

/** A font of our own making (boxes for letters) under a family name nobody else has. */
function makeFont(family: string): Buffer {
  const box = (unicode: number) => {
    const outline = new opentype.Path();
    outline.moveTo(50, 0);
    outline.lineTo(450, 0);
    outline.lineTo(450, 700);
    outline.lineTo(50, 700);
    outline.close();
    return new opentype.Glyph({ name: `g${unicode}`, unicode, advanceWidth: 500, path: outline });
  };
  const glyphs = [
    new opentype.Glyph({ name: '.notdef', advanceWidth: 500, path: new opentype.Path() }),
    new opentype.Glyph({ name: 'space', unicode: 32, advanceWidth: 250, path: new opentype.Path() }),
    ...Array.from({ length: 26 }, (_, i) => box(65 + i)),
    ...Array.from({ length: 26 }, (_, i) => box(97 + i)),
  ];
  const font = new opentype.Font({ familyName: family, styleName: 'Regular', unitsPerEm: 1000, ascender: 800, descender: -200, glyphs });
  return Buffer.from(font.toArrayBuffer());
}

describe("the operator's fonts folder", () => {
  it('lists a font added while running and renders documents with it', async () => {
    const fonts = tempDir();
    const env = await serverWithAccounts({ ann: {} }, { DOCSMITH_OFFICE_PROCESSES: '1', DOCSMITH_FONTS_DIR: fonts });
    try {
      const c = env.clients.ann!;
      const family = 'Docsmith Test Boxes';
      assert.ok(!((await c.get('/v1/fonts/list')).json() as string[]).includes(family));
      fs.writeFileSync(path.join(fonts, 'docsmith-test-boxes.otf'), makeFont(family));
      // The list follows the folder at once; the office process is replaced when free.
      const deadline = Date.now() + 60_000;
      while (!((await c.get('/v1/fonts/list')).json() as string[]).includes(family)) {
        assert.ok(Date.now() < deadline, 'the new font is listed');
        await new Promise((r) => setTimeout(r, 200));
      }
      const document = docx(p(run('Boxes everywhere', `<w:rFonts w:ascii="${family}" w:hAnsi="${family}"/>`)));
      let used = false;
      while (!used) {
        assert.ok(Date.now() < deadline, 'the office renders with the new font');
        const reply = await c.post('/v1/document/convert?returnFormat=PDF', { json: document.toString('base64') });
        assert.equal(reply.status, 200, reply.text);
        const pdf = mupdf.Document.openDocument(Buffer.from(reply.json() as string, 'base64'), 'application/pdf');
        // The font each character was drawn with, as the PDF names it.
        used = /DocsmithTestBoxes/.test(pdf.loadPage(0).toStructuredText('preserve-whitespace').asJSON());
        if (!used) await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      await env.close();
    }
  });
});
