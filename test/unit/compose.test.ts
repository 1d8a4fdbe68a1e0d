// The document builder's work that needs no office: styles, sections, ids, comments, dividers
// (test/compose/builder.test.ts checks the joined documents through the real LibreOffice).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync } from 'fflate';
import { DocumentBuilder } from '../../src/compose/builder.js';
import { endSection } from '../../src/ooxml/body.js';
import { parseDivider } from '../../src/api/requests/append.js';
import { docx, headingStyle, p, partXml, run, schemaOrderProblemsOf } from '../helpers/docx.js';

describe('document builder (append), without the office', () => {
  it('ends a section in the last paragraph, its properties kept, not in a paragraph of its own (a full page stays one page)', () => {
    const sect = '<w:sectPr><w:type w:val="nextPage"/></w:sectPr>';
    const tiny = '<w:p><w:pPr><w:spacing w:line="20" w:lineRule="exact"/><w:rPr><w:sz w:val="2"/></w:rPr></w:pPr></w:p>';
    assert.equal(
      endSection(`<w:tbl/>${tiny}`, sect),
      `<w:tbl/><w:p><w:pPr><w:spacing w:line="20" w:lineRule="exact"/><w:rPr><w:sz w:val="2"/></w:rPr>${sect}</w:pPr></w:p>`,
    );
    assert.equal(endSection('<w:p><w:r><w:t>x</w:t></w:r></w:p>', sect), `<w:p><w:pPr>${sect}</w:pPr><w:r><w:t>x</w:t></w:r></w:p>`);
    // A paragraph holding paragraphs (a text box) or a section break of its own gets one after it.
    const boxed = '<w:p><w:r><w:drawing><w:txbxContent><w:p><w:r><w:t>in</w:t></w:r></w:p></w:txbxContent></w:drawing></w:r></w:p>';
    assert.equal(endSection(boxed, sect), `${boxed}<w:p><w:pPr>${sect}</w:pPr></w:p>`);
    assert.equal(
      endSection(`<w:p><w:pPr>${sect}</w:pPr></w:p>`, sect),
      `<w:p><w:pPr>${sect}</w:pPr></w:p><w:p><w:pPr>${sect}</w:pPr></w:p>`,
    );
  });

  it("keeps each document's look when Heading1 is defined differently", () => {
    const red = docx(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>${run('Red title')}</w:p>`, { styles: headingStyle('FF0000') });
    const blue = docx(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>${run('Blue title')}</w:p>`, { styles: headingStyle('0000FF') });
    const same = docx(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>${run('Red again')}</w:p>`, { styles: headingStyle('FF0000') });
    const builder = new DocumentBuilder(red);
    builder.append(blue, 'section');
    builder.append(same, 'section');
    const out = builder.toBuffer();
    const styles = partXml(out, 'word/styles.xml');
    assert.equal((styles.match(/w:styleId="Heading1"/g) ?? []).length, 1);
    assert.match(styles, /w:styleId="Heading1J2"[\s\S]*?<w:color w:val="0000FF"\/>/);
    const body = partXml(out);
    assert.match(body, /<w:pStyle w:val="Heading1J2"\/>(?:<w:sectPr>[\s\S]*?<\/w:sectPr>)?<\/w:pPr>[\s\S]*?Blue title/);
    assert.match(body, /<w:pStyle w:val="Heading1"\/>[\s\S]*?Red again/);
  });

  it("renames style references in the appended document's headers and footnotes too", () => {
    const heading = (text: string) => `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>${run(text)}</w:p>`;
    const red = docx(heading('Red title'), { styles: headingStyle('FF0000') });
    const blue = docx(heading('Blue title') + p(run('Claim'), '<w:r><w:footnoteReference w:id="1"/></w:r>'), {
      styles: headingStyle('0000FF'),
      header: heading('Blue header'),
      footnotes: `<w:footnote w:id="1">${heading('Blue note')}</w:footnote>`,
    });
    const builder = new DocumentBuilder(red);
    builder.append(blue, 'section');
    const out = builder.toBuffer();
    const header = Object.keys(unzipSync(out)).find((name) => /^word\/j2_header/.test(name))!;
    assert.match(partXml(out, header), /<w:pStyle w:val="Heading1J2"\/><\/w:pPr>[\s\S]*Blue header/);
    assert.match(partXml(out, 'word/footnotes.xml'), /<w:pStyle w:val="Heading1J2"\/><\/w:pPr>[\s\S]*Blue note/);
  });

  it('adds no empty header or footer where no earlier section shows one, and one where it does', () => {
    const bare = docx(p(run('label')));
    const plain = new DocumentBuilder(bare);
    plain.append(bare, 'section');
    const xml = partXml(plain.toBuffer());
    assert.ok(!/headerReference|footerReference/.test(xml), 'nothing to hide, nothing added');
    const headed = docx(p(run('letter')), { header: p(run('Letterhead')) });
    const mixed = new DocumentBuilder(headed);
    mixed.append(bare, 'section');
    const sections = [...partXml(mixed.toBuffer()).matchAll(/<w:sectPr\b[\s\S]*?<\/w:sectPr>/g)].map((m) => m[0]);
    assert.equal(sections.length, 2);
    assert.match(sections[1]!, /<w:headerReference w:type="default"/, 'the letterhead is hidden in the appended section');
    assert.ok(!/footerReference/.test(sections[1]!), 'no footer anywhere: none added');
  });

  it('keeps sectPr children in schema order, with pretty-printed and self-closing section properties', () => {
    const pretty = (header: boolean) => {
      const bytes = unzipSync(docx(p(run('x')), header ? { header: p(run('H')), footer: p(run('F')) } : {}));
      const xml = new TextDecoder().decode(bytes['word/document.xml']);
      bytes['word/document.xml'] = new TextEncoder().encode(
        header
          ? xml.replace(/(<w:headerReference[^>]*\/>)(<w:footerReference)/, '$1\n    $2')
          : xml.replace(/<w:sectPr>[\s\S]*<\/w:sectPr>/, '<w:sectPr/>'),
      );
      return Buffer.from(zipSync(bytes));
    };
    for (const header of [true, false]) {
      const builder = new DocumentBuilder(pretty(header));
      builder.append(pretty(header), 'section');
      builder.append(pretty(header), 'section');
      const xml = partXml(builder.toBuffer());
      for (const sect of xml.match(/<w:sectPr\b[^>]*>[\s\S]*?<\/w:sectPr>|<w:sectPr\b[^>]*\/>/g)!) {
        const children = [...sect.matchAll(/<w:(\w+)\b/g)].map((m) => m[1]).slice(1);
        const firstOther = children.findIndex((c) => c !== 'headerReference' && c !== 'footerReference');
        assert.ok(
          children.slice(firstOther).every((c) => c !== 'headerReference' && c !== 'footerReference'),
          `references first: ${children.join(',')}`,
        );
      }
      assert.ok(!/<w:sectPr\/><w:/.test(xml), 'a self-closing sectPr took no children after it');
      assert.deepEqual(schemaOrderProblemsOf(builder.toBuffer()), []);
    }
  });

  it('keeps drawing ids unique across the body, headers and footers of every joined document', () => {
    const drawing = (id: number) =>
      `<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="1" cy="1"/><wp:docPr id="${id}" name="d${id}"/></wp:inline></w:drawing></w:r>`;
    const withDrawings = docx(`<w:p>${drawing(1)}</w:p>`, { header: `<w:p>${drawing(1)}</w:p>`, footer: `<w:p>${drawing(2)}</w:p>` });
    const builder = new DocumentBuilder(withDrawings);
    builder.append(withDrawings, 'section');
    builder.append(withDrawings, 'section');
    const out = builder.toBuffer();
    const ids = Object.entries(unzipSync(out))
      .filter(([name]) => name.endsWith('.xml'))
      .flatMap(([, data]) => [...new TextDecoder().decode(data).matchAll(/<wp:docPr\b[^>]*\bid="(\d+)"/g)].map((m) => m[1]));
    assert.equal(ids.length, 9);
    assert.equal(new Set(ids).size, ids.length, `ids ${ids.join(',')}`);
  });

  it('gives tracked changes and content controls of every joined document ids of their own, range pairs kept together', () => {
    const reviewed = docx(
      p(
        '<w:ins w:id="1" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:t>new</w:t></w:r></w:ins>',
        '<w:del w:id="2" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:delText>old</w:delText></w:r></w:del>',
        '<w:moveFromRangeStart w:id="3" w:name="m" w:author="A" w:date="2024-01-01T00:00:00Z"/><w:moveFrom w:id="4" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:delText>moved</w:delText></w:r></w:moveFrom><w:moveFromRangeEnd w:id="3"/>',
      ) + '<w:sdt><w:sdtPr><w:id w:val="-1234"/></w:sdtPr><w:sdtContent><w:p><w:r><w:t>control</w:t></w:r></w:p></w:sdtContent></w:sdt>',
    );
    const builder = new DocumentBuilder(reviewed);
    builder.append(reviewed, 'paragraph');
    builder.append(reviewed, 'paragraph');
    const xml = partXml(builder.toBuffer());
    const changeIds = [...xml.matchAll(/<w:(?:ins|del|moveFrom|moveFromRangeStart) w:id="(\d+)"/g)].map((m) => m[1]);
    assert.equal(changeIds.length, 12);
    assert.equal(new Set(changeIds).size, 12, `ids ${changeIds.join(',')}`);
    const controls = [...xml.matchAll(/<w:id w:val="(-?\d+)"\/>/g)].map((m) => m[1]);
    assert.equal(new Set(controls).size, 3, `content controls ${controls.join(',')}`);
    // Each range end names its own start.
    const starts = [...xml.matchAll(/<w:moveFromRangeStart w:id="(\d+)"/g)].map((m) => m[1]);
    const ends = [...xml.matchAll(/<w:moveFromRangeEnd w:id="(\d+)"/g)].map((m) => m[1]);
    assert.deepEqual(ends, starts);
  });

  it('carries comments with renumbered ids', () => {
    const commented = docx(
      p('<w:commentRangeStart w:id="0"/>', run('Reviewed text'), '<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>'),
      { comments: `<w:comment w:id="0" w:author="Ann" w:date="2024-01-01T00:00:00Z">${p(run('Check this'))}</w:comment>` },
    );
    const builder = new DocumentBuilder(commented);
    builder.append(commented, 'paragraph');
    const out = builder.toBuffer();
    assert.deepEqual(
      [...partXml(out, 'word/comments.xml').matchAll(/<w:comment w:id="(\d+)"/g)].map((m) => m[1]),
      ['0', '1'],
    );
    assert.deepEqual(
      [...partXml(out).matchAll(/<w:commentReference w:id="(\d+)"/g)].map((m) => m[1]),
      ['0', '1'],
    );
    assert.deepEqual(
      [...partXml(out).matchAll(/<w:commentRangeStart w:id="(\d+)"/g)].map((m) => m[1]),
      ['0', '1'],
    );
  });

  it('reads dividers as numbers or names, and refuses others naming the entry', () => {
    assert.equal(parseDivider(1, 0), 'none');
    assert.equal(parseDivider('NewParagraph', 0), 'paragraph');
    assert.equal(parseDivider('3', 0), 'section');
    assert.equal(parseDivider(undefined, 0), 'section');
    assert.throws(() => parseDivider(7, 4), /documents\[4\]\.documentDivider/);
  });
});
