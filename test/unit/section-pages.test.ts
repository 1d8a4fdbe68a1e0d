import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { showsSectionPages, storeSectionPages, withFieldResult } from '../../src/ooxml/section-pages.js';
import { docx, field, p, partXml, run, simpleField } from '../helpers/docx.js';
import { wordProblems } from '../helpers/word-rules.js';

const SECTION = '<w:sectPr><w:footerReference w:type="default" r:id="rfooter"/><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>';

describe('stored results of SECTIONPAGES', () => {
  it("sets a field's shown result, simple or complex, and leaves other fields", () => {
    const xml = p(field('SECTIONPAGES', 'x'), run(' '), field('PAGE', '7'), simpleField('SECTIONPAGES \\* Arabic', 'y'));
    const out = withFieldResult(xml, 'SECTIONPAGES', '3');
    assert.deepEqual(
      [...out.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1]),
      ['3', ' ', '7', '3'],
    );
  });

  it('gives sections sharing a footer a copy per page count, and changes nothing it cannot match', () => {
    const footer = p(run('Page '), field('PAGE', '1'), run(' of '), field('SECTIONPAGES', 'x'));
    const template = docx(
      p(run('one')) + `<w:p><w:pPr>${SECTION}</w:pPr></w:p>` + p(run('two')) + `<w:p><w:pPr>${SECTION}</w:pPr></w:p>` + p(run('three')),
      { footer },
    );
    assert.equal(showsSectionPages(template), true);
    const out = storeSectionPages(template, [1, 2, 2]);
    const parts = unzipSync(out);
    const shown = Object.keys(parts)
      .filter((name) => /footer/.test(name) && name.endsWith('.xml'))
      .sort()
      .map((name) => `${name}=${/<w:t[^>]*>([^<]*)<\/w:t>(?![^]*<w:t\b)/.exec(Buffer.from(parts[name]!).toString('utf8'))?.[1]}`); // the last text: the total
    assert.deepEqual(shown, ['word/footer1-pages1.xml=1', 'word/footer1-pages2.xml=2', 'word/footer1.xml=x']);
    assert.deepEqual(
      [...partXml(out).matchAll(/footerReference [^>]*r:id="([^"]+)"/g)].map((m) => m[1]),
      ['rIdDsPages1', 'rIdDsPages2', 'rIdDsPages2'],
    );
    assert.deepEqual(wordProblems(out), []);
    assert.equal(storeSectionPages(template, [1, 2]), template, 'two counts for three sections');
    assert.equal(showsSectionPages(docx(p(run('one')), { footer })), false, 'one section');
  });
});
