import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import CFB from 'cfb';
import { zipSync } from 'fflate';
import { detectFormat, formatsIn, requireFormat } from '../../src/formats/detect.js';
import { fixture, FIXTURES } from '../helpers/server.js';
import { pdfOfObjects } from '../helpers/hostile.js';
import fs from 'node:fs';
import path from 'node:path';

const format = (bytes: Uint8Array) => {
  const d = detectFormat(bytes);
  return d.ok ? d.format : d.problem;
};

describe('format detection from bytes', () => {
  it('recognises the fixtures by content', () => {
    assert.equal(format(fixture('test_template.docx')), 'docx');
    assert.equal(format(fixture('sample_docx.docx')), 'docx');
    assert.equal(format(fixture('test.doc')), 'doc');
    assert.equal(format(fixture('cash.xlsx')), 'xlsx');
    assert.equal(format(fixture('maelzel_machine.pdf')), 'pdf');
    assert.equal(format(fixture('test_template.tx')), 'tx');
    assert.equal(format(fixture('test_find_and_replace.tx')), 'tx');
    assert.equal(format(fs.readFileSync(path.join(FIXTURES, 'text-in-merge-data', 'template.tx'))), 'tx');
    assert.equal(format(fixture('rc_logo_512.png')), 'unknown');
  });

  it('recognises RTF and HTML text', () => {
    assert.equal(format(Buffer.from('{\\rtf1\\ansi Hello}')), 'rtf');
    assert.equal(format(Buffer.from('\uFEFF  <!DOCTYPE html><html><body>x</body></html>')), 'html');
    assert.equal(format(Buffer.from('<html lang="en"><p>x</p></html>')), 'html');
    assert.equal(format(Buffer.from('<?xml version="1.0"?><note/>')), 'unknown');
    // Fragments a browser renders: no doctype, html or body.
    for (const fragment of [
      '<div class="a"><p>Hello</p></div>',
      '  <p>Hi',
      '<!-- saved --><table><tr><td>x</td></tr></table>',
      '<H1>Title</H1>',
      '<span>x</span>',
      '<br/>line',
      '<iframe src="about:blank"></iframe><p>x</p>',
      '<script>var a = 1;</script><p>x</p>',
      '<svg width="10"></svg>',
    ]) {
      assert.equal(format(Buffer.from(fragment)), 'html', fragment);
    }
    assert.equal(format(Buffer.from('<note>x</note>')), 'unknown', 'unknown XML is not HTML');
    assert.equal(format(Buffer.from('<div>\x00\x01\x02 binary')), 'unknown');
    assert.equal(format(Buffer.from('{"json": true}')), 'unknown');
  });

  it('explains what it cannot read', () => {
    assert.equal(format(Buffer.alloc(0)), 'empty');
    const docx = fixture('test_template.docx');
    assert.equal(format(docx.subarray(0, docx.length / 2)), 'corrupt', 'truncated ZIP');
    assert.equal(format(fixture('test.doc').subarray(0, 1000)), 'corrupt', 'truncated OLE file');
    // A sound header and more than a stub: the office gets to try what our OLE reader cannot read.
    assert.equal(format(fs.readFileSync(path.join(FIXTURES, '..', 'damaged', 'fuzzed-word97.doc'))), 'doc');
    assert.equal(format(Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)])), 'corrupt');
    assert.equal(format(zipSync({ 'a.txt': Buffer.from('hello') })), 'unknown', 'a ZIP that is no Office file');
  });

  it('names what it does not take and what to do: OpenDocument, XLS, the formats of the endpoint', () => {
    const message = (bytes: Uint8Array) => {
      const d = detectFormat(bytes);
      return d.ok ? d.format : d.message;
    };
    const odt = zipSync({ mimetype: Buffer.from('application/vnd.oasis.opendocument.text'), 'content.xml': Buffer.from('<x/>') });
    assert.match(message(odt), /OpenDocument text \(ODT\) documents are not accepted; save it in Word's format .*\.docx/);
    const ods = zipSync({ mimetype: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') });
    assert.match(message(ods), /OpenDocument spreadsheets \(ODS\)/);
    // An XLS our compound reader cannot take apart is still named, not called a damaged DOC.
    const xls = CFB.utils.cfb_new();
    CFB.utils.cfb_add(xls, '/Workbook', Buffer.alloc(16384, 3));
    const damagedXls = Buffer.from(CFB.write(xls, { type: 'buffer' }) as Buffer).subarray(0, 12000); // cut off: the reader throws
    assert.match(message(damagedXls), /Excel 97-2003 workbooks \(XLS\) are not supported/);
    // The formats a message names are those of the endpoint asked.
    const words = Buffer.from('just some words');
    assert.throws(() => requireFormat(words, ['docx', 'doc', 'rtf', 'tx']), /not a document in a format we read \(DOCX, DOC, RTF, TX\)\.$/);
    assert.equal(
      formatsIn(message(words) as string),
      'The data is not a document in a format we read (DOCX, DOC, RTF, TX, HTML, PDF, XLSX).',
    );
  });

  it('refuses macro-enabled and encrypted documents', () => {
    const docm = zipSync({
      '[Content_Types].xml': Buffer.from('<Types><Override ContentType="application/vnd.ms-word.document.macroEnabled.main+xml"/></Types>'),
    });
    assert.equal(format(docm), 'macro');
    const container = CFB.utils.cfb_new();
    CFB.utils.cfb_add(container, '/EncryptionInfo', Buffer.alloc(64, 1));
    CFB.utils.cfb_add(container, '/EncryptedPackage', Buffer.alloc(4096, 2));
    assert.equal(format(CFB.write(container, { type: 'buffer' }) as Buffer), 'encrypted');
    // Compound file stream names are case-insensitive.
    const upper = CFB.utils.cfb_new();
    CFB.utils.cfb_add(upper, '/ENCRYPTIONINFO', Buffer.alloc(64, 1));
    CFB.utils.cfb_add(upper, '/ENCRYPTEDPACKAGE', Buffer.alloc(4096, 2));
    assert.equal(format(CFB.write(upper, { type: 'buffer' }) as Buffer), 'encrypted');
  });

  it('tells Word 6.0 and 95 documents from Word 97-2003 ones', async () => {
    const { wordVersion } = await import('../../src/formats/detect.js');
    const { legacyWordDoc } = await import('../helpers/hostile.js');
    assert.equal(format(legacyWordDoc('six')), 'doc');
    assert.equal(wordVersion(legacyWordDoc('six')), 'word6');
    assert.equal(wordVersion(legacyWordDoc('ninety-five', { nFib: 104 })), 'word95');
    assert.equal(wordVersion(fixture('test.doc')), 'word97');
  });

  it('reads a DOC whose stream names are upper case', () => {
    const doc = CFB.read(fixture('test.doc'), { type: 'buffer' });
    const renamed = CFB.utils.cfb_new();
    for (const entry of doc.FileIndex) {
      if (entry.type !== 2 || !entry.content) continue;
      CFB.utils.cfb_add(renamed, `/${entry.name.toUpperCase()}`, entry.content);
    }
    assert.equal(format(CFB.write(renamed, { type: 'buffer' }) as Buffer), 'doc');
  });

  it('does not inflate a zip bomb to read the content types', () => {
    // 64 MB of zeros compress to about 64 KB; the detector stops inflating at its 1 MB cap.
    const bomb = zipSync({ '[Content_Types].xml': new Uint8Array(64 * 1024 * 1024) }, { level: 9 });
    assert.ok(bomb.length < 1024 * 1024);
    const started = Date.now();
    const detected = detectFormat(bomb);
    assert.ok(Date.now() - started < 2000);
    assert.equal(detected.ok ? detected.format : detected.problem, 'corrupt');
    assert.match((detected as { message: string }).message, /refused: the part \[Content_Types\]\.xml unpacks to more than/);
  });
});

describe('PDF pages', () => {
  /** A one-page PDF whose page tree says something else. */
  function pdfWithPages(pagesDict: string): Buffer {
    const stream = 'BT /F1 24 Tf 20 100 Td (Hello) Tj ET';
    return pdfOfObjects([
      '<< /Type /Catalog /Pages 2 0 R >>',
      pagesDict,
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ]);
  }

  it('counts the pages of a damaged page tree as the readers do, the same way everywhere', async () => {
    const { openPdf, mupdf, pdfText } = await import('../../src/formats/pdf.js');
    const lib = await mupdf();
    for (const tree of [
      '<< /Type /Pages /Kids [3 0 R] /Count 0 >>',
      '<< /Type /Pages /Kids [3 0 R] >>',
      '<< /Type /Pages /Count 1 >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    ]) {
      const bytes = pdfWithPages(tree);
      const doc = openPdf(lib, bytes);
      assert.equal(doc.countPages(), 1, tree);
      assert.match(await pdfText(bytes), /Hello/, tree);
    }
  });

  it('joins PDFs copying what their pages share once per part, into bytes of their own', async () => {
    const { joinPdfs, mupdf, pdfText } = await import('../../src/formats/pdf.js');
    const lib = await mupdf();
    // Two pages sharing their embedded fonts, as the office writes a part of a long table.
    const page = lib.Document.openDocument(fixture('maelzel_machine.pdf'), 'application/pdf').asPDF()!;
    const twoPages = new lib.PDFDocument();
    const map = twoPages.newGraftMap();
    map.graftPage(-1, page, 0);
    map.graftPage(-1, page, 0);
    const part = twoPages.saveToBuffer('compress').asUint8Array().slice();
    const joined = await joinPdfs([part, part]);
    assert.equal(lib.Document.openDocument(joined, 'application/pdf').countPages(), 4);
    assert.ok(joined.length < part.length * 2.2, `${joined.length} bytes joined from two parts of ${part.length}`);
    assert.equal(joined.byteLength, joined.buffer.byteLength, 'not a view into the reader’s memory, which a thread would copy whole');
    assert.equal((await pdfText(joined)).match(/Mälzel and the Machine/g)?.length, 4);
  });
});
