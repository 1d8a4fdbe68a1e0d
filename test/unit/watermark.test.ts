import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync, strToU8 } from 'fflate';
import { OoxmlPackage } from '../../src/ooxml/package.js';
import { addWatermark } from '../../src/ooxml/watermark.js';
import { docx, p, run, schemaOrderProblemsOf } from '../helpers/docx.js';
import { wordProblems } from '../helpers/word-rules.js';

const text = (out: Buffer, name: string) => Buffer.from(unzipSync(out)[name]!).toString('utf8');
const marked = (body: string, options: Parameters<typeof docx>[1] = {}, settings?: string) => {
  let source = docx(body, options);
  if (settings) {
    const files = unzipSync(source);
    files['word/settings.xml'] = strToU8(settings);
    source = Buffer.from(zipSync(files));
  }
  const pkg = OoxmlPackage.read(source);
  addWatermark(pkg, 'TEST MODE');
  return pkg.toBuffer();
};
/** Each section's header references: type -> header part. */
function sections(out: Buffer): Record<string, string>[] {
  const rels = text(out, 'word/_rels/document.xml.rels');
  return [...text(out, 'word/document.xml').matchAll(/<w:sectPr\b[\s\S]*?<\/w:sectPr>/g)].map((m) =>
    Object.fromEntries(
      [...m[0].matchAll(/<w:headerReference w:type="(\w+)" r:id="([^"]+)"\/>/g)].map((r) => [
        r[1]!,
        new RegExp(`Id="${r[2]}"[^>]*Target="([^"]+)"`).exec(rels)![1]!,
      ]),
    ),
  );
}

describe('test-run watermark in DOCX', () => {
  it('marks a document without headers through a header of its own, and keeps the schema order', () => {
    const out = marked(p(run('Body')));
    const [only] = sections(out);
    assert.deepEqual(Object.keys(only!), ['default']);
    const header = text(out, `word/${only!.default}`);
    assert.match(header, /<w:docPartGallery w:val="Watermarks"\/>/);
    assert.match(header, /<v:shape id="PowerPlusWaterMarkObject1"[^>]*type="#_x0000_t136"[^>]*rotation:315[\s\S]*?string="TEST MODE"/);
    assert.match(
      text(out, '[Content_Types].xml'),
      /PartName="\/word\/header-watermark1\.xml" ContentType="application\/vnd\.openxmlformats-officedocument\.wordprocessingml\.header\+xml"/,
    );
    assert.deepEqual(schemaOrderProblemsOf(out), []);
    assert.match(text(out, 'word/document.xml'), /Body/);
  });

  it('marks a minimal document whose body has no section properties (a test run is never unmarked)', () => {
    const files = unzipSync(docx(p(run('Body'))));
    const withoutSection = Buffer.from(files['word/document.xml']!)
      .toString('utf8')
      .replace(/<w:sectPr\b[\s\S]*?<\/w:sectPr>/, '');
    assert.doesNotMatch(withoutSection, /sectPr/);
    files['word/document.xml'] = strToU8(withoutSection);
    const pkg = OoxmlPackage.read(Buffer.from(zipSync(files)));
    addWatermark(pkg, 'TEST MODE');
    const out = pkg.toBuffer();
    const [only] = sections(out);
    assert.match(text(out, `word/${only!.default}`), /string="TEST MODE"/);
    assert.match(text(out, 'word/document.xml'), /<w:sectPr><w:headerReference w:type="default" r:id="[^"]+"\/><\/w:sectPr><\/w:body>/);
    assert.deepEqual(wordProblems(out), []);
    // The line style (TX output) too.
    const line = OoxmlPackage.read(Buffer.from(zipSync(files)));
    addWatermark(line, 'TEST MODE', 'word/document.xml', 'line');
    assert.match(text(line.toBuffer(), `word/${sections(line.toBuffer())[0]!.default}`), /<w:t xml:space="preserve">TEST MODE<\/w:t>/);
  });

  it('marks the headers sections have, adds first and even-page ones where a section shows them, and relies on inheritance', () => {
    const first = '<w:p><w:pPr><w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:titlePg/></w:sectPr></w:pPr></w:p>';
    const settings =
      '<?xml version="1.0" encoding="UTF-8"?><w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:evenAndOddHeaders/></w:settings>';
    const out = marked(p(run('One')) + first + p(run('Two')), { header: p(run('Own header')) }, settings);
    const [one, two] = sections(out);
    // The first section shows a first-page header and even pages: both new; its default one inherits none, so new too.
    assert.deepEqual(Object.keys(one!).sort(), ['default', 'even', 'first']);
    // The last section has its own default header and inherits first and even from the section before.
    assert.deepEqual(Object.keys(two!), ['default']);
    const own = text(out, `word/${two!.default}`);
    assert.match(own, /Own header/);
    assert.match(own, /string="TEST MODE"/);
    for (const part of Object.values(one!)) assert.match(text(out, `word/${part}`), /string="TEST MODE"/);
    assert.deepEqual(schemaOrderProblemsOf(out), []);
  });
});
