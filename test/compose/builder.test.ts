import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync } from 'fflate';
import { DocumentBuilder } from '../../src/compose/builder.js';
import { Converter } from '../../src/convert/converter.js';
import type { OfficePool } from '../../src/office/pool.js';
import { fixture } from '../helpers/server.js';
import { pdfFacts, testPool } from '../helpers/office.js';
import * as mupdf from 'mupdf';
import { decimalList, docx, field, listItem, p, partText, partXml, picture, png, run, simpleField } from '../helpers/docx.js';
import { renameBookmarks } from '../../src/compose/bookmarks.js';

function pageTexts(pdf: Buffer): string[] {
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  return Array.from({ length: doc.countPages() }, (_, i) => doc.loadPage(i).toStructuredText('preserve-whitespace').asText());
}

describe('document builder (append)', () => {
  let pool: OfficePool;
  let converter: Converter;
  before(async () => {
    pool = testPool({ size: 1 });
    await pool.start();
    converter = new Converter(pool);
  });
  after(() => pool.close());
  const toPdf = async (docxBytes: Buffer) => (await converter.convert(docxBytes, 'docx', 'pdf')).data;

  it('NewSection: the appended document starts a page with its own headers and footers', async () => {
    const builder = new DocumentBuilder(fixture('test_document.docx'));
    builder.append(fixture('sample_docx.docx'), 'section');
    builder.append(fixture('test_document.docx'), 'section');
    const pages = pageTexts(await toPdf(builder.toBuffer()));
    assert.equal(pages.length, 3);
    assert.match(pages[0]!, /A Test File/);
    assert.match(pages[1]!, /This is a sample document/);
    const sampleHeader = pageTexts(await toPdf(fixture('sample_docx.docx')))[0]!
      .split('\n')
      .find((l) => l.trim() && !/sample document|more text/.test(l))!;
    assert.ok(pages[1]!.includes(sampleHeader.trim()), 'page 2 shows the sample header');
    assert.ok(!pages[2]!.includes(sampleHeader.trim()), 'page 3 does not inherit it');
    assert.ok(!pages[0]!.includes(sampleHeader.trim()));
  });

  it('NewParagraph and None: same page; None continues the last paragraph', async () => {
    const paragraph = new DocumentBuilder(docx(p(run('First'))));
    paragraph.append(docx(p(run('Second'))), 'paragraph');
    const out = paragraph.toBuffer();
    assert.equal(partText(out), 'First\nSecond');
    assert.equal(pdfFacts(await toPdf(out)).pages, 1);
    const none = new DocumentBuilder(docx(p(run('First '))));
    none.append(docx(p(run('continues')) + p(run('Next'))), 'none');
    assert.equal(partText(none.toBuffer()), 'First continues\nNext');
  });

  it("starts each document's numbered list at 1", async () => {
    const list = docx(listItem('alpha') + listItem('beta'), { numbering: decimalList });
    const builder = new DocumentBuilder(list);
    builder.append(list, 'paragraph');
    const text = pdfFacts(await toPdf(builder.toBuffer())).text;
    assert.match(text, /1\.\s*alpha[\s\S]*2\.\s*beta[\s\S]*1\.\s*alpha[\s\S]*2\.\s*beta/);
  });

  it('keeps all footnotes when a document with footnotes is appended twice', async () => {
    const noted = docx(p(run('Claim'), '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:footnoteReference w:id="1"/></w:r>'), {
      footnotes: `<w:footnote w:id="1">${p(run(' The source.'))}</w:footnote>`,
    });
    const builder = new DocumentBuilder(noted);
    builder.append(noted, 'section');
    builder.append(noted, 'paragraph');
    const out = builder.toBuffer();
    const notes = partXml(out, 'word/footnotes.xml');
    assert.equal((notes.match(/<w:footnote w:id="[1-9]\d*"/g) ?? []).length, 3);
    const refs = [...partXml(out).matchAll(/<w:footnoteReference w:id="(\d+)"/g)].map((m) => m[1]);
    assert.deepEqual(refs, ['1', '2', '3']);
    const text = pdfFacts(await toPdf(out)).text;
    assert.equal((text.match(/The source\./g) ?? []).length, 3);
  });

  it('carries pictures and links inside footnotes, with their relationships', async () => {
    const base = docx(p(run('Notes with a picture and a link')), {
      footnotes: `<w:footnote w:id="1">${p(run(' See '), picture('logo', 20, 20).replace('rIdPh', 'rNoteImg'))}${p('<w:hyperlink r:id="rNoteLink"><w:r><w:t>the site</w:t></w:r></w:hyperlink>')}</w:footnote>`,
    });
    const files: Record<string, Uint8Array> = unzipSync(base);
    files['word/_rels/footnotes.xml.rels'] = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rNoteImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/note.png"/>' +
        '<Relationship Id="rNoteLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/" TargetMode="External"/></Relationships>',
    );
    files['word/media/note.png'] = png(20, 20, [10, 120, 200]);
    files['[Content_Types].xml'] = Buffer.from(
      Buffer.from(files['[Content_Types].xml']!)
        .toString()
        .replace('</Types>', '<Default Extension="png" ContentType="image/png"/></Types>'),
    );
    const noted = Buffer.from(zipSync(files));
    const noted1 = p(run('Claim'), '<w:r><w:footnoteReference w:id="1"/></w:r>');
    const withRef = Buffer.from(
      zipSync({
        ...files,
        'word/document.xml': Buffer.from(Buffer.from(files['word/document.xml']!).toString().replace('<w:body>', `<w:body>${noted1}`)),
      }),
    );

    const builder = new DocumentBuilder(docx(p(run('First document, no notes'))));
    builder.append(withRef, 'paragraph');
    builder.append(noted, 'paragraph');
    const out = builder.toBuffer();
    const parts = unzipSync(out);
    const notes = partXml(out, 'word/footnotes.xml');
    const rels = Buffer.from(parts['word/_rels/footnotes.xml.rels']!).toString();
    const embeds = [...notes.matchAll(/r:embed="([^"]+)"/g)].map((m) => m[1]!);
    const links = [...notes.matchAll(/<w:hyperlink r:id="([^"]+)"/g)].map((m) => m[1]!);
    assert.equal(embeds.length, 2);
    assert.equal(new Set(embeds).size, 2, 'each appended note has its own relationship id');
    for (const id of embeds) {
      const target = new RegExp(`Id="${id}"[^>]*Target="([^"]+)"`).exec(rels)?.[1];
      assert.ok(target && parts[`word/${target}`], `${id} -> ${target} exists`);
    }
    for (const id of links) assert.match(rels, new RegExp(`Id="${id}"[^>]*Target="https://example.com/" TargetMode="External"`));
    assert.equal(Object.keys(parts).filter((name) => name.startsWith('word/media/')).length, 1, 'the same picture is stored once');
    const pdf = await toPdf(out);
    assert.match(pdfFacts(pdf).text, /See/);
  });

  it('declares on the main root the namespaces an appended document brings', async () => {
    const files: Record<string, Uint8Array> = unzipSync(docx(p(run('A plain first document'))));
    const minimalRoot =
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">';
    files['word/document.xml'] = Buffer.from(
      Buffer.from(files['word/document.xml']!)
        .toString()
        .replace(/<w:document\b[^>]*>/, minimalRoot),
    );
    const plain = Buffer.from(zipSync(files));
    const drawing = docx(
      p(run('With a picture'), picture('logo', 20, 20)) + '<w:p w14:paraId="1A2B3C4D"><w:r><w:t>w14 ids</w:t></w:r></w:p>',
    );
    const builder = new DocumentBuilder(plain);
    builder.append(drawing, 'paragraph');
    const out = builder.toBuffer();
    const root = /<w:document\b[^>]*>/.exec(partXml(out))![0];
    for (const prefix of ['wp', 'a', 'pic', 'mc', 'w14']) assert.match(root, new RegExp(`xmlns:${prefix}="`), prefix);
    assert.match(root, /mc:Ignorable="w14"/);
    assert.match(pdfFacts(await toPdf(out)).text, /With a picture[\s\S]*w14 ids/);
  });

  it("keeps an appended document's own defaults (docDefaults) through its own Normal style", async () => {
    const normal = '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>';
    const defaults = (font: string, size: number, after: number) =>
      `<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="${font}" w:hAnsi="${font}"/><w:sz w:val="${size}"/></w:rPr></w:rPrDefault>` +
      `<w:pPrDefault><w:pPr><w:spacing w:after="${after}"/></w:pPr></w:pPrDefault></w:docDefaults>`;
    const sans = docx(p(run('Sans eleven')), { styles: defaults('Liberation Sans', 22, 160) + normal });
    const mono = docx(p(run('Mono sixteen')) + '<w:p/>' + '<w:p><w:pPr><w:jc w:val="center"/></w:pPr>' + run('Centred mono') + '</w:p>', {
      styles: defaults('Liberation Mono', 32, 0) + normal,
    });
    const builder = new DocumentBuilder(sans);
    builder.append(mono, 'paragraph');
    builder.append(sans, 'paragraph');
    const out = builder.toBuffer();
    const styles = partXml(out, 'word/styles.xml');
    assert.equal((styles.match(/w:default="1"/g) ?? []).length, 1, 'one default paragraph style');
    assert.match(
      styles,
      /<w:style w:type="paragraph" w:styleId="NormalJ2"><w:name w:val="Normal \(2\)"\/><w:qFormat\/><w:pPr><w:spacing w:after="0"\/><\/w:pPr><w:rPr><w:rFonts w:ascii="Liberation Mono" w:hAnsi="Liberation Mono"\/><w:sz w:val="32"\/><w:szCs w:val="20"\/><\/w:rPr><\/w:style>/,
    );
    const body = partXml(out);
    assert.match(body, /<w:p><w:pPr><w:pStyle w:val="NormalJ2"\/><\/w:pPr><w:r><w:t xml:space="preserve">Mono sixteen/);
    assert.match(body, /<w:p><w:pPr><w:pStyle w:val="NormalJ2"\/><w:jc w:val="center"\/><\/w:pPr>/);
    assert.equal((body.match(/<w:pStyle w:val="NormalJ2"\/>/g) ?? []).length, 3, 'the appended paragraphs, the empty one too');
    assert.match(
      body,
      /<w:p><w:r><w:t xml:space="preserve">Sans eleven[\s\S]*<w:p><w:r><w:t xml:space="preserve">Sans eleven/,
      "documents with the first one's defaults stay unstyled",
    );
    // In the PDF: 11 pt sans, then 16 pt mono, then 11 pt sans again.
    const doc = mupdf.Document.openDocument(await toPdf(out), 'application/pdf');
    const lines = (
      JSON.parse(doc.loadPage(0).toStructuredText('preserve-whitespace').asJSON()) as {
        blocks: { lines: { text: string; font: { name: string; size: number } }[] }[];
      }
    ).blocks.flatMap((b) => b.lines);
    const fontOf = (text: string) => lines.find((l) => l.text.includes(text))!.font;
    assert.equal(Math.round(fontOf('Sans eleven').size), 11);
    assert.equal(Math.round(fontOf('Mono sixteen').size), 16);
    assert.match(fontOf('Mono sixteen').name, /Mono/);
    assert.match(fontOf('Sans eleven').name, /Sans/);
  });

  it('stores images once and keeps bookmark and drawing ids unique', async () => {
    const builder = new DocumentBuilder(fixture('construction_turk.docx'));
    for (let i = 0; i < 3; i++) builder.append(fixture('construction_turk.docx'), 'section');
    const out = builder.toBuffer();
    const media = Object.keys(unzipSync(out)).filter((n) => n.startsWith('word/media/'));
    assert.equal(media.length, 2);
    const ids = [...partXml(out).matchAll(/<wp:docPr id="(\d+)"/g)].map((m) => m[1]);
    assert.equal(ids.length, 8);
    assert.equal(new Set(ids).size, 8);
    assert.ok(out.length < fixture('construction_turk.docx').length * 1.5, 'images are not repeated');
    assert.ok(pdfFacts(await toPdf(out)).pages >= 4);
  });

  it("renames a joined document's clashing bookmarks and what refers to them: REF, PAGEREF, NOTEREF, links, in body, footer and notes", async () => {
    const record = (total: string) =>
      docx(
        p(run('Total: '), '<w:bookmarkStart w:id="0" w:name="Total"/>', run(total), '<w:bookmarkEnd w:id="0"/>') +
          p(
            run('Again: '),
            field('REF Total \\h', 'T-10'),
            run(' ; '),
            simpleField('REF  "Total"', 'T-10'),
            run(' ; '),
            field('Total', 'T-10'),
          ) +
          p(run('On page '), field('PAGEREF Total \\h', '1'), run(' see note '), field('NOTEREF Note1 \\h', '1')) +
          p(
            run('Linked '),
            '<w:hyperlink w:anchor="Total"><w:r><w:t>jump</w:t></w:r></w:hyperlink>',
            run(' '),
            field('HYPERLINK \\l "Total"', 'there'),
            '<w:r><w:footnoteReference w:id="1"/></w:r>',
          ),
        {
          footer: p(run('Footer total '), field('REF Total', 'T-10')),
          footnotes: `<w:footnote w:id="1"><w:p>${'<w:bookmarkStart w:id="7" w:name="Note1"/>'}${run(`Note of ${total}, total `)}${field('REF Total', 'T-10')}<w:bookmarkEnd w:id="7"/></w:p></w:footnote>`,
        },
      );
    const builder = new DocumentBuilder(record('T-10'));
    builder.append(record('T-20'), 'section');
    builder.append(record('T-30'), 'section');
    const out = builder.toBuffer();
    const body = partXml(out);
    assert.deepEqual(
      [...body.matchAll(/<w:bookmarkStart [^>]*w:name="([^"]+)"/g)].map((m) => m[1]),
      ['Total', 'Total_2', 'Total_3'],
    );
    assert.deepEqual(
      [...body.matchAll(/<w:hyperlink w:anchor="([^"]+)"/g)].map((m) => m[1]),
      ['Total', 'Total_2', 'Total_3'],
    );
    const pages = pageTexts(await toPdf(out));
    assert.equal(pages.length, 3);
    pages.forEach((page, i) => {
      const own = `T-${i + 1}0`;
      assert.match(page, new RegExp(`Again: ${own} ; ${own} ; `), `page ${i + 1}`);
      assert.match(page, new RegExp(`Footer total ${own}`), `page ${i + 1}'s footer`);
      assert.match(page, new RegExp(`On page ${i + 1} `), `page ${i + 1}'s PAGEREF`);
      assert.match(page, new RegExp(`Note of ${own}, total ${own}`), `page ${i + 1}'s footnote`);
    });
    // LibreOffice shows the stored results of bare-name fields and NOTEREF; Word computes them from what they name.
    const instructions = (xml: string) =>
      xml
        .split(/w:fldCharType="begin"/)
        .slice(1)
        .map((f) =>
          [...f.split(/w:fldCharType="(?:separate|end)"/)[0]!.matchAll(/<w:instrText[^>]*>([^<]*)</g)]
            .map((m) => m[1])
            .join('')
            .trim(),
        );
    assert.deepEqual(
      instructions(body).filter((i) => /^(Total|NOTEREF)/.test(i)),
      ['Total', 'NOTEREF Note1 \\h', 'Total_2', 'NOTEREF Note1_2 \\h', 'Total_3', 'NOTEREF Note1_3 \\h'],
    );
    assert.deepEqual(
      [
        ...Buffer.from(unzipSync(out)['word/footnotes.xml']!)
          .toString('utf8')
          .matchAll(/w:name="([^"]*)"/g),
      ].map((m) => m[1]),
      ['Note1', 'Note1_2', 'Note1_3'],
    );
    assert.deepEqual(
      renameBookmarks(
        p(field('PAGE', '1'), field('MERGEFIELD Total', 'x'), simpleField('HYPERLINK "https://x.test" \\l "total"')),
        new Map([['total', 'Total_2']]),
      ),
      p(field('PAGE', '1'), field('MERGEFIELD Total', 'x'), simpleField('HYPERLINK "https://x.test" \\l "Total_2"')),
      'other fields stay; names compare without case',
    );
  });
});
