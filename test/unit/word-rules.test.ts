import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync } from 'fflate';
import { cell, docx, field, p, picture, png, row, run, table } from '../helpers/docx.js';
import { newProblems, wordProblems } from '../helpers/word-rules.js';

/** The template with one part's XML changed (and files added or removed). */
function edit(bytes: Buffer, part: string, change: (xml: string) => string, files: Record<string, Uint8Array | null> = {}): Buffer {
  const all = unzipSync(bytes);
  all[part] = Buffer.from(change(Buffer.from(all[part]!).toString('utf8')));
  for (const [name, data] of Object.entries(files)) {
    if (data) all[name] = new Uint8Array(data);
    else delete all[name];
  }
  return Buffer.from(zipSync(all));
}

const rules = (bytes: Buffer) => wordProblems(bytes).map((problem) => problem.slice(0, problem.indexOf(':')));

describe('the second oracle: rules Word applies that LibreOffice forgives', () => {
  const clean = docx(p(run('a'), field('PAGE', '1')) + table(row(cell(p(run('x'))), cell(p(run('y'))))) + p(picture('photo', 20, 10)));

  it('passes a well-made document', () => {
    assert.deepEqual(wordProblems(clean), []);
  });

  it('finds an SVG main picture, repeated drawing ids, and relationships that point nowhere', () => {
    const svg = edit(clean, 'word/_rels/document.xml.rels', (xml) => xml.replace(/Target="media\/[^"]+"/, 'Target="media/code.svg"'), {
      'word/media/code.svg': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    });
    const typed = edit(svg, '[Content_Types].xml', (xml) =>
      xml.replace('</Types>', '<Default Extension="svg" ContentType="image/svg+xml"/></Types>'),
    );
    assert.ok(
      wordProblems(typed).some((problem) => /main blip is image\/svg\+xml/.test(problem)),
      wordProblems(typed).join('\n'),
    );
    assert.ok(rules(svg).includes('package'), 'an SVG without a content type');
    const twice = edit(clean, 'word/document.xml', (xml) =>
      xml
        .replace('</w:body>', `${p(picture('again', 20, 10))}</w:body>`)
        .replace(/(<w:sectPr[\s\S]*?<\/w:sectPr>)([\s\S]*)(<\/w:body>)/, '$2$1$3'),
    );
    assert.ok(wordProblems(twice).some((problem) => /drawing id \d+ is used/.test(problem)));
    const dangling = edit(clean, 'word/document.xml', (xml) => xml.replace(/r:embed="[^"]+"/, 'r:embed="rIdNowhere"'));
    assert.ok(wordProblems(dangling).some((problem) => problem.startsWith('rel-id:') && problem.includes('rIdNowhere')));
    const missing = edit(
      clean,
      'word/document.xml',
      (xml) => xml,
      Object.fromEntries(
        Object.keys(unzipSync(clean))
          .filter((n) => n.startsWith('word/media/'))
          .map((n) => [n, null]),
      ),
    );
    assert.ok(wordProblems(missing).some((problem) => /points at word\/media\/.* which is not in the package/.test(problem)));
  });

  it('finds cells that end with a table, fields and bookmarks left open, and section properties not last', () => {
    const nested = edit(clean, 'word/document.xml', (xml) =>
      xml.replace('<w:p><w:r><w:t xml:space="preserve">y</w:t></w:r></w:p></w:tc>', `${table(row(cell(p(run('in')))))}</w:tc>`),
    );
    assert.deepEqual(rules(nested), ['table']);
    const open = edit(clean, 'word/document.xml', (xml) =>
      xml
        .replace('<w:fldChar w:fldCharType="end"/>', '<w:t>no end</w:t>')
        .replace('<w:p>', '<w:p><w:bookmarkStart w:id="7" w:name="mark"/>'),
    );
    assert.deepEqual(rules(open).sort(), ['bookmark', 'field']);
    const early = edit(clean, 'word/document.xml', (xml) => xml.replace(/(<w:body>)([\s\S]*?)(<w:sectPr[\s\S]*?<\/w:sectPr>)/, '$1$3$2'));
    assert.deepEqual(rules(early), ['story']);
    const misordered = edit(clean, 'word/document.xml', (xml) =>
      xml.replace('<w:p>', '<w:p><w:pPr><w:jc w:val="left"/><w:pStyle w:val="a"/></w:pPr>'),
    );
    assert.deepEqual(rules(misordered), ['order']);
    // Elements where their content model does not allow them: text straight in a paragraph, a run in a run, a run in the body.
    const bare = edit(clean, 'word/document.xml', (xml) => xml.replace('<w:p>', '<w:p><w:t>bare</w:t>'));
    assert.deepEqual(
      wordProblems(bare).filter((problem) => problem.startsWith('content:')),
      ['content: word/document.xml <w:p> may not hold <w:t>'],
    );
    const nestedRun = edit(clean, 'word/document.xml', (xml) => xml.replace('<w:r>', `<w:r>${run('inner')}`));
    assert.deepEqual(rules(nestedRun), ['content']);
    const loose = edit(clean, 'word/document.xml', (xml) => xml.replace('<w:body>', `<w:body>${run('loose')}`));
    assert.deepEqual(rules(loose), ['content']);
  });

  it("counts only what an output adds to its input's faults", () => {
    const faulty = edit(clean, 'word/document.xml', (xml) => xml.replace('<w:p>', '<w:p><w:bookmarkStart w:id="7" w:name="mark"/>'));
    assert.deepEqual(newProblems(faulty, [faulty]), []);
    assert.equal(newProblems(faulty, [clean]).length, 1);
    assert.deepEqual(rules(png(2, 2)), ['package'], 'not a ZIP archive');
  });
});
