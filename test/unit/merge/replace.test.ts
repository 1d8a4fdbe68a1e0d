import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findAndReplace } from '../../../src/merge/replace.js';
import { parsePairs } from '../../../src/api/requests/merge.js';
import { findAndReplaceBodySchema } from '../../../src/api/requests/schemas.js';
import { checkBody } from '../../../src/api/requests/validation.js';
import { InputError } from '../../../src/errors.js';
import { docx, p, partText, partXml, run } from '../../helpers/docx.js';

describe('find and replace', () => {
  it('replaces every occurrence, pairs in order, in body, tables, headers and footers', () => {
    const template = docx(p(run('Dear NAME, NAME!')) + `<w:tbl><w:tr><w:tc>${p(run('cell NAME'))}</w:tc></w:tr></w:tbl>`, {
      header: p(run('Header NAME')),
      footer: p(run('Footer CITY')),
    });
    const out = findAndReplace(template, [
      ['NAME', 'Ann CITY'],
      ['CITY', 'Bonn'],
    ]);
    assert.equal(partText(out), 'Dear Ann Bonn, Ann Bonn!\ncell Ann Bonn');
    assert.equal(partText(out, 'word/header1.xml'), 'Header Ann Bonn');
    assert.equal(partText(out, 'word/footer1.xml'), 'Footer Bonn');
  });

  it("finds matches across runs and gives the replacement the first character's formatting", () => {
    const template = docx(p(run('Hello {{na', '<w:b/>'), run('me}} and', '<w:i/>'), run(' more')));
    const out = findAndReplace(template, [['{{name}}', 'Ann']]);
    assert.equal(partText(out), 'Hello Ann and more');
    const xml = partXml(out);
    assert.match(xml, /<w:rPr><w:b\/><\/w:rPr><w:t xml:space="preserve">Hello Ann<\/w:t>/);
    assert.match(xml, /<w:rPr><w:i\/><\/w:rPr><w:t xml:space="preserve"> and<\/w:t>/);
  });

  it('reaches text boxes inside paragraphs', () => {
    const box =
      '<w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent>' +
      p(run('in BOX')) +
      '</w:txbxContent></v:textbox></v:shape></w:pict></w:r>';
    const out = findAndReplace(docx(p(run('outside BOX'), box)), [['BOX', 'box']]);
    assert.match(partXml(out), /in box/);
    assert.match(partXml(out), /outside box/);
  });

  it('refuses empty find texts and malformed pairs', () => {
    assert.throws(() => findAndReplace(docx(p(run('x'))), [['', 'y']]), InputError);
    // The schema checks the pairs (over HTTP and for the CLI alike); the parser only normalises.
    const pairs = (value: unknown) => parsePairs(checkBody(findAndReplaceBodySchema, { findAndReplaceData: value }).findAndReplaceData);
    assert.throws(() => pairs('x'), /findAndReplaceData must be an array of \["find", "replace"\] pairs, not a JSON string/);
    assert.throws(() => pairs([]), /findAndReplaceData is an empty array; send at least one pair/);
    assert.throws(() => pairs([['a']]), /findAndReplaceData\[0\] must be a pair of strings/);
    assert.throws(() => pairs([['a', 1]]), /findAndReplaceData\[0\]\[1\] must be its replacement \(a string\), not a JSON number/);
    assert.throws(() => pairs([[null, 'b']]), /findAndReplaceData\[0\]\[0\] must be the text to find/);
    assert.deepEqual(pairs([['a', null]]), [['a', '']]);
  });
});
