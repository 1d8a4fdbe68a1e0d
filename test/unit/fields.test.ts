import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync } from 'fflate';
import { mayHoldFields } from '../../src/ooxml/fields.js';
import { docx, field, p, run, simpleField } from '../helpers/docx.js';

describe('whether a DOCX may hold fields (the office skips recomputing them when not)', () => {
  it('says no only for a package whose shown parts it read and found without field markup', () => {
    assert.equal(mayHoldFields(docx(p(run('Invoice 42')), { footer: p(run('Thank you')) })), false);
    assert.equal(mayHoldFields(docx(p(run('Invoice '), field('DATE', '1.1.2026')))), true);
    assert.equal(mayHoldFields(docx(p(run('Invoice')), { footer: p(simpleField('PAGE', '1')) })), true);
    // Markup-looking text is escaped in w:t, so it is no field.
    assert.equal(mayHoldFields(docx(p(run('<w:fldSimple> in the text')))), false);
  });

  it('says maybe when it cannot tell: no main document, a damaged or cut-off package, too much text to read here', () => {
    const parts = unzipSync(docx(p(run('x'))));
    delete parts['word/document.xml'];
    assert.equal(mayHoldFields(Buffer.from(zipSync(parts))), true);
    const whole = docx(p(run('x')));
    assert.equal(mayHoldFields(whole.subarray(0, whole.length - 30)), true);
    assert.equal(mayHoldFields(Buffer.from('not a zip at all')), true);
    assert.equal(mayHoldFields(docx(p(run('y'.repeat(600 * 1024))))), true);
  });
});
