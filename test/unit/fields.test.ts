import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync } from 'fflate';
import { docxNeedsFieldUpdate, fieldInstructions, needsFieldUpdate } from '../../src/ooxml/fields.js';
import { docx, field, nestedField, p, run, simpleField } from '../helpers/docx.js';

describe('whether the office has fields to recompute (it skips that when not)', () => {
  it('reads instructions whole or split over runs, simple or complex', () => {
    assert.deepEqual(fieldInstructions(p(field('MERGEFIELD name'), simpleField('PAGE \\* Arabic', '1'))), [
      'MERGEFIELD NAME',
      'PAGE \\* ARABIC',
    ]);
    assert.deepEqual(fieldInstructions(p(run('no field here'))), []);
  });

  it('needs none for no fields or page numbers only, and one for any other field, nested ones too', () => {
    assert.equal(needsFieldUpdate(p(run('Invoice 42'))), false);
    assert.equal(needsFieldUpdate(p(run('Page '), field('PAGE', '1'), simpleField('PAGE', '2'))), false);
    assert.equal(needsFieldUpdate(p(field('DATE', '1.1.2026'))), true);
    assert.equal(needsFieldUpdate(p(simpleField('NUMPAGES', '3'))), true);
    assert.equal(needsFieldUpdate(p(nestedField(['IF ', field('PAGE', '1'), ' = 1 "first" "later"']))), true);
    // Markup-looking text is escaped in w:t, so it is no field.
    assert.equal(needsFieldUpdate(p(run('<w:instrText>DATE</w:instrText> in the text'))), false);
  });

  it('looks at the body, headers and footers of a DOCX, and says yes when it cannot tell', () => {
    assert.equal(docxNeedsFieldUpdate(docx(p(run('Invoice 42')), { footer: p(run('Page '), field('PAGE', '1')) })), false);
    assert.equal(docxNeedsFieldUpdate(docx(p(run('Invoice')), { header: p(field('DATE', '1.1.2026')) })), true);
    assert.equal(docxNeedsFieldUpdate(docx(p(run('Invoice '), field('TITLE', 'x')))), true);
    // An appended record's footer is copied as j2_footer1.xml: its page total counts as well.
    const copied = unzipSync(docx(p(run('Invoice')), { footer: p(field('SECTIONPAGES', 'x')) }));
    copied['word/j2_footer1.xml'] = copied['word/footer1.xml']!;
    delete copied['word/footer1.xml'];
    assert.equal(docxNeedsFieldUpdate(Buffer.from(zipSync(copied))), true, 'a footer under another name');
    const parts = unzipSync(docx(p(run('x'))));
    delete parts['word/document.xml'];
    assert.equal(docxNeedsFieldUpdate(Buffer.from(zipSync(parts))), true, 'no main document');
    const whole = docx(p(run('x')));
    assert.equal(docxNeedsFieldUpdate(whole.subarray(0, whole.length - 30)), true, 'cut off');
    assert.equal(docxNeedsFieldUpdate(Buffer.from('not a zip at all')), true, 'not a ZIP');
    assert.equal(docxNeedsFieldUpdate(docx(p(run('y'.repeat(200 * 1024))))), true, 'too much text to read on the request thread');
    // A worker thread reads it all.
    const long = docx(p(run('y'.repeat(200 * 1024))), { footer: p(run('Page '), field('PAGE', '1')) });
    assert.equal(docxNeedsFieldUpdate(long, Infinity), false);
    assert.equal(docxNeedsFieldUpdate(docx(p(run('y'.repeat(200 * 1024)), field('NUMPAGES', '1'))), Infinity), true);
  });
});
