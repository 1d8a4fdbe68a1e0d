// Which templates' appended records may be laid out in parts and joined (ooxml/layout.ts): only
// those where nothing depends on pages or places outside a record.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { laysOutInParts } from '../../src/ooxml/layout.js';
import { docx, field, headingStyle, mergefield, p, run } from '../helpers/docx.js';

describe('laying out appended records in parts', () => {
  it('is allowed for a template whose records stand alone, and for page numbers that restart per record', () => {
    assert.equal(laysOutInParts(docx(p(run('Dear '), mergefield('name'))), false), true);
    const numbered = docx(p(mergefield('name')), { footer: p(run('Page '), field('PAGE', '1')) });
    assert.equal(laysOutInParts(numbered, true), true, 'PAGE restarts with each record');
    assert.equal(laysOutInParts(numbered, false), false, 'PAGE runs through the document');
    assert.equal(laysOutInParts(docx(p(run('x')), { styles: headingStyle('000000') }), false), true, 'a heading style no paragraph uses');
  });

  it('is refused for totals, references, notes, headings and links to places in the document', () => {
    const cases: [string, Buffer][] = [
      ['NUMPAGES', docx(p(mergefield('name')), { footer: p(run('of '), field('NUMPAGES', '9')) })],
      ['SECTIONPAGES', docx(p(mergefield('name')), { footer: p(field('SECTIONPAGES', '9')) })],
      ['PAGEREF', docx(p(field('PAGEREF total \\h', '3')))],
      ['TOC', docx(p(field('TOC \\o "1-3"', 'x')))],
      [
        'a split instruction',
        docx(
          p(
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> NUM</w:instrText></w:r><w:r><w:instrText>PAGES </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>',
          ),
        ),
      ],
      [
        'a footnote',
        docx(p(run('x'), '<w:r><w:footnoteReference w:id="1"/></w:r>'), {
          footnotes: '<w:footnote w:id="1"><w:p><w:r><w:t>n</w:t></w:r></w:p></w:footnote>',
        }),
      ],
      [
        'a heading',
        docx('<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Title</w:t></w:r></w:p>', { styles: headingStyle('000000') }),
      ],
      ['an internal link', docx(p('<w:hyperlink w:anchor="total"><w:r><w:t>see total</w:t></w:r></w:hyperlink>'))],
    ];
    for (const [what, template] of cases) assert.equal(laysOutInParts(template, true), false, what);
  });
});
