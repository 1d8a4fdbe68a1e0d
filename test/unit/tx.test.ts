// The TX Text Control reader (formats/tx/) on the ReportingCloud PHP SDK's three public .tx files
// (BSD-3, test/fixtures/reportingcloud/LICENSE.md): what it reads, what it refuses by name, and
// that damaged files (truncated, bit-flipped, fuzzed) are a 400 and nothing else.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readTx } from '../../src/formats/tx/read.js';
import { txToDocx } from '../../src/formats/tx/docx.js';
import { writeTx } from '../../src/formats/tx/write.js';
import { docxToTx, instructionTokens, TxOutputError } from '../../src/formats/tx/fromDocx.js';
import { unzipSync } from 'fflate';
import { TxError } from '../../src/formats/tx/cursor.js';
import { InputError } from '../../src/errors.js';
import { OoxmlPackage } from '../../src/ooxml/package.js';
import { FIXTURES, fixture } from '../helpers/server.js';
import { checkedCompile, wordProblems } from '../helpers/word-rules.js';
import { cell, docx, p, partXml, picture, png, row, run, schemaOrderProblemsOf, table } from '../helpers/docx.js';
import {
  twinTx,
  twinWithLink,
  txWithChanges,
  txWithFlags,
  txWithFrame,
  txWithoutNames,
  txWithFormField,
  txWithLineSpacing,
  txWithMergedTable,
  txWithBlockFields,
  txWithPageField,
  txWithParagraphFormat,
  txWithStories,
  txWithPicture,
  txWithSignatureBox,
  txWithBarcode,
  txWithRegions,
  txWithSheet,
  txWithTargets,
  txWithTargetField,
  txWithTextBox,
  txWithEmptyRun,
  unreadableTx,
} from '../helpers/tx.js';
import { txCarriedOver } from '../../src/formats/tx/carried.js';
import { loadSvgRasteriser } from '../../src/render/svg.js';
import { BLANK_PNG } from '../../src/inert/pictures.js';
import { CHANGE_KIND, listTrackedChanges, removeTrackedChange } from '../../src/review/trackedChanges.js';

const twin = twinTx();
const withFlags = txWithFlags;
const SVG_LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><rect width="200" height="100" fill="#ea1183"/><circle cx="100" cy="50" r="40" fill="#0d3964"/></svg>',
);

describe('the TX reader', () => {
  it('reads the twin: text, character formats, fields with their instructions, the table, the block and the page', () => {
    const doc = readTx(twin);
    assert.equal(doc.text.length, 150);
    assert.ok(doc.text.startsWith('qty\nitem_description\n'));
    // Runs tile the text; the header row is bold white Arial 10 pt.
    assert.deepEqual(doc.runs.map((r) => [r.start, r.end]).flat(), [0, ...doc.runs.slice(1).flatMap((r) => [r.start, r.start]), 150]);
    assert.deepEqual(said(doc.charFormats[doc.runs[0]!.format]), {
      face: 'Arial',
      halfPoints: 20,
      bold: true,
      italic: false,
      underline: false,
      strike: false,
    });
    assert.equal(doc.runs[0]!.colour, 'FFFFFF');
    const fields = [...doc.fields.values()];
    assert.deepEqual(
      fields.map((f) => f.instruction.join(' ')),
      ['qty', 'item_description', 'item_discount', 'item_no', 'item_total', 'item_unitprice'].map((n) => `MERGEFIELD ${n}`),
    );
    assert.equal(doc.tables.length, 1);
    const [table] = doc.tables;
    assert.deepEqual([table!.rows, table!.columns], [2, 6]);
    assert.ok(table!.cells.every((cell) => cell.width === 1560));
    const header = doc.cellFormats[table!.cells[0]!.format]!;
    assert.deepEqual(
      [header.shading, header.headerRow, header.borders, header.borderColours[0]],
      ['3983C5', true, [30, 30, 30, 30], 'FFFFFF'],
    );
    assert.deepEqual(said(doc.marks), [{ name: 'txmb_item', start: 69, end: 150 }]);
    assert.deepEqual(doc.page, {
      width: 12240,
      height: 15840,
      margins: [1440, 1440, 1440, 1440],
      headerDistance: 567,
      footerDistance: 567,
    });
  });

  it('writes DOCX Word opens, with the same fields and block as the twin written by TX Text Control', () => {
    const docx = txToDocx(readTx(twin));
    assert.deepEqual(wordProblems(docx), []);
    const ours = checkedCompile(docx);
    const theirs = checkedCompile(fs.readFileSync(path.join(FIXTURES, 'text-in-merge-data', 'template.docx')));
    assert.deepEqual(ours.info.mergeBlocks, theirs.info.mergeBlocks);
    assert.deepEqual(
      ours.info.mergeFields.map((f) => f.name),
      theirs.info.mergeFields.map((f) => f.name),
    );
    // The block bookmark sits between the rows (a row block), as TX writes it.
    assert.match(partXml(docx), /<\/w:tr><w:bookmarkStart w:id="0" w:name="txmb_item"\/><w:tr>/);
    assert.match(partXml(docx), /<w:tblHeader\/>/);
  });

  it('writes run properties in the order Word requires, underline and background together', () => {
    // The twin's header row made underlined (its character format) on a yellow background (its runs).
    const copy = Buffer.from(twin);
    const blockAt = 0x12 + 2 * copy.readUInt16LE(0x0e) + 6;
    copy[blockAt + 18 + 13 * 20 + 11] = 1; // the first character format's underline byte
    copy.writeUInt32LE(0x0000ffff, blockAt + 18 + 16); // the first run's background, COLORREF yellow
    const docx = txToDocx(readTx(copy));
    assert.deepEqual(wordProblems(docx), []);
    assert.match(partXml(docx), /<w:u w:val="single"\/><w:shd w:val="clear" w:color="auto" w:fill="FFFF00"\/><\/w:rPr>/);
  });

  it('reads the find-and-replace template as plain paragraphs', () => {
    const doc = readTx(fixture('test_find_and_replace.tx'));
    assert.deepEqual(
      doc.paragraphs.map((p) => doc.text.slice(p.start, p.end)),
      ['\n', '\n', '%%FIELD1%% -- hello world.\n', '%%FIELD2%% -- hello world again.\n', ''],
    );
    assert.deepEqual(wordProblems(txToDocx(doc)), []);
  });

  it('reads the older layout without a name list (feature flag 0x100 unset), as TXSamples writes it', () => {
    const original = readTx(fixture('test_find_and_replace.tx'));
    const older = readTx(txWithoutNames());
    assert.deepEqual(said(older), said(original));
  });

  it('reads a text frame of the body as its own story and writes it as a Word text frame before its anchoring paragraph', () => {
    const plain = readTx(fixture('test_find_and_replace.tx'));
    const doc = readTx(txWithFrame(30, { x: 120, y: 240, width: 2880, height: 1440 }));
    assert.equal(doc.text, plain.text, 'the body is unchanged');
    assert.equal(doc.frames?.length, 1);
    const [frame] = doc.frames!;
    assert.deepEqual([frame!.anchor, frame!.x, frame!.y, frame!.width, frame!.height], [29, 120, 240, 2880, 1440]);
    assert.ok(frame && 'story' in frame);
    assert.equal(frame.story.text, plain.text, "the frame's own document");
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    const xml = partXml(docx);
    const framed = xml.match(/<w:p><w:pPr><w:framePr [^>]*\/>/g) ?? [];
    assert.equal(framed.length, plain.paragraphs.length, 'every paragraph of the frame is in the frame');
    assert.match(
      framed[0]!,
      /w:w="2880" w:h="1440" w:hRule="atLeast" w:wrap="around" w:vAnchor="text" w:hAnchor="margin" w:x="120" w:y="240"/,
    );
    // The frame stands before the paragraph holding position 30 (1-based: "%%FIELD2%% ..."), after "%%FIELD1%% ...".
    const text = xml.replace(/<w:framePr[^>]*>/g, '[frame]').replace(/<[^>]+>/g, '');
    assert.ok(text.indexOf('%%FIELD1%% -- hello world.') < text.indexOf('[frame]'));
    assert.ok(text.lastIndexOf('[frame]') < text.lastIndexOf('%%FIELD2%% -- hello world again.'));
    assert.equal(text.split('%%FIELD1%%').length - 1, 2, 'the text is there twice: body and frame');
  });

  it('reads text frames measured from the text area or their paragraph (kinds 1 and 2) as floating Word text boxes, and back', () => {
    for (const [kind, placement, horizontal, vertical] of [
      [1, 'margin', 'margin', 'margin'],
      [2, 'paragraph', 'column', 'paragraph'],
    ] as const) {
      const source = txWithFrame(30, { x: 600, y: 300, width: 4000, height: 1500 }, kind);
      const doc = readTx(source);
      const [frame] = doc.frames!;
      assert.ok(frame && 'story' in frame);
      assert.equal(frame.placement, placement);
      assert.ok(writeTx(doc).equals(source), 'written back byte for byte');
      const word = txToDocx(doc);
      assert.deepEqual(wordProblems(word), []);
      const xml = partXml(word);
      assert.match(
        xml,
        new RegExp(
          `<wp:anchor [^>]*><wp:simplePos x="0" y="0"/><wp:positionH relativeFrom="${horizontal}"><wp:posOffset>381000</wp:posOffset></wp:positionH>` +
            `<wp:positionV relativeFrom="${vertical}"><wp:posOffset>190500</wp:posOffset></wp:positionV><wp:extent cx="2540000" cy="952500"/>.*<w:txbxContent>.*hello world.*</w:txbxContent>`,
        ),
      );
      assert.doesNotMatch(xml, /w:framePr/, 'not frame paragraphs: a text box holds tables too');
      assert.ok(txToDocx(readTx(writeTx(docxToTx(word)))).equals(word), 'back from Word, the same DOCX');
      assert.equal(readTx(writeTx(bare(doc))).frames?.length, 1, 'from the model alone');
    }
  });

  it('reads tracked insertions (body, with their times) and writes them as Word insertions the review lists', () => {
    const time = new Date('2019-08-06T12:34:13.918Z');
    const doc = readTx(
      txWithChanges([
        { start: 2, end: 12, time },
        { start: 21, end: 41 },
      ]),
    );
    assert.equal(doc.text, readTx(fixture('test_find_and_replace.tx')).text);
    assert.deepEqual(
      doc.changes!.map((c) => [doc.text.slice(c.start, c.end), c.kind, c.time.toISOString()]),
      [
        ['%%FIELD1%%', 'insertion', time.toISOString()],
        [' world.\n%%FIELD2%% -', 'insertion', time.toISOString()],
      ],
    );
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    const listed = listTrackedChanges(docx);
    assert.deepEqual(
      listed.map((c) => [c.changeKind, c.text, c.start, c.changeTime]),
      [
        [CHANGE_KIND.paragraph, '', 2, '2019-08-06T12:34:13+00:00'],
        [CHANGE_KIND.inserted, '%%FIELD1%%', 2, '2019-08-06T12:34:13+00:00'],
        [CHANGE_KIND.inserted, ' world.', 21, '2019-08-06T12:34:13+00:00'],
        [CHANGE_KIND.inserted, '%%FIELD2%% -', 29, '2019-08-06T12:34:13+00:00'],
      ],
      'an insertion over a paragraph mark marks the mark inserted too (listed with its paragraph, whose properties hold it), as Word does',
    );
    const accepted = removeTrackedChange(docx, 2, true);
    assert.equal(listTrackedChanges(accepted).length, 3);
    assert.doesNotThrow(() => readTx(txWithChanges([{ start: 2, end: 12 }], false)), 'flag 0x8000 is not needed');
    assert.throws(() => readTx(txWithChanges([{ start: 2, end: 12, kind: 2 }])), /tracked changes of kind 2 \(not inserted text\)/);
    assert.throws(() => readTx(txWithChanges([{ start: 12, end: 12 }])), /damaged or truncated \(a tracked change\)/);
    assert.throws(() => readTx(txWithChanges([{ start: 2, end: 99 }])), /damaged or truncated \(a tracked change\)/);
    assert.throws(() => readTx(txWithChanges([{ start: 2, end: 12, time: new Date('1700-01-01') }])), /a tracked change time/);
  });

  it("reads each paragraph format's tab stops and writes them: one regular grid as the default stop, else per paragraph", () => {
    const grid = (step: number) => Array.from({ length: 14 }, (_, i) => (i + 1) * step);
    const invoice = readTx(fixture('test_template.tx'));
    assert.deepEqual(invoice.paraFormats[0]!.tabs, grid(720), 'every half inch');
    assert.deepEqual(invoice.paraFormats[4]!.tabs, [], 'all fourteen unused (32767)');
    assert.deepEqual(invoice.paraFormats[11]!.tabs, grid(1134), 'every 2 cm');
    const invoiceDocx = txToDocx(invoice);
    assert.match(partXml(invoiceDocx), /<w:tabs><w:tab w:val="left" w:pos="720"\/><w:tab w:val="left" w:pos="1440"\/>/);
    assert.match(partXml(invoiceDocx, 'word/settings.xml'), /<w:defaultTabStop w:val="1134"\/>/);
    assert.deepEqual(schemaOrderProblemsOf(invoiceDocx), []);
    // The twin has one grid (every 2 cm): said once, as the default stop.
    const twinDocx = txToDocx(readTx(twin));
    assert.doesNotMatch(partXml(twinDocx), /<w:tabs>/);
    assert.match(partXml(twinDocx, 'word/settings.xml'), /<w:defaultTabStop w:val="1134"\/>/);
    // A stop of another kind than left is refused by name; stops out of order are damage.
    const block = 0x12 + 2 * twin.readUInt16LE(0x0e) + 6;
    const counts = Array.from({ length: 9 }, (_, i) => twin.readUInt16LE(block + 2 * i));
    const firstTab = block + 18 + 20 * counts[0]! + 50 * counts[1]! + 6 * counts[2]! + 20;
    const kind = Buffer.from(twin);
    kind.writeUInt8(2, firstTab);
    assert.throws(() => readTx(kind), /tab stops of kind 2 at \d+ \(not left, decimal or at the right margin\)/);
    const order = Buffer.from(twin);
    order.writeUInt16LE(5000, firstTab + 1);
    assert.throws(() => readTx(order), /damaged or truncated \(the tab stops\)/);
  });

  it('reads the SDK invoice: nested tables, fonts, alignment, switches, the item block, the text box of the footer', () => {
    const doc = readTx(fixture('test_template.tx'));
    assert.equal(doc.tables.length, 6, "two tables and four nested in the first one's cells");
    assert.deepEqual(
      doc.tables.map((t) => [t.rows, t.columns]),
      [
        [3, 2],
        [6, 6],
        [4, 2],
        [3, 2],
        [3, 2],
        [3, 2],
      ],
    );
    assert.deepEqual(said(doc.marks), [{ name: 'txmb_item', start: 607, end: 690 }]);
    assert.deepEqual([...new Set(doc.charFormats.map((f) => f.face))], ['Arial Black', 'Times New Roman', 'Arial']);
    assert.deepEqual(doc.page.margins, [1440, 1080, 1440, 2160]);
    // Prices right-aligned, the narrow Qty. and Item# columns centred, header cells kept with the next row.
    const alignmentOf = (text: string) => {
      const paragraph = doc.paragraphs.find((p) => doc.text.slice(p.start, p.end).startsWith(text))!;
      const format = doc.paraFormats[paragraph.format]!;
      return [format.alignment, format.keepNext];
    };
    assert.deepEqual(alignmentOf('«item_total»'), ['right', false]);
    assert.deepEqual(alignmentOf('Qty.'), ['center', true]);
    assert.deepEqual(alignmentOf('«qty»'), ['center', false]);
    assert.deepEqual(alignmentOf('Description'), ['left', true]);
    const instructions = [...doc.fields.values()].map((f) => f.instruction.join(' '));
    assert.ok(instructions.includes('DATE \\@ "dd.MM.yyyy"'));
    assert.ok(instructions.includes('MERGEFIELD item_unitprice \\# "$#,###.00"'));

    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    const { info } = checkedCompile(docx);
    assert.deepEqual(
      info.mergeBlocks.map((b) => [b.name, b.mergeFields.map((f) => f.name)]),
      [['item', ['qty', 'item_no', 'item_description', 'item_unitprice', 'item_discount', 'item_total']]],
    );
    assert.ok(
      info.mergeFields.some((f) => f.name === 'billto_name'),
      'fields in nested tables',
    );
    assert.equal(info.mergeFields.find((f) => f.name === 'invoice_no')?.textBefore, '#');
    // Nested tables sit in their cells, each cell ending with a paragraph.
    assert.match(partXml(docx), /<w:tc><w:tcPr>(?:(?!<\/w:tc>).)*<w:tbl>/);
    assert.doesNotMatch(partXml(docx), /<\/w:tbl><\/w:tc>/);
    // Section flags 0x0C: a footer (an empty text box and nothing else) and the first page's own
    // footer (0x08), three paragraphs of address fields: the address on the first page only.
    assert.equal(doc.footer?.text, '');
    assert.equal(doc.header, undefined);
    assert.equal(doc.firstFooter?.paragraphs.length, 3);
    assert.match(
      doc.firstFooter!.text,
      /^«YOURCOMPANY_COMPANYNAME»\n«yourcompany_zip» «yourcompany_city», .*\np\. «yourcompany_phone»\u00a0\|\u00a0f\. «yourcompany_fax»/,
    );
    assert.deepEqual([...doc.firstFooter!.fields.values()].map((f) => f.instruction.join(' ')).slice(0, 2), [
      'MERGEFIELD yourcompany_companyname \\* Upper',
      'MERGEFIELD yourcompany_zip',
    ]);
    assert.match(
      partXml(docx),
      /<w:footerReference w:type="default" r:id="rId10"\/><w:footerReference w:type="first" r:id="rId11"\/>.*<w:titlePg\/><\/w:sectPr>/,
    );
    assert.doesNotMatch(partXml(docx, 'word/footer1.xml'), /MERGEFIELD/);
    assert.match(partXml(docx, 'word/footer2.xml'), /MERGEFIELD yourcompany_email/);
  });

  it('takes a text box only in the one shape studied: the only content of a footer, with the settings seen', () => {
    const invoice = fixture('test_template.tx');
    const record = invoice.indexOf(Buffer.from('0100000000000780', 'hex'));
    assert.ok(record > 0);
    const changed = (at: number, value: number, bytes = 2) => {
      const copy = Buffer.from(invoice);
      if (bytes === 2) copy.writeUInt16LE(value, at);
      else copy.writeUInt32LE(value, at);
      return copy;
    };
    // Two frames, an unknown frame kind, other settings (say a border): refused by name.
    assert.throws(() => readTx(changed(record, 2)), /text frames and text boxes .* except as the only content of a footer/);
    assert.throws(() => readTx(changed(record + 6, 0x8008)), /text boxes of this kind/);
    assert.throws(() => readTx(changed(record + 2 + 10 + 16 + 24, 0xfe)), /text boxes of this kind/);
    // The section must announce the box's text stream, and the embedded document must add up.
    const sectionFlags = invoice.indexOf(Buffer.from('320000000c40', 'hex')) + 4;
    assert.throws(() => readTx(changed(sectionFlags, 0x4004)), /damaged or truncated/);
    assert.throws(() => readTx(changed(record + 2 + 56, 0x2000, 4)), /damaged or truncated/);
    // A frame table the body's flags announce and the file lacks is damage.
    assert.throws(() => readTx(withFlags(0x179f | 0x0040)), /damaged or truncated \(a text frame\)/);
  });

  it('reads a header and a footer: text streams in the section, as TX writes them', () => {
    // No public file with a licence has one, so one is made from the SDK's files: the
    // find-and-replace document's stream as a header stream (which has no text-section record)
    // and put into the twin's section, as the studied samples (docs/tx-format.md) carry them.
    const source = fixture('test_find_and_replace.tx');
    const textLength = source.readUInt16LE(0x0e);
    const streamEnd = 0x12 + 2 * textLength + 6 + source.readUInt32LE(0x12 + 2 * textLength + 2);
    const stream = Buffer.from(source.subarray(0x0e, streamEnd));
    const blockAt = 4 + 2 * textLength + 6;
    const record = blockAt + 180 + 16 + 80 + 4 + 32 + 18 * 6;
    assert.equal(stream.readUInt32LE(record + 6), textLength + 1, 'the text-section record');
    const headerStream = Buffer.concat([stream.subarray(0, record), stream.subarray(record + 24)]);
    headerStream.writeUInt32LE(stream.readUInt32LE(blockAt - 4) - 24, blockAt - 4);
    headerStream.writeUInt16LE(0x071f, blockAt + 16);

    const sectionAt = twin.length - 122 - 2;
    const section = twin.subarray(sectionAt + 6);
    const flagged = Buffer.from(section.subarray(0, 46));
    flagged.writeUInt16LE(0x4005, 4);
    const body = Buffer.concat([flagged, headerStream, headerStream, section.subarray(46)]);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length + 4);
    const withHeader = Buffer.concat([twin.subarray(0, sectionAt + 2), length, body]);

    const doc = readTx(withHeader);
    assert.equal(doc.header?.text, '\n\n%%FIELD1%% -- hello world.\n%%FIELD2%% -- hello world again.\n');
    assert.equal(doc.footer?.text, doc.header?.text);
    assert.deepEqual([doc.page.headerDistance, doc.page.footerDistance], [567, 567]);
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    assert.match(partXml(docx, 'word/header1.xml'), /%%FIELD1%% -- hello world\./);
    assert.match(partXml(docx, 'word/footer1.xml'), /%%FIELD2%% -- hello world again\./);
    assert.match(
      partXml(docx),
      /<w:sectPr><w:headerReference w:type="default" r:id="rId10"\/><w:footerReference w:type="default" r:id="rId11"\/>/,
    );
    // A stream whose parts do not add up is damage, not a guess.
    const cut = Buffer.from(withHeader);
    cut.writeUInt32LE(body.length + 6, sectionAt + 2);
    assert.throws(() => readTx(cut), TxError);
  });

  it("reads the first page's own header and footer (section flags 0x02 and 0x08) as Word's first-page header and footer", () => {
    const all = readTx(txWithStories(0x0f));
    assert.deepEqual(
      [all.header, all.firstHeader, all.footer, all.firstFooter].map((story) => story?.text.slice(0, 4)),
      ['\n\nH%', '\n\nh%', '\n\nF%', '\n\nf%'],
    );
    const docx = txToDocx(all);
    assert.deepEqual(wordProblems(docx), []);
    assert.match(
      partXml(docx),
      /<w:sectPr><w:headerReference w:type="default" r:id="rId10"\/><w:headerReference w:type="first" r:id="rId11"\/><w:footerReference w:type="default" r:id="rId12"\/><w:footerReference w:type="first" r:id="rId13"\/>.*<w:titlePg\/><\/w:sectPr>/,
    );
    assert.match(partXml(docx, 'word/header2.xml'), /h%FIELD1%%/);
    assert.match(partXml(docx, 'word/footer2.xml'), /f%FIELD1%%/);
    // Written back as it was; and through DOCX back to TX, the same stories.
    assert.ok(writeTx(all).equals(txWithStories(0x0f)));
    const again = readTx(writeTx(docxToTx(docx)));
    assert.deepEqual(
      [again.header, again.firstHeader, again.footer, again.firstFooter].map((story) => story?.text),
      [all.header, all.firstHeader, all.footer, all.firstFooter].map((story) => story?.text),
    );
    // Only a first page's footer: no default footer, none made up.
    const first = readTx(txWithStories(0x08));
    assert.equal(first.footer, undefined);
    assert.match(partXml(txToDocx(first)), /<w:footerReference w:type="first" r:id="rId10"\/>.*<w:titlePg\/>/);
    assert.throws(() => readTx(txWithStories(0x10)), /headers and footers of this kind \(0x4010\)/);
  });

  it("reads page number and page count fields (runs of no text) as Word's PAGE and NUMPAGES", () => {
    for (const [page, instruction] of [
      ['number', 'PAGE'],
      ['count', 'NUMPAGES'],
    ] as const) {
      const tx = txWithPageField(page);
      const doc = readTx(tx);
      assert.equal(doc.text, readTx(fixture('test_find_and_replace.tx')).text, 'no text of its own');
      assert.deepEqual(said(doc.fields.get(1)), { instruction: [], page });
      const xml = partXml(txToDocx(doc));
      assert.match(
        xml,
        new RegExp(
          `FIELD1%%</w:t></w:r>.*<w:instrText xml:space="preserve"> ${instruction} </w:instrText>.*<w:t xml:space="preserve"> -- hello`,
        ),
      );
      assert.deepEqual(wordProblems(txToDocx(doc)), []);
      assert.ok(writeTx(doc).equals(tx), `${page}: written back as it was`);
    }
    // A run of no text that is not such a field is damage.
    const stray = txWithPageField('number');
    const block = 0x12 + 2 * stray.readUInt16LE(0x0e) + 6;
    stray.writeUInt16LE(0x079a, block + 18 + 20 + 14);
    assert.throws(() => readTx(stray), /damaged or truncated/);
  });

  it('reads merge blocks marked by BlockStart_ and BlockEnd_ fields (older TX) as txmb_ blocks', () => {
    const tx = txWithBlockFields('item', 2, 28);
    const doc = readTx(tx);
    assert.equal(doc.text, readTx(fixture('test_find_and_replace.tx')).text, 'no text of their own');
    assert.deepEqual(
      [...doc.fields.values()].map((field) => field.block),
      ['BlockStart_item', 'BlockEnd_item'],
    );
    const docx = txToDocx(doc);
    assert.match(
      partXml(docx),
      /<w:bookmarkStart w:id="(\d+)" w:name="txmb_item"\/><w:r>.*%%FIELD1%% -- hello world\..*<w:bookmarkEnd w:id="\1"\/>/,
    );
    assert.deepEqual(wordProblems(docx), []);
    assert.deepEqual(
      checkedCompile(docx).info.mergeBlocks.map((block) => block.name),
      ['item'],
    );
    assert.ok(writeTx(doc).equals(tx), 'written back as it was');
    // A start without its end is no block; a field of this type with another name is refused by name.
    assert.doesNotMatch(partXml(txToDocx(readTx(txWithBlockFields('item', 2, 2)))), /txmb_item/);
  });

  it('reads right-aligned tab stops (kind 5; at 0: the right margin) and lines kept together (flag 0x01)', () => {
    const right = readTx(txWithParagraphFormat({ tab: { kind: 5, position: 0 } }));
    assert.deepEqual(right.paraFormats[0]!.rightTabs, [0]);
    const xml = partXml(txToDocx(right));
    const textWidth = right.page.width - right.page.margins[0] - right.page.margins[2];
    assert.match(xml, new RegExp(`<w:tab w:val="right" w:pos="${textWidth}"/>`));
    assert.ok(writeTx(right).equals(txWithParagraphFormat({ tab: { kind: 5, position: 0 } })));
    assert.deepEqual(readTx(writeTx(docxToTx(txToDocx(right)))).paraFormats[0]!.rightTabs, [0], 'back at the margin');
    const together = readTx(txWithParagraphFormat({ flags: 0x4029 }));
    assert.deepEqual(
      [together.paraFormats[0]!.alignment, together.paraFormats[0]!.keepNext, together.paraFormats[0]!.keepLines],
      ['right', true, true],
    );
    assert.match(partXml(txToDocx(together)), /<w:pPr><w:keepNext\/><w:keepLines\/>/);
    assert.throws(() => readTx(txWithParagraphFormat({ tab: { kind: 3, position: 720 } })), /tab stops of kind 3/);
    assert.throws(() => readTx(txWithParagraphFormat({ flags: 0x0022 })), /paragraph settings .* \(0x22\)/);
    // Indents: left, right (the MailMerge.WebAPI sample's right-aligned total has a right one), and
    // the first line's from the left one, signed (the NDA samples' clauses: 1440 left, 720 hanging).
    const cases: [[number, number, number], RegExp, { left: number; right: number; firstLine: number }][] = [
      [[720, 316, 0], /<w:spacing [^>]*\/><w:ind w:left="720" w:right="316"\/>/, { left: 720, right: 316, firstLine: 0 }],
      [[1440, 0, 0x10000 - 720], /<w:ind w:left="1440" w:right="0" w:hanging="720"\/>/, { left: 1440, right: 0, firstLine: -720 }],
      [[0, 0, 1440], /<w:ind w:left="0" w:right="0" w:firstLine="1440"\/>/, { left: 0, right: 0, firstLine: 1440 }],
    ];
    for (const [indents, xml, indent] of cases) {
      const tx = txWithParagraphFormat({ indents });
      const indented = readTx(tx);
      assert.deepEqual(indented.paraFormats[0]!.indent, indent);
      const docx = txToDocx(indented);
      assert.match(partXml(docx), xml);
      assert.deepEqual(wordProblems(docx), []);
      assert.ok(writeTx(indented).equals(tx), 'written back as it was');
      assert.deepEqual(readTx(writeTx(docxToTx(docx))).paraFormats[0]!.indent, indent, 'and back from DOCX');
    }
    assert.throws(() => readTx(txWithParagraphFormat({ indents: [0x8000, 0, 0] })), /damaged/);
  });

  it('reads hyperlinks as Word hyperlinks to external addresses, and refuses addresses that are not web or mail', () => {
    const doc = readTx(twinWithLink('https://example.com/order?id=7&x=1'));
    assert.deepEqual(said(doc.fields.get(1)), { instruction: [], link: 'https://example.com/order?id=7&x=1' });
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    assert.match(partXml(docx), /<w:hyperlink r:id="rIdL1" w:history="1"><w:r>.*?«qty»<\/w:t><\/w:r><\/w:hyperlink>/);
    assert.match(
      partXml(docx, 'word/_rels/document.xml.rels'),
      /Id="rIdL1" Type="[^"]+\/hyperlink" Target="https:\/\/example.com\/order\?id=7&amp;x=1" TargetMode="External"/,
    );
    // The merge still sees the other fields.
    assert.deepEqual(
      checkedCompile(docx).info.mergeBlocks[0]!.mergeFields.map((f) => f.name),
      ['item_description', 'item_discount', 'item_no', 'item_total', 'item_unitprice'],
    );
    assert.throws(
      () => readTx(twinWithLink('file:///etc/passwd')),
      /hyperlinks to "file:" addresses or rooted paths .* only http, https, mailto, ftp and paths relative to the document/,
    );
    for (const rooted of ['/etc/passwd', '\\\\server\\share\\a.tx', 'C:\\a.tx'])
      assert.throws(() => readTx(twinWithLink(rooted)), /rooted paths/, rooted);
  });

  it('reads links to files beside the document (TX Text Control Words) as relative Word hyperlinks, never followed here', () => {
    const doc = readTx(twinWithLink('Files/Linked Document.tx'));
    assert.deepEqual(said(doc.fields.get(1)), { instruction: [], link: 'Files/Linked Document.tx' });
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    assert.match(
      partXml(docx, 'word/_rels/document.xml.rels'),
      /Id="rIdL1" Type="[^"]+\/hyperlink" Target="Files\/Linked%20Document.tx" TargetMode="External"/,
    );
    // Back to TX as TX keeps it, spaces and all.
    assert.deepEqual(said(readTx(writeTx(docxToTx(docx))).fields.get(1)), { instruction: [], link: 'Files/Linked Document.tx' });
  });

  it("reads TX Text Control Words' link targets and links to places: bookmarks of no length and anchored hyperlinks", () => {
    const original = fixture('test_find_and_replace.tx');
    const words = txWithTargets([
      { position: 0, name: 'top' },
      { position: 14, name: 'page_03' },
    ]);
    const doc = readTx(words);
    assert.deepEqual(said(doc.targets), [
      { name: 'top', position: 0 },
      { name: 'page_03', position: 14 },
    ]);
    assert.equal(readTx(words).text, readTx(original).text);
    const xml = partXml(txToDocx(doc));
    assert.match(xml, /<w:p><w:pPr>.*?<\/w:pPr><w:bookmarkStart w:id="(\d+)" w:name="top"\/><w:bookmarkEnd w:id="\1"\/>/);
    assert.match(xml, /<w:bookmarkStart w:id="(\d+)" w:name="page_03"\/><w:bookmarkEnd w:id="\1"\/>/);
    assert.deepEqual(wordProblems(txToDocx(doc)), []);
    // An empty table (Linked Document.tx has one) reads as no targets.
    assert.deepEqual(readTx(txWithTargets([])).targets, []);
    // A target past the text, or a table whose length is not its count's, is damage.
    assert.throws(() => readTx(txWithTargets([{ position: 5000, name: 'x' }])), /damaged or truncated \(a link target\)/);
    const cut = txWithTargets([{ position: 1, name: 'x' }]);
    const block = 0x12 + 2 * cut.readUInt16LE(0x0e) + 6;
    cut.writeUInt16LE(50, block + cut.readUInt32LE(block - 4) - 94 - 34 - 2);
    assert.throws(() => readTx(cut), /damaged or truncated \(a link target runs past the end of its part\)/);

    // A link to a place: field kind 0x0210 with the target's name as property 2; here to the twin's block.
    const place = readTx(twinWithLink('txmb_item', 'place'));
    assert.deepEqual(said(place.fields.get(1)), { instruction: [], target: 'txmb_item' });
    const docx = txToDocx(place);
    assert.match(partXml(docx), /<w:hyperlink w:anchor="txmb_item" w:history="1"><w:r>.*?«qty»<\/w:t><\/w:r><\/w:hyperlink>/);
    assert.deepEqual(wordProblems(docx), []);
    assert.deepEqual(said(readTx(writeTx(docxToTx(docx))).fields.get(1)), { instruction: [], target: 'txmb_item' });
  });

  it('reads a picture in line with the text: a Word drawing at its own size times its scaling, the image as TX embeds it', () => {
    const image = png(30, 15);
    const doc = readTx(txWithPicture(image, 2, { width: 1440, height: 720, scaleX: 50, scaleY: 200 }));
    assert.equal(doc.pictures?.length, 1);
    assert.deepEqual(said(doc.pictures![0]), {
      type: 'png',
      data: `<${image.length} bytes>`,
      width: 1440,
      height: 720,
      scaleX: 50,
      scaleY: 200,
    });
    assert.ok(Buffer.from(doc.pictures![0]!.data).equals(image));
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    const xml = partXml(docx);
    // 1440 twips at 50 % is half an inch (457200 EMU); 720 at 200 % one inch.
    assert.match(xml, /<w:r><w:rPr>.*?<\/w:rPr><w:t xml:space="preserve">\n?<\/w:t>|<wp:extent cx="457200" cy="914400"\/>/);
    assert.match(
      xml,
      /<wp:inline [^>]*><wp:extent cx="457200" cy="914400"\/><wp:docPr id="1" name="Picture 1"\/>.*<a:blip r:embed="rIdP1"\/>/,
    );
    assert.match(partXml(docx, 'word/_rels/document.xml.rels'), /Id="rIdP1" Type="[^"]+\/image" Target="media\/image1.png"/);
    assert.ok(Buffer.from(unzipSync(docx)['word/media/image1.png']!).equals(image));
    assert.match(partXml(docx, '[Content_Types].xml'), /<Default Extension="png" ContentType="image\/png"\/>/);
    // The text around it stays.
    assert.equal(doc.text.replace('\u0001', '%'), readTx(fixture('test_find_and_replace.tx')).text);
    // What it is not: a count the text does not have, bytes that are not the type named, a type not read.
    const counted = txWithPicture(image);
    counted.writeUInt16LE(2, 0x12 + 2 * counted.readUInt16LE(0x0e) + 6 + 8);
    assert.throws(() => readTx(counted), /damaged or truncated \(the pictures\)/);
    assert.throws(() => readTx(txWithPicture(Buffer.from('not a png at all'))), /damaged or truncated \(a png picture\)/);
    const tiff = txWithPicture(image);
    tiff.write('tif\0', tiff.indexOf(Buffer.from('png\0', 'latin1')), 'latin1');
    assert.throws(() => readTx(tiff), /pictures of type "tif" in TX documents are not supported yet/);
  });

  it("reads an SVG picture (the Financial sample's logo) as Word keeps one: a PNG drawn from it, the SVG in svgBlip; and back", async () => {
    const svg = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a logo -->\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100">' +
        '<rect width="200" height="100" fill="#ea1183"/><circle cx="100" cy="50" r="40" fill="#0d3964"/></svg>',
    );
    // 2880 x 1440 twips at 50 %: 1 x 0.5 inch, drawn at twice 96 dpi.
    const source = txWithPicture(svg, 2, { width: 2880, height: 1440, scaleX: 50, scaleY: 50 }, 'svg');
    const doc = readTx(source);
    assert.equal(doc.pictures![0]!.type, 'svg');
    assert.ok(Buffer.from(doc.pictures![0]!.data).equals(svg));
    assert.ok(writeTx(doc).equals(source), 'written back byte for byte');
    const rasterise = await loadSvgRasteriser();
    const word = txToDocx(doc, rasterise);
    assert.deepEqual(wordProblems(word), []);
    const xml = partXml(word);
    const rels = partXml(word, 'word/_rels/document.xml.rels');
    const target = (id: string) => unzipSync(word)[`word/${new RegExp(`Id="${id}"[^>]*Target="([^"]+)"`).exec(rels)![1]!}`]!;
    const main = Buffer.from(target(/<a:blip r:embed="([^"]+)"/.exec(xml)![1]!));
    assert.equal(main.subarray(1, 4).toString(), 'PNG');
    assert.deepEqual([main.readUInt32BE(16), main.readUInt32BE(20)], [192, 96], 'twice the displayed size');
    assert.ok(Buffer.from(target(/<asvg:svgBlip [^>]*r:embed="([^"]+)"/.exec(xml)![1]!)).equals(svg), 'the SVG as TX has it');
    assert.match(partXml(word, '[Content_Types].xml'), /<Default Extension="svg" ContentType="image\/svg\+xml"\/>/);
    // Back to TX: the SVG alone, as TX keeps it; and to the same DOCX again.
    const again = readTx(writeTx(docxToTx(word)));
    assert.equal(again.pictures![0]!.type, 'svg');
    assert.ok(Buffer.from(again.pictures![0]!.data).equals(svg));
    assert.ok(txToDocx(again, rasterise).equals(word));
    // Without a rasteriser (the office's own reading) the SVG is the main picture.
    assert.doesNotMatch(partXml(txToDocx(doc)), /svgBlip/);
    // Entities are how XML bombs and file reads come in: a DOCTYPE is refused by name, never parsed.
    const withDoctype = Buffer.from(svg.toString().replace('<!-- a logo -->', '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'));
    assert.throws(() => readTx(txWithPicture(withDoctype, 2, undefined, 'svg')), /SVG pictures with a DOCTYPE/);
    assert.throws(
      () => readTx(txWithPicture(Buffer.from('<html><body>not an svg picture at all</body></html>'), 2, undefined, 'svg')),
      /a svg picture/,
    );
    // An SVG that cannot be drawn is a 400, not a blank.
    const broken = readTx(
      txWithPicture(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g><rect'), 2, undefined, 'svg'),
    );
    assert.throws(
      () => txToDocx(broken, rasterise),
      (error: unknown) => error instanceof InputError && /cannot be drawn/.test((error as Error).message),
    );
  });

  it('reads signature boxes (object 0x8018) as the picture they show, floating from the text area or their paragraph; and back', () => {
    const image = png(40, 12, [240, 240, 240]);
    const source = txWithSignatureBox(30, { kind: 2, x: -4, y: 12, width: 3130, height: 1002 }, image);
    const doc = readTx(source);
    assert.equal(doc.text, readTx(fixture('test_find_and_replace.tx')).text, 'the body is unchanged');
    const [box] = doc.frames!;
    assert.ok(box && 'signature' in box);
    assert.deepEqual([box.anchor, box.x, box.y, box.width, box.height, box.placement], [29, -4, 12, 3130, 1002, 'paragraph']);
    assert.ok(Buffer.from(box.signature.data).equals(image));
    assert.ok(writeTx(doc).equals(source), 'written back byte for byte');
    const word = txToDocx(doc);
    assert.deepEqual(wordProblems(word), []);
    const xml = partXml(word);
    // Floating where TX places it: from the column and the paragraph (kind 2), text above and below it.
    assert.match(
      xml,
      /<w:p><w:pPr>.*?<\/w:pPr><w:r><w:drawing><wp:anchor [^>]*><wp:simplePos x="0" y="0"\/><wp:positionH relativeFrom="column"><wp:posOffset>-2540<\/wp:posOffset><\/wp:positionH><wp:positionV relativeFrom="paragraph"><wp:posOffset>7620<\/wp:posOffset><\/wp:positionV><wp:extent cx="1987550" cy="636270"\/><wp:effectExtent l="0" t="0" r="0" b="0"\/><wp:wrapTopAndBottom\/><wp:docPr id="\d+" name="TX Signature Box \d+"\/>/,
    );
    // Kind 1: from the text area's corner.
    const fromMargin = readTx(txWithSignatureBox(30, { kind: 1, x: 21, y: 513, width: 5295, height: 2145 }, image));
    assert.match(
      partXml(txToDocx(fromMargin)),
      /<wp:positionH relativeFrom="margin"><wp:posOffset>13335<\/wp:posOffset>.*<wp:positionV relativeFrom="margin">/,
    );
    // Back from Word: the same boxes, and the same DOCX again.
    for (const tx of [doc, fromMargin]) {
      const docx = txToDocx(tx);
      assert.ok(txToDocx(readTx(writeTx(docxToTx(docx)))).equals(docx));
    }
    assert.match(txCarriedOver(doc).join(' '), /a signature box \(TX Text Control's e-signing fields\)/);
    // What is not read: another placement, a scaled box, a picture of a length that does not add up.
    assert.throws(
      () => readTx(txWithSignatureBox(30, { kind: 3, x: 0, y: 0, width: 100, height: 100 }, image)),
      /signature boxes placed this way \(kind 3\)/,
    );
    const scaled = txWithSignatureBox(30, { kind: 2, x: 0, y: 0, width: 100, height: 100 }, image);
    scaled.writeUInt16LE(50, scaled.indexOf(Buffer.from([0x18, 0x80])) + 22);
    assert.throws(() => readTx(scaled), /scaled signature boxes/);
    const short = txWithSignatureBox(30, { kind: 2, x: 0, y: 0, width: 100, height: 100 }, image);
    short.writeUInt32LE(27, short.indexOf(Buffer.from('png\0', 'latin1')) - 16);
    assert.throws(() => readTx(short), /damaged or truncated \(a signature box picture\)/);
  });

  it('reads a barcode (object 0x8010) and a signature box in line (0x8018) as the pictures TX drew of them, and back', () => {
    const image = png(30, 30, [0, 0, 0]);
    const source = txWithBarcode(image, 'AAAA');
    const doc = readTx(source);
    const [barcode] = doc.pictures!;
    assert.deepEqual([barcode!.type, barcode!.width, barcode!.height], ['png', 2880, 2880]);
    assert.ok(Buffer.from(barcode!.data).equals(image));
    assert.match(barcode!.barcode!.xml, /<BarcodeType>QRCode<\/BarcodeType>/);
    assert.ok(writeTx(doc).equals(source), 'written back byte for byte');
    assert.deepEqual(said(readTx(writeTx(bare(doc)))), said(doc), 'and from the model alone');
    const word = txToDocx(doc);
    assert.deepEqual(wordProblems(word), []);
    assert.ok(Buffer.from(unzipSync(word)['word/media/image1.png']!).equals(image), 'the picture TX drew, in line');
    assert.match(txCarriedOver(doc).join(' '), /Barcodes \(TX Text Control: QRCode "AAAA"\) are carried over as the picture TX last drew/);
    // A signature box in line: a picture entry of object 0x8018, kind 0.
    const inline = txWithPicture(image, 2, { width: 1440, height: 720, scaleX: 100, scaleY: 100 });
    const entry = inline.indexOf(Buffer.from('png\0', 'latin1')) - 40;
    inline.writeUInt16LE(0x8018, entry);
    inline.writeUInt16LE(0, entry + 4);
    const boxed = readTx(inline);
    assert.equal(boxed.pictures![0]!.signatureBox, true);
    assert.ok(writeTx(boxed).equals(inline));
    assert.ok(writeTx(bare(boxed)).equals(writeTx(bare(readTx(writeTx(bare(boxed)))))), 'stable from the model alone');
    assert.equal(readTx(writeTx(bare(boxed))).pictures![0]!.signatureBox, true);
    assert.match(txCarriedOver(boxed).join(' '), /a signature box/);
    // Other objects in the text, and a barcode whose XML is not TX's, are named.
    const other = Buffer.from(inline);
    other.writeUInt16LE(0x8011, entry);
    assert.throws(() => readTx(other), /objects of kind 0x8011 in the text of TX documents are not supported yet/);
    const notXml = txWithBarcode(image);
    notXml.write('<html', notXml.indexOf('<?xml'), 'latin1');
    assert.throws(() => readTx(notXml), /damaged or truncated \(a barcode\)/);
    // The drawing layer (the Portal sample): objects kept after the document, placed by the header.
    const drawn = Buffer.from(twin);
    drawn.writeUInt16LE(2, 8);
    drawn.writeUInt32LE(drawn.length - 100, 10);
    assert.throws(() => readTx(drawn), /shapes and drawings \(TX Text Control's drawing layer\) in TX documents are not supported yet/);
  });

  it("reads a picture linked to a file (the InsuranceClaim sample's logo) as a blank of its size, the file never read", () => {
    const source = txWithPicture(Buffer.from('kept as TX wrote it'), 2, undefined, 'svg', 'C:\\Users\\someone\\logo.svg');
    const doc = readTx(source);
    assert.equal(doc.pictures![0]!.linked, 'C:\\Users\\someone\\logo.svg');
    assert.ok(writeTx(doc).equals(source), 'written back byte for byte');
    assert.ok(readTx(writeTx(bare(doc))).pictures![0]!.linked === doc.pictures![0]!.linked, 'and from the model alone');
    const word = txToDocx(doc);
    assert.ok(Buffer.from(unzipSync(word)['word/media/image1.png']!).equals(BLANK_PNG), 'a transparent blank, no file read');
    assert.match(partXml(word), /<wp:extent cx="457200" cy="228600"\/>/, 'at its size');
    for (const [name, part] of Object.entries(unzipSync(word)))
      assert.ok(!Buffer.from(part).includes('logo.svg'), `${name} names no file for the office to follow`);
    assert.match(txCarriedOver(doc).join(' '), /Pictures linked to files \("C:\\Users\\someone\\logo\.svg"\) are not read/);
    const cut = txWithPicture(Buffer.from('x'), 2, undefined, 'svg', 'C:\\a-long-path.svg');
    cut.writeUInt32LE(200, cut.indexOf(Buffer.from('svg\0', 'latin1')) - 4);
    assert.throws(() => readTx(cut), /damaged or truncated \(a linked picture\)/);
  });

  it("reads a text box in line with the text (the e-signing samples' signature boxes) as a Word text box, and back", () => {
    const tx = txWithTextBox(2, { width: 3015, height: 1500 });
    const doc = readTx(tx);
    const box = doc.pictures![0]!;
    assert.deepEqual([box.type, box.width, box.height], ['box', 3015, 1500]);
    assert.equal(box.box!.story.text, readTx(fixture('test_find_and_replace.tx')).text, 'its text, a story of its own');
    assert.ok(writeTx(doc).equals(tx), 'written back as it was');
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    const xml = partXml(docx);
    // 3015 x 1500 twips in EMU; its text in the box, not in the body.
    assert.match(
      xml,
      /<wp:inline [^>]*><wp:extent cx="1914525" cy="952500"\/><wp:docPr id="1" name="Text Box 1"\/>.*<a:graphicData uri="http:\/\/schemas.microsoft.com\/office\/word\/2010\/wordprocessingShape"><wps:wsp [^>]*><wps:cNvSpPr txBox="1"\/>.*<w:txbxContent>.*%%FIELD1%% -- hello world\..*<\/w:txbxContent>/,
    );
    // The box stands for the body's third character ("%"): the field's name once in the box, once after it.
    assert.equal(xml.match(/FIELD1%%/g)?.length, 2, 'once in the body, once in the box');
    // A merge field inside the box is merged like any other (the merge reads w:txbxContent).
    const back = readTx(writeTx(docxToTx(docx)));
    assert.equal(back.pictures![0]!.box!.story.text, box.box!.story.text, 'and back from DOCX');
    assert.deepEqual([back.pictures![0]!.width, back.pictures![0]!.height], [3015, 1500]);
    // Word's own form: the shape in mc:AlternateContent with a VML fallback.
    const alternate = OoxmlPackage.read(docx);
    alternate.setText(
      'word/document.xml',
      xml.replace(
        /<w:drawing>(.*?)<\/w:drawing>/,
        '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:drawing>$1</w:drawing></mc:Choice><mc:Fallback><w:pict/></mc:Fallback></mc:AlternateContent>',
      ),
    );
    assert.equal(docxToTx(alternate.toBuffer()).pictures![0]!.box!.story.text, box.box!.story.text);
    // What it is not: a scaled box, a box whose document is not a TX document.
    const scaled = Buffer.from(tx);
    const record = scaled.indexOf(Buffer.from([0x07, 0x80, 0, 0, 0, 0, 100, 0, 100, 0]));
    scaled.writeUInt16LE(50, record + 6);
    assert.throws(() => readTx(scaled), /text boxes of this kind/);
    const broken = Buffer.from(tx);
    broken[record + 20] = 0;
    assert.throws(() => readTx(broken), /damaged or truncated \(a text box document\)/);
  });

  it('reads document targets of other names (type 4) as bookmarks, links of kind 0x0100, and runs of no text and no field', () => {
    const tx = txWithTargetField('_DV_M52', 14);
    const doc = readTx(tx);
    assert.deepEqual(
      [...doc.fields.values()].map((field) => field.block),
      ['_DV_M52'],
    );
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    assert.match(partXml(docx), /<w:bookmarkStart w:id="(\d+)" w:name="_DV_M52"\/><w:bookmarkEnd w:id="\1"\/>/);
    assert.ok(writeTx(doc).equals(tx), 'written back as it was');
    // A name Word would not take as a bookmark's is made one it takes.
    assert.match(partXml(txToDocx(readTx(txWithTargetField('1st place-holder', 14)))), /w:name="_1st_place_holder"/);
    assert.throws(() => readTx(txWithTargetField('a\u0001b', 14)), /merge block field this reader does not know/);
    // Links of kind 0x0100 (TextControl's NDA and quick-start samples): the same Word hyperlink.
    const link = twinWithLink('http://www.textcontrol.com/reporting/', 'address 0x0100');
    const linked = readTx(link);
    assert.equal(linked.fields.get(1)!.link, 'http://www.textcontrol.com/reporting/');
    assert.match(partXml(txToDocx(linked)), /<w:hyperlink r:id="rIdL1" w:history="1">/);
    assert.ok(writeTx(linked).equals(link), 'written back with its kind');
    // A run of no text and no field (TextControl's CustomSigning sample) changes nothing shown.
    const empty = txWithEmptyRun(14);
    assert.equal(readTx(empty).text, readTx(fixture('test_find_and_replace.tx')).text);
    assert.ok(writeTx(readTx(empty)).equals(empty));
    const shown = (tx: Buffer) =>
      [...partXml(txToDocx(readTx(tx))).matchAll(/<w:t[^>]*>([^<]*)<\/w:t>|<\/w:p>/g)].map((m) => m[1] ?? '\n').join('');
    assert.equal(shown(empty), shown(fixture('test_find_and_replace.tx')));
  });

  it('reads form fields (TX Text Control Words) as Word form fields: text, drop-down with its items, date', () => {
    const text = readTx(txWithFormField('text', 'Name'));
    assert.deepEqual(said(text.fields.get(1)), { instruction: [], name: 'Name', form: { kind: 'text', items: [] } });
    const textXml = partXml(txToDocx(text));
    assert.match(
      textXml,
      /<w:fldChar w:fldCharType="begin"><w:ffData><w:name w:val="Name"\/><w:enabled\/><w:calcOnExit w:val="0"\/><w:textInput\/><\/w:ffData><\/w:fldChar>/,
    );
    assert.match(textXml, / FORMTEXT .*<w:t xml:space="preserve">\u2002{5}<\/w:t>/);
    assert.ok(!textXml.includes('\u0002'));
    const dropdown = readTx(txWithFormField('dropdown', 'Travelers', { items: ['1', '2', '3'] }));
    assert.deepEqual(dropdown.fields.get(1)!.form, { kind: 'dropdown', items: ['1', '2', '3'] });
    const dropdownXml = partXml(txToDocx(dropdown));
    assert.match(dropdownXml, /<w:ddList><w:listEntry w:val="1"\/><w:listEntry w:val="2"\/><w:listEntry w:val="3"\/><\/w:ddList>/);
    assert.match(dropdownXml, / FORMDROPDOWN .*<w:t xml:space="preserve">1<\/w:t>/);
    assert.deepEqual(readTx(txWithFormField('dropdown', 'Rooms')).fields.get(1)!.form, { kind: 'dropdown', items: [] });
    const date = txToDocx(readTx(txWithFormField('date', 'Arrival')));
    assert.match(
      partXml(date),
      /<w:sdt><w:sdtPr>.*<w:alias w:val="Arrival"\/><w:tag w:val="Arrival"\/>.*<w:date>.*<\/w:date><\/w:sdtPr><w:sdtContent>/,
    );
    for (const docx of [txToDocx(text), txToDocx(dropdown), date]) assert.deepEqual(wordProblems(docx), []);
    // No merge field among them: the template's fields are its merge fields.
    assert.deepEqual(checkedCompile(txToDocx(dropdown)).info.mergeFields, []);
    // Conditional instructions are kept for TX, and only TX: read back and written as they were.
    const conditions = txWithFormField('dropdown', 'Travelers', { items: ['1'], conditions: '{"A":\u001f"Validate"\u001f,}' });
    const withConditions = readTx(conditions);
    assert.equal(withConditions.conditions?.length, 1);
    assert.ok(writeTx(withConditions).equals(conditions));
    // A form field's character outside its field, or a field's run over more than it, is damage.
    const stray = txWithFormField('text', 'Name');
    const block = 0x12 + 2 * stray.readUInt16LE(0x0e) + 6;
    stray.writeUInt16LE(0, block + 18 + 20 + 12);
    assert.throws(() => readTx(stray), /damaged or truncated/);
  });

  it('reads tables with spreadsheet formulas (TX Text Control): the values TX calculated, the formulas kept for TX and named', () => {
    const formulas = Buffer.from('0100000000000000ffff0000020003000100', 'hex');
    const sheet = txWithSheet(formulas);
    const doc = readTx(sheet);
    assert.deepEqual(said(doc.tables), said(readTx(twin).tables), 'the same table, read from where TX keeps a spreadsheet');
    assert.ok(Buffer.from(doc.kept!.sheet!.formulas).equals(formulas));
    assert.deepEqual(partXml(txToDocx(doc)), partXml(txToDocx(readTx(twin))), "the DOCX is the twin's: values, not formulas");
    assert.ok(writeTx(doc).equals(sheet), 'written back where it was, with the formulas');
    assert.match(txCarriedOver(doc).join('\n'), /Tables have spreadsheet formulas .*show the values TX last calculated/);
    assert.deepEqual(txCarriedOver(readTx(twin)), []);
    // Counted but missing is damage.
    const empty = txWithSheet(Buffer.alloc(0));
    const block = 0x12 + 2 * empty.readUInt16LE(0x0e) + 6;
    empty.writeUInt16LE(0, block + empty.readUInt32LE(block - 4) - 39 - 228 - 2);
    assert.throws(() => readTx(empty), /damaged or truncated/);
  });

  it('reads check box form fields (the character they show, ☒ or ☐) and writes them as Word check boxes, and back', () => {
    const box = (checked: boolean) =>
      p(
        `<w:r><w:fldChar w:fldCharType="begin"><w:ffData><w:name w:val="Agree"/><w:enabled/><w:calcOnExit w:val="0"/><w:checkBox><w:sizeAuto/><w:default w:val="${checked ? 1 : 0}"/></w:checkBox></w:ffData></w:fldChar></w:r>` +
          '<w:r><w:instrText xml:space="preserve"> FORMCHECKBOX </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>',
        run(' I agree'),
      );
    for (const checked of [true, false]) {
      const tx = writeTx(docxToTx(docx(box(checked))));
      const doc = readTx(tx);
      assert.equal(doc.text, `${checked ? '\u2612' : '\u2610'} I agree`);
      assert.deepEqual(doc.fields.get(1)!.form, { kind: 'checkbox', items: [], checked: '\u2612', unchecked: '\u2610' });
      assert.equal(doc.fields.get(1)!.name, 'Agree');
      const again = txToDocx(doc);
      assert.match(
        partXml(again),
        new RegExp(`<w:checkBox><w:sizeAuto/><w:default w:val="${checked ? 1 : 0}"/></w:checkBox>.* FORMCHECKBOX `),
      );
      assert.deepEqual(wordProblems(again), []);
      assert.ok(writeTx(doc).equals(tx));
    }
  });

  it('reads merged table cells (cell flags 0x04 and 0x01 across, 0x02 down) as Word spans and vertical merges', () => {
    const across = readTx(txWithMergedTable('across'));
    assert.deepEqual(
      across.tables[0]!.cells.map((cell) => [cell.start, cell.end, cell.merged]),
      [
        [2, 28, { right: true }],
        [28, 28, { left: true }],
      ],
    );
    const acrossXml = partXml(txToDocx(across));
    assert.match(
      acrossXml,
      /<w:tblGrid><w:gridCol w:w="4500"\/><w:gridCol w:w="4500"\/><\/w:tblGrid><w:tr>(?:<w:trPr>.*?<\/w:trPr>)?<w:tc><w:tcPr><w:tcW w:w="9000" w:type="dxa"\/><w:gridSpan w:val="2"\/>/,
    );
    assert.equal(acrossXml.match(/<w:tc>/g)?.length, 1, 'the merged cell is part of the span');
    const down = readTx(txWithMergedTable('down'));
    const downXml = partXml(txToDocx(down));
    assert.match(
      downXml,
      /<w:tr>(?:<w:trPr>.*?<\/w:trPr>)?<w:tc><w:tcPr><w:tcW w:w="9000" w:type="dxa"\/><w:vMerge w:val="restart"\/>.*<\/w:tr><w:tr>(?:<w:trPr>.*?<\/w:trPr>)?<w:tc><w:tcPr><w:tcW w:w="9000" w:type="dxa"\/><w:vMerge\/>/,
    );
    for (const doc of [across, down]) assert.deepEqual(wordProblems(txToDocx(doc)), []);
    assert.ok(writeTx(across).equals(txWithMergedTable('across')));
    assert.ok(writeTx(down).equals(txWithMergedTable('down')));
    // Merged into a cell that does not span it, or with text of its own: damage.
    const lone = txWithMergedTable('across');
    const table = lone.indexOf(Buffer.from('0100020000000000000000000300', 'hex'));
    lone.writeUInt32LE(0, table + 12 + 14);
    assert.throws(() => readTx(lone), /damaged or truncated \(a merged table cell\)/);
    const other = txWithMergedTable('across');
    other.writeUInt32LE(0x10, table + 12 + 14);
    assert.throws(() => readTx(other), /tables with cells of this kind \(0x10\)/);
  });

  it('reads a line spacing of at least a height (the top bit of TX\'s value) as Word\'s "at least" in twips', () => {
    const doc = readTx(txWithLineSpacing(0x8000 | 200));
    assert.equal(doc.paraFormats[0]!.atLeast, 200);
    const docx = txToDocx(doc);
    assert.match(partXml(docx), /<w:spacing w:before="0" w:after="0" w:line="200" w:lineRule="atLeast"\/>/);
    assert.equal(readTx(writeTx(docxToTx(docx))).paraFormats[0]!.atLeast, 200);
    assert.throws(() => readTx(txWithLineSpacing(0x8000)), /line spacing this reader does not know/);
  });

  it('reads a protected document: editable regions for everyone as Word permission ranges, the protection as Word keeps it', () => {
    const protection =
      'readOnly;0;1;SHA-512;KzMdbU8SFYb4t9Z7wxPiwg==;2X/AfmQ850tb1CAg6kA8bg==;100000;rsaAES;hash;typeAny;14;;;;;;24;32782;1;1';
    const doc = readTx(txWithRegions([{ start: 2, end: 12, id: 1 }], protection));
    assert.deepEqual(said(doc.regions), [{ start: 2, end: 12, id: 1 }]);
    assert.deepEqual(doc.protection, {
      edit: 'readOnly',
      enforced: true,
      algorithm: 'SHA-512',
      hash: 'KzMdbU8SFYb4t9Z7wxPiwg==',
      salt: '2X/AfmQ850tb1CAg6kA8bg==',
      spinCount: 100000,
    });
    const docx = txToDocx(doc);
    assert.deepEqual(wordProblems(docx), []);
    const xml = partXml(docx);
    assert.match(xml, /<w:permStart w:id="1" w:edGrp="everyone"\/>(?:(?!permEnd).)*<w:permEnd w:id="1"\/>/);
    const text = (from: string) => [...from.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1]).join('');
    const inside = xml.slice(xml.indexOf('<w:permStart'), xml.indexOf('<w:permEnd'));
    assert.equal(text(inside), doc.text.slice(2, 12));
    assert.match(
      partXml(docx, 'word/settings.xml'),
      /<w:settings[^>]*><w:documentProtection w:edit="readOnly" w:enforcement="1" w:cryptProviderType="rsaAES" w:cryptAlgorithmClass="hash" w:cryptAlgorithmType="typeAny" w:cryptAlgorithmSid="14" w:cryptSpinCount="100000" w:hash="KzMdbU8SFYb4t9Z7wxPiwg==" w:salt="2X\/AfmQ850tb1CAg6kA8bg=="\/><w:defaultTabStop/,
    );
    // Without a protection in the settings there is none in the DOCX; the ranges stay.
    const open = txToDocx(readTx(txWithRegions([{ start: 2, end: 12, id: 7 }])));
    assert.doesNotMatch(partXml(open, 'word/settings.xml'), /documentProtection/);
    assert.match(partXml(open), /<w:permStart w:id="7" w:edGrp="everyone"\/>/);
    // A region for a named user (other bytes than the sample's) is refused by name; one past the text is damage.
    const named = txWithRegions([{ start: 2, end: 12, id: 1 }]);
    const block = 0x12 + 2 * named.readUInt16LE(0x0e) + 6;
    const region = block + named.readUInt32LE(block - 4) - 98 - 37;
    named[region + 25] = 3;
    assert.throws(() => readTx(named), /editable regions of this kind \(for named users\)/);
    assert.throws(() => readTx(txWithRegions([{ start: 2, end: 5000, id: 1 }])), /damaged or truncated \(an editable region\)/);
    assert.throws(() => readTx(txWithRegions([], 'designer;0;1')), /document protection of the kind "designer"/);
  });

  it('refuses by name what it does not read yet, with the way out', () => {
    assert.throws(() => readTx(unreadableTx()), /TX document cannot be read here: .*not supported yet.*save it as DOCX/);
    assert.throws(() => readTx(withFlags(0x179f | 0x2000)), /damaged or truncated/, 'a region table the file lacks is damage');
    assert.throws(() => readTx(withFlags(0x179f | 0x0800)), /damaged or truncated/, 'a spreadsheet part the file lacks is damage');
    const framed = txWithFrame(1);
    const frameRecord = 0x12 + 2 * framed.readUInt16LE(0x0e) + 6 + 420 + 2;
    framed.writeUInt16LE(4, frameRecord + 6); // a kind no file shows
    assert.throws(() => readTx(framed), /text frames and text boxes of this kind in TX documents are not supported yet/);
    assert.throws(() => readTx(withFlags(0x179f & ~0x0100)), /damaged or truncated/, 'a name list the flags deny is damage');
  });

  it('names several sections only when the file holds them, and calls other counts damage', () => {
    const block = 0x12 + 2 * twin.readUInt16LE(0x0e) + 6;
    const settings = block + twin.readUInt32LE(block - 4);
    const list = settings + 8 + twin.readUInt32LE(settings + 4);
    assert.equal(twin.readUInt16LE(list), 1);
    const section = twin.subarray(list + 2);
    const two = Buffer.concat([twin.subarray(0, list), Buffer.from([2, 0]), section, section]);
    assert.throws(() => readTx(two), /documents with several sections are not supported yet/);
    const flipped = Buffer.from(twin);
    flipped.writeUInt16LE(0x0201, list);
    assert.throws(() => readTx(flipped), /damaged or truncated \(the section count\)/);
    // The body's text-section record: three equal counts and an end inside the text are sections; anything else damage.
    const at = twin.indexOf(Buffer.from([1, 0, 1, 0, 1, 0, 151, 0, 0, 0]), block);
    assert.ok(at > block && at < settings);
    const sections = Buffer.from(twin);
    for (const offset of [0, 2, 4]) sections.writeUInt16LE(2, at + offset);
    sections.writeUInt32LE(40, at + 6);
    assert.throws(() => readTx(sections), /documents with several sections are not supported yet/);
    const noise = Buffer.from(twin);
    noise.writeUInt16LE(0x4001, at + 2);
    assert.throws(() => readTx(noise), /damaged or truncated \(the text sections\)/);
  });

  it('calls a font under half a point damage, not a size of 0', () => {
    for (const height of [-1, -4, 0, 3]) {
      const copy = twinTx();
      const block = 0x12 + 2 * copy.readUInt16LE(0x0e) + 6;
      copy.writeInt16LE(height, block + 18 + 20 * copy.readUInt16LE(block));
      assert.throws(() => readTx(copy), new RegExp(`damaged or truncated \\(a font size of ${height}\\)`));
    }
    const copy = twinTx();
    const block = 0x12 + 2 * copy.readUInt16LE(0x0e) + 6;
    copy.writeInt16LE(-5, block + 18 + 20 * copy.readUInt16LE(block));
    assert.equal(readTx(copy).charFormats[0]!.halfPoints, 1, 'half a point is the least');
  });

  it('answers a damaged file with a 400 and nothing else: every truncation, bit flips, random bytes', () => {
    const files = [
      twin,
      fixture('test_find_and_replace.tx'),
      fixture('test_template.tx'),
      txWithFrame(30),
      txWithChanges([{ start: 2, end: 12 }]),
      // The layouts learned from the TXSamples and TextControl's sample files.
      txWithTargets([{ position: 14, name: 'page_03' }]),
      txWithRegions([{ start: 2, end: 12, id: 1 }], 'readOnly;0;1;SHA-512;KzMd;2X/A;100000'),
      txWithPicture(png(8, 8)),
      txWithPicture(SVG_LOGO, 2, undefined, 'svg'),
      txWithPicture(Buffer.from('kept'), 2, undefined, 'svg', 'C:\\logo.svg'),
      txWithSignatureBox(30, { kind: 2, x: -4, y: 12, width: 3130, height: 1002 }, png(8, 8)),
      txWithBarcode(png(8, 8)),
      txWithFormField('dropdown', 'Travelers', { items: ['1', '2'], conditions: '{"A":\u001f"x"\u001f,}' }),
      txWithSheet(Buffer.from('0100000000000000ffff0000020003000100', 'hex')),
      txWithStories(0x0f),
      txWithPageField('count'),
      txWithBlockFields('item', 2, 28),
      txWithMergedTable('across'),
      txWithMergedTable('down'),
      txWithParagraphFormat({ indents: [720, 316, 0], tab: { kind: 4, position: 1200 } }),
      txWithParagraphFormat({ indents: [1440, 0, 0x10000 - 720] }),
      txWithTextBox(),
      txWithTargetField('_DV_M52', 14),
      twinWithLink('http://www.textcontrol.com/', 'address 0x0100'),
      txWithEmptyRun(14),
    ];
    const outcome = (bytes: Buffer): string => {
      try {
        const doc = readTx(bytes);
        txToDocx(doc);
        // What reads writes back to a file that reads the same (the writer never throws on what the reader took).
        assert.deepEqual(said(readTx(writeTx(doc))), said(doc));
        return 'read';
      } catch (error) {
        if (error instanceof TxError || error instanceof InputError) return 'refused';
        throw error;
      }
    };
    for (const file of files) {
      for (let length = 0; length < file.length; length += Math.max(1, Math.floor(file.length / 400))) {
        assert.equal(outcome(file.subarray(0, length)), 'refused', `truncated to ${length} bytes`);
      }
    }
    // A seeded generator: the same flips on every run.
    let seed = 0x2545f491;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) / 0x1000000;
    for (let i = 0; i < 3000; i++) {
      const copy = Buffer.from(files[i % files.length]!);
      for (let k = 0; k < 1 + Math.floor(random() * 4); k++) copy[Math.floor(random() * copy.length)]! ^= 1 << Math.floor(random() * 8);
      outcome(copy);
    }
    for (let i = 0; i < 200; i++) {
      const noise = Buffer.from(Array.from({ length: 14 + Math.floor(random() * 4000) }, () => Math.floor(random() * 256)));
      noise.set(twin.subarray(0, 14));
      assert.equal(outcome(noise), 'refused');
    }
  });
});

/** The model without what the reader kept for writing back: what a document says. */
function said(value: unknown): unknown {
  // A map's order says nothing (fields by id).
  if (value instanceof Map) return [...value.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, said(v)]);
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(said);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !key.startsWith('kept'))
        .map(([key, v]) => [key, said(v)]),
    );
  return value;
}

/** The model with nothing kept: written only from what it says. */
function bare<T>(value: T): T {
  if (value instanceof Map) return new Map([...value.entries()].map(([k, v]) => [k, bare(v)])) as T;
  if (value instanceof Uint8Array || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(bare) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !key.startsWith('kept'))
        .map(([key, v]) => [key, bare(v)]),
    ) as T;
  return value;
}

describe('the TX writer', () => {
  const files: [string, Buffer][] = [
    ['the twin', twin],
    ['link targets (TX Text Control Words)', txWithTargets([{ position: 14, name: 'page_03' }])],
    ['an empty target table', txWithTargets([])],
    ['a link to a place and a link to a file', twinWithLink('txmb_item', 'place')],
    ['a link to a file beside the document', twinWithLink('Files/Linked Document.tx')],
    ['editable regions and the protection', txWithRegions([{ start: 2, end: 12, id: 1 }], 'readOnly;0;1;SHA-512;KzMd;2X/A;100000')],
    ['a picture', txWithPicture(png(8, 8))],
    ['an SVG picture', txWithPicture(SVG_LOGO, 2, undefined, 'svg')],
    ['a picture linked to a file', txWithPicture(Buffer.from('kept'), 2, undefined, 'svg', 'C:\\logo.svg')],
    ['a signature box', txWithSignatureBox(30, { kind: 2, x: -4, y: 12, width: 3130, height: 1002 }, png(8, 8))],
    ['a barcode', txWithBarcode(png(8, 8))],
    ['a text frame from the text area', txWithFrame(30, { x: 600, y: 300, width: 4000, height: 1500 }, 1)],
    ['a text form field', txWithFormField('text', 'Name')],
    ['a date form field', txWithFormField('date', 'Arrival')],
    [
      'a drop-down with conditional instructions',
      txWithFormField('dropdown', 'Travelers', { items: ['1', '2'], conditions: '{"A":\u001f"x"\u001f,}' }),
    ],
    ['a line spacing of at least a height', txWithLineSpacing(0x8000 | 200)],
    ['a spreadsheet table', txWithSheet(Buffer.from('0100000000000000', 'hex'))],
    ['four header and footer streams', txWithStories(0x0f)],
    ['a page count field', txWithPageField('count')],
    ['merge block fields', txWithBlockFields('item', 2, 28)],
    ['cells merged across', txWithMergedTable('across')],
    ['cells merged down', txWithMergedTable('down')],
    ['a right tab stop at the margin', txWithParagraphFormat({ tab: { kind: 5, position: 0 } })],
    ['the find-and-replace template', fixture('test_find_and_replace.tx')],
    ['the SDK invoice (footer text box, nested tables, marks)', fixture('test_template.tx')],
    ['the older layout without names', txWithoutNames()],
    ['a text frame in the body', txWithFrame(30)],
    ['a text box in line', txWithTextBox()],
    ['a document target', txWithTargetField('_DV_M52', 14)],
    ['a link of kind 0x0100', twinWithLink('http://www.textcontrol.com/', 'address 0x0100')],
    ['a run of no text and no field', txWithEmptyRun(14)],
    ['a hanging indent', txWithParagraphFormat({ indents: [1440, 0, 0x10000 - 720] })],
    [
      'tracked insertions',
      txWithChanges([
        { start: 2, end: 12 },
        { start: 21, end: 41 },
      ]),
    ],
  ];

  it('writes back every file it reads byte for byte', () => {
    for (const [name, bytes] of files) assert.ok(writeTx(readTx(bytes)).equals(bytes), name);
  });

  it('writes what the model says: edits read back, the rest of the file unchanged', () => {
    const original = fixture('test_template.tx');
    const doc = readTx(original);
    doc.charFormats[0]!.bold = !doc.charFormats[0]!.bold;
    doc.charFormats[1]!.face = 'Courier New';
    doc.runs[0]!.colour = '123456';
    doc.paraFormats[0]!.tabs = [1000, 3000];
    doc.paraFormats[0]!.alignment = 'center';
    doc.cellFormats[0]!.shading = 'ABCDEF';
    doc.cellFormats[0]!.borderColours[2] = '00FF00';
    doc.page.margins = [1000, 1100, 1200, 1300];
    doc.marks[0]!.end -= 1;
    const fields = [...doc.fields.values()];
    fields[0]!.instruction = ['MERGEFIELD', 'renamed', '\\* Upper'];
    const written = writeTx(doc);
    assert.deepEqual(said(readTx(written)), said(doc));
    assert.notDeepEqual(said(readTx(original)), said(doc));
  });

  it('writes a file from the model alone (nothing kept) that the reader reads as the same document', () => {
    for (const [name, bytes] of files) {
      const doc = bare(readTx(bytes));
      // A protection lives in settings only TX composes: without the kept ones it is a 400, not lost.
      if (doc.protection) {
        assert.throws(() => writeTx(doc), /returnFormat TX cannot hold this document protection/, name);
        continue;
      }
      const again = readTx(writeTx(doc));
      assert.deepEqual(said(again), said(doc), name);
      assert.ok(writeTx(again).equals(writeTx(doc)), `${name}: stable from the first write on`);
    }
  });
});

describe('a DOCX written as TX', () => {
  const sources: [string, Buffer][] = [
    ['the twin', twin],
    ['link targets', txWithTargets([{ position: 14, name: 'page_03' }])],
    ['a link to a place', twinWithLink('txmb_item', 'place')],
    ['editable regions for everyone', txWithRegions([{ start: 2, end: 12, id: 1 }])],
    ['a first page of its own', txWithStories(0x0f)],
    ['a text form field', txWithFormField('text', 'Name')],
    ['a drop-down form field', txWithFormField('dropdown', 'Travelers', { items: ['1', '2', '3'] })],
    ['a date form field', txWithFormField('date', 'Arrival')],
    ['a picture', txWithPicture(png(8, 8), 2, { width: 1440, height: 720, scaleX: 100, scaleY: 100 })],
    ['an SVG picture', txWithPicture(SVG_LOGO, 2, { width: 1440, height: 720, scaleX: 100, scaleY: 100 }, 'svg')],
    ['cells merged across', txWithMergedTable('across')],
    ['cells merged down', txWithMergedTable('down')],
    ['signature boxes', txWithSignatureBox(18, { kind: 1, x: 21, y: 513, width: 5295, height: 2145 }, png(8, 8))],
    ['a text frame from its paragraph', txWithFrame(30, { x: 600, y: 300, width: 4000, height: 1500 }, 2)],
    ['a text box in line', txWithTextBox()],
    ['a hanging indent', txWithParagraphFormat({ indents: [1440, 0, 0x10000 - 720] })],
    ['the find-and-replace template', fixture('test_find_and_replace.tx')],
    ['the SDK invoice (nested tables, a block over rows, the footer box)', fixture('test_template.tx')],
    [
      'tracked insertions',
      txWithChanges([
        { start: 2, end: 12 },
        { start: 21, end: 41 },
      ]),
    ],
  ];
  const parts = (docx: Buffer) =>
    Object.fromEntries(Object.entries(unzipSync(docx)).map(([name, bytes]) => [name, Buffer.from(bytes).toString('utf8')]));

  it('keeps everything a TX template holds: DOCX to TX and back is the same DOCX, part for part', () => {
    for (const [name, bytes] of sources) {
      const docx = txToDocx(readTx(bytes));
      const tx = writeTx(docxToTx(docx));
      assert.deepEqual(parts(txToDocx(readTx(tx))), parts(docx), name);
    }
  });

  it("keeps a TX source's settings, style sheet, section records and protection (a merged or edited TX template)", () => {
    const invoice = fixture('test_template.tx');
    const kept = readTx(invoice).keptFile!;
    const made = readTx(writeTx(docxToTx(txToDocx(readTx(invoice)), kept)));
    assert.ok(Buffer.from(made.keptFile!.settings).equals(Buffer.from(kept.settings)), "the invoice's own settings and style sheet");
    assert.ok(Buffer.from(made.keptFile!.sectionEnd).equals(Buffer.from(kept.sectionEnd)));
    assert.ok(!Buffer.from(readTx(writeTx(docxToTx(txToDocx(readTx(invoice))))).keptFile!.settings).equals(Buffer.from(kept.settings)));
    for (const permissions of ['readOnly;0;1;SHA-512;KzMd;2X/A;100000', 'readOnly;0;0']) {
      const source = txWithRegions([{ start: 2, end: 12, id: 1 }], permissions);
      const doc = readTx(source);
      const back = readTx(writeTx(docxToTx(txToDocx(doc), doc.keptFile)));
      assert.deepEqual(back.protection, doc.protection, permissions);
      assert.deepEqual(back.regions, doc.regions, permissions);
    }
    // The DOCX's protection changed (another password): not the source's, so a 400, never the old one.
    const doc = readTx(txWithRegions([{ start: 2, end: 12, id: 1 }], 'readOnly;0;1'));
    const changed = OoxmlPackage.read(txToDocx(doc));
    changed.setText('word/settings.xml', changed.text('word/settings.xml')!.replace('w:edit="readOnly"', 'w:edit="comments"'));
    assert.throws(() => writeTx(docxToTx(changed.toBuffer(), doc.keptFile)), /returnFormat TX cannot hold this document protection/);
  });

  it('writes a picture in line with the text as TX embeds one: its type, its size in the document, scaled 100 %', () => {
    const withLogo = docx(p(run('Logo: '), picture('logo', 96, 48)));
    const tx = writeTx(docxToTx(withLogo));
    const doc = readTx(tx);
    assert.equal(doc.text, 'Logo: \u0001');
    // 96 x 48 px at 96 dpi: 1440 x 720 twips.
    assert.deepEqual(said(doc.pictures), [
      { type: 'png', data: `<${doc.pictures![0]!.data.length} bytes>`, width: 1440, height: 720, scaleX: 100, scaleY: 100 },
    ]);
    const placeholder = Buffer.from(unzipSync(withLogo)['word/media/placeholder.png']!);
    assert.ok(Buffer.from(doc.pictures![0]!.data).equals(placeholder), 'the image as the DOCX has it');
    assert.match(partXml(txToDocx(doc)), /<wp:extent cx="914400" cy="457200"\/>/);
    assert.ok(writeTx(doc).equals(tx), 'read back and written again, the same file');
  });

  it('writes what the DOCX does not say as TX writes it: its style sheet, code page and record defaults', () => {
    const tx = writeTx(docxToTx(docx(p(run('Hello')))));
    assert.ok(tx.includes(Buffer.from('[Normal]', 'utf16le')), "TX's style sheet");
    const doc = readTx(tx);
    assert.equal(doc.kept?.codePage, 1252);
    assert.deepEqual(said(doc.charFormats), [
      { face: 'Arial', halfPoints: 20, bold: false, italic: false, underline: false, strike: false },
    ]);
    assert.deepEqual(doc.paraFormats[0]!.tabs, [], 'no stops of its own');
    assert.equal(doc.text, 'Hello');
  });

  it('splits field instructions as TX keeps them: a switch with its argument, quotes kept', () => {
    assert.deepEqual(instructionTokens(' MERGEFIELD  total \\# "$#,###.00" \\* MERGEFORMAT '), [
      'MERGEFIELD',
      'total',
      '\\# "$#,###.00"',
      '\\* MERGEFORMAT',
    ]);
    assert.deepEqual(instructionTokens('DATE \\@ "d MMMM yyyy"'), ['DATE', '\\@ "d MMMM yyyy"']);
  });

  it("writes Word's merged cells as TX keeps them: a spanning cell at its whole width, the cells it covers in their places", () => {
    const grid = '<w:tblGrid><w:gridCol w:w="1000"/><w:gridCol w:w="2000"/><w:gridCol w:w="3000"/></w:tblGrid>';
    const tc = (props: string, text?: string) => `<w:tc><w:tcPr>${props}</w:tcPr>${text ? p(run(text)) : p()}</w:tc>`;
    const width = (w: number) => `<w:tcW w:w="${w}" w:type="dxa"/>`;
    const body =
      `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr>${grid}` +
      `<w:tr>${tc(`${width(6000)}<w:gridSpan w:val="3"/>`, 'Title')}</w:tr>` +
      `<w:tr>${tc(`${width(1000)}<w:vMerge w:val="restart"/>`, 'Side')}${tc(width(2000), 'a')}${tc(width(3000), 'b')}</w:tr>` +
      `<w:tr>${tc(`${width(1000)}<w:vMerge/>`)}${tc(width(2000), 'c')}${tc(width(3000), 'd')}</w:tr></w:tbl>` +
      p(run('after'));
    const doc = readTx(writeTx(docxToTx(docx(body))));
    const [merged] = doc.tables;
    assert.deepEqual([merged!.rows, merged!.columns], [3, 3]);
    assert.deepEqual(
      merged!.cells.map((c) => [c.left, c.width, c.merged ?? null, doc.text.slice(c.start, c.end).trim()]),
      [
        [0, 6000, { right: true }, 'Title'],
        [1000, 2000, { left: true, right: true }, ''],
        [3000, 3000, { left: true }, ''],
        [0, 1000, null, 'Side'],
        [1000, 2000, null, 'a'],
        [3000, 3000, null, 'b'],
        [0, 1000, { up: true }, ''],
        [1000, 2000, null, 'c'],
        [3000, 3000, null, 'd'],
      ],
    );
    // Word gets them back as it wrote them: a span of three, a vertical merge.
    const word = txToDocx(doc);
    assert.deepEqual(wordProblems(word), []);
    assert.match(partXml(word), /<w:gridSpan w:val="3"\/>.*Title.*<w:vMerge w:val="restart"\/>.*Side.*<w:vMerge\/>/);
  });

  it('reads Word formatting through styles, and names what TX cannot hold', () => {
    const styles =
      '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri"/><w:sz w:val="22"/></w:rPr></w:rPrDefault></w:docDefaults>' +
      '<w:style w:type="paragraph" w:styleId="Title"><w:pPr><w:jc w:val="center"/></w:pPr><w:rPr><w:b/><w:sz w:val="40"/></w:rPr></w:style>';
    const doc = docxToTx(docx(p('<w:pPr><w:pStyle w:val="Title"/></w:pPr>', run('Heading')) + p(run('Body', '<w:i/>')), { styles }));
    assert.equal(doc.text, 'Heading\nBody');
    const look = (text: string) => {
      const r = doc.runs.find((run) => doc.text.slice(run.start, run.end).startsWith(text))!;
      return said(doc.charFormats[r.format]);
    };
    assert.deepEqual(look('Heading'), { face: 'Calibri', halfPoints: 40, bold: true, italic: false, underline: false, strike: false });
    assert.deepEqual(look('Body'), { face: 'Calibri', halfPoints: 22, bold: false, italic: true, underline: false, strike: false });
    assert.equal(doc.paraFormats[doc.paragraphs[0]!.format]!.alignment, 'center');
    const refused: [string, RegExp][] = [
      [
        p(picture('logo', 10, 10).replace(/<wp:inline>([\s\S]*)<\/wp:inline>/, '<wp:anchor>$1</wp:anchor>')),
        /pictures that are not in line with the text/,
      ],
      [p(picture('chart', 10, 10).replace('drawingml/2006/picture', 'drawingml/2006/chart')), /pictures, charts and embedded objects/],
      [p('<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>', run('x')), /numbered or bulleted lists/],
      [p('<w:pPr><w:ind w:firstLineChars="200"/></w:pPr>', run('x')), /character-measured paragraph indents/],
      [p('<w:pPr><w:ind w:hanging="720"/></w:pPr>', run('x')), /paragraph indents of 0, 0 and -720 twips/],
      [table(row(`<w:tc><w:tcPr><w:hMerge w:val="restart"/></w:tcPr>${p(run('x'))}</w:tc>`)), /merged table cells of the old kind/],
      [
        table(
          row(`<w:tc><w:tcPr><w:gridSpan w:val="2"/><w:vMerge w:val="restart"/></w:tcPr>${p(run('x'))}</w:tc>`) +
            row(`<w:tc><w:tcPr><w:gridSpan w:val="2"/><w:vMerge/></w:tcPr>${p()}</w:tc>`),
        ),
        /table cells merged both across and down/,
      ],
      [
        table(row(cell(p(run('x')))) + row(`<w:tc><w:tcPr><w:vMerge/></w:tcPr>${p(run('lost'))}</w:tc>`)),
        /text in a table cell merged into the one above it/,
      ],
      [table(row(`<w:tc><w:tcPr><w:vMerge/></w:tcPr>${p()}</w:tc>`)), /a table cell merged into a row above the table/],
      [p('<w:del w:id="1" w:author="A"><w:r><w:delText>x</w:delText></w:r></w:del>'), /tracked deletions/],
      [p('<w:r><w:footnoteReference w:id="1"/></w:r>'), /footnotes and endnotes/],
      [p('<w:permStart w:id="3" w:ed="someone@example.com"/>', run('x'), '<w:permEnd w:id="3"/>'), /editable ranges for named users/],
      [p('<w:sdt><w:sdtPr><w:text/></w:sdtPr><w:sdtContent>', run('x'), '</w:sdtContent></w:sdt>'), /content controls/],
    ];
    // Measures and counts TX's fields cannot hold are a 400 too, not a crash.
    const longText = 'x'.repeat(70_000);
    assert.throws(() => docxToTx(docx(p(run(longText)))), /more than 65,000 characters in one part/);
    const marginDocx = OoxmlPackage.read(docx(p(run('x'))));
    marginDocx.setText('word/document.xml', marginDocx.text('word/document.xml')!.replace('w:top="1440"', 'w:top="-400"'));
    assert.throws(
      () => writeTx(docxToTx(marginDocx.toBuffer())),
      (error: unknown) => error instanceof InputError && /does not fit TX's fields/.test((error as Error).message),
    );
    // A protection TX would keep in settings this writer does not compose.
    const protectedDocx = OoxmlPackage.read(docx(p(run('x'))));
    const settingsXml =
      protectedDocx.text('word/settings.xml') ??
      '<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"></w:settings>';
    protectedDocx.setText(
      'word/settings.xml',
      settingsXml.replace(/(<w:settings[^>]*>)/, '$1<w:documentProtection w:edit="readOnly" w:enforcement="1"/>'),
    );
    assert.throws(() => docxToTx(protectedDocx.toBuffer()), /document protection/);
    for (const [body, expected] of refused) {
      assert.throws(
        () => docxToTx(docx(body)),
        (error: unknown) => error instanceof TxOutputError && expected.test((error as Error).message),
      );
    }
  });
});
