import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, strFromU8 } from 'fflate';
import { makeInert } from '../../src/inert/index.js';
import { InputError } from '../../src/errors.js';
import { inertHtml, inertHtmlCss as inertCss } from '../../src/inert/html.js';
import { groupText } from '../../src/inert/rtf.js';
import { BLANK_PNG } from '../../src/inert/pictures.js';
import { docx, hostileDocuments, type Secrets } from '../helpers/hostile.js';
import { png } from '../helpers/docx.js';
import { wordProblems } from '../helpers/word-rules.js';

const PNG = png(2, 2, [1, 2, 3]).toString('base64');
const secrets: Secrets = { dir: '/srv/data', png: '/srv/data/secret.png', txt: '/srv/data/secret.txt', html: '/srv/data/secret.html' };
const rtf = (body: string) => Buffer.from(`{\\rtf1\\ansi ${body}\\par MARK}`, 'latin1');
const inertRtf = (body: string) => makeInert(rtf(body), 'rtf').toString('latin1');
const parts = (bytes: Buffer) => Object.fromEntries(Object.entries(unzipSync(bytes)).map(([name, data]) => [name, strFromU8(data)]));

describe('RTF made inert', () => {
  it('drops the instruction of linking fields however they are written, and keeps their result', () => {
    for (const body of [
      '{\\field{\\*\\fldinst INCLUDEPICTURE "/srv/data/secret.png"}{\\fldrslt kept}}',
      '{\\field{\\*\\fldinst {\\b INCLUDE}{PICTURE "/srv/data/secret.png" \\\\d}}{\\fldrslt kept}}',
      `{\\field{\\*\\fldinst ${[...'INCLUDEPICTURE'].map((c) => `\\'${c.charCodeAt(0).toString(16)}`).join('')} "/x"}{\\fldrslt kept}}`,
      '{\\field{\\*\\fldinst \\u73?NCLUDETEXT "/srv/data/secret.txt"}{\\fldrslt kept}}',
      '{\\field{\\*\\fldinst  link Excel.Sheet.8 "/srv/book.xls" "" \\\\a}{\\fldrslt kept}}',
      '{\\field{\\*\\fldinst DDEAUTO c:\\\\windows\\\\system32\\\\cmd.exe "/c calc"}{\\fldrslt kept}}',
      '{\\field{\\fldinst IMPORT "/srv/x.wmf"}{\\fldrslt kept}}',
    ]) {
      const out = inertRtf(body);
      assert.ok(!/INCLUDE|IMPORT|link|DDE|\\'49/i.test(out.replace(/\\u73\?/, '')) || !/secret|\/x"|book|cmd|x\.wmf/.test(out), out);
      assert.match(out, /\{\\\*\\fldinst {2}\}/);
      assert.match(out, /kept/);
      assert.match(out, /MARK/);
    }
  });

  it('leaves other fields and documents without links byte for byte', () => {
    const plain = rtf(
      '{\\field{\\*\\fldinst MERGEFIELD Link}{\\fldrslt x}} {\\field{\\*\\fldinst HYPERLINK "https://example.com"}{\\fldrslt y}}',
    );
    assert.equal(makeInert(plain, 'rtf'), plain);
  });

  it('skips \\bin data, so braces inside it do not confuse the groups', () => {
    // A picture's raw bytes (a PNG signature, then braces) stay as they are.
    const out = inertRtf('{\\pict\\bin8 \x89PNG}}{{}{\\field{\\*\\fldinst INCLUDEPICTURE "/x"}{\\fldrslt kept}}');
    assert.ok(out.includes('\\bin8 \x89PNG}}{{'));
    assert.ok(!out.includes('INCLUDEPICTURE'));
  });

  it('drops linked OLE objects and the attached template, and renames linked shape pictures', () => {
    const out = inertRtf(
      '{\\*\\template /srv/data/evil.dot}{\\object\\objautlink\\objupdate{\\*\\objclass Word.Document.8}{\\*\\objdata 0105}{\\result r}}' +
        '{\\shp{\\*\\shpinst{\\sp{\\sn pibName}{\\sv /srv/data/secret.png}}}}',
    );
    assert.ok(!out.includes('evil.dot'));
    assert.ok(!out.includes('objautlink'));
    assert.ok(!/\\sn pibName/.test(out));
  });

  it('reads group text as a reader does', () => {
    assert.equal(groupText("{\\*\\fldinst {\\b IN}\\'43LUDE\\u80?ICTURE}"), 'INCLUDEPICTURE');
  });
});

describe('DOCX made inert', () => {
  const inert = (bytes: Buffer) => parts(makeInert(bytes, 'docx'));
  const byName = Object.fromEntries(hostileDocuments(secrets).map((d) => [d.name, d.bytes]));

  it('empties linking field instructions in complex and simple fields, whatever the prefix or escaping', () => {
    for (const name of [
      'docx INCLUDEPICTURE split over runs',
      'docx INCLUDEPICTURE with another prefix and entities',
      'docx fldSimple INCLUDEPICTURE',
      'docx INCLUDETEXT',
    ]) {
      const xml = inert(byName[name]!)['word/document.xml']!;
      assert.ok(!/INCLUDE|PICTURE|secret/.test(xml), `${name}: ${xml}`);
      assert.match(xml, /MARK/);
    }
  });

  it('drops relationships that leave the package, except hyperlinks', () => {
    const bytes = docx('<w:p><w:hyperlink r:id="rIdH"><w:r><w:t>link</w:t></w:r></w:hyperlink></w:p>', {
      rels:
        '<Relationship Id="rIdH" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com" TargetMode="External"/>' +
        '<Relationship Id="rIdL" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="file:///srv/data/secret.png" TargetMode="External"/>' +
        '<Relationship Id="rIdM" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="file:///srv/data/secret.png"/>' +
        '<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/subDocument" Target="\\\\host\\share\\x.docx" TargetMode="&#69;xternal"/>',
    });
    const rels = inert(bytes)['word/_rels/document.xml.rels']!;
    assert.match(rels, /rIdH/);
    assert.ok(!/rIdL|rIdM|rIdS|secret|share/.test(rels), rels);
  });

  it('drops what referred to a dropped relationship, so the package stays one Word opens', () => {
    const blip = (attrs: string) =>
      '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="914400" cy="914400"/><wp:docPr id="1" name="p"/>' +
      '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
      `<pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip ${attrs}/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
      '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="914400" cy="914400"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
    const bytes = docx(blip('r:link="rIdL"') + '<w:p><w:r><w:t>MARK</w:t></w:r></w:p>', {
      rels: '<Relationship Id="rIdL" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="file:///srv/data/secret.png" TargetMode="External"/>',
    });
    const made = makeInert(bytes, 'docx');
    const xml = parts(made)['word/document.xml']!;
    assert.doesNotMatch(xml, /rIdL/);
    assert.match(xml, /<a:blip\/>/);
    assert.deepEqual(
      wordProblems(made).filter((p) => p.startsWith('rel-id')),
      [],
    );
  });

  it('removes VML image sources, the attached template and the mail-merge data source', () => {
    assert.ok(!/secret/.test(inert(byName['docx VML image data src']!)['word/document.xml']!));
    const settings = inert(
      docx('', {
        settings: '<w:attachedTemplate r:id="rIdT"/><w:mailMerge><w:dataSource r:id="rIdD"/></w:mailMerge><w:zoom w:percent="100"/>',
      }),
    )['word/settings.xml']!;
    assert.ok(!/attachedTemplate|mailMerge/.test(settings), settings);
    assert.match(settings, /w:zoom/);
  });

  it('makes nested HTML chunks inert', () => {
    const chunk = inert(byName['docx altChunk HTML with an image']!)['word/chunk.html']!;
    assert.ok(!chunk.includes('secret'), chunk);
    assert.match(chunk, /chunk/);
  });

  it('returns a package without links unchanged, byte for byte', () => {
    const plain = docx(
      '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> MERGEFIELD name </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
    );
    assert.equal(makeInert(plain, 'docx'), plain);
  });

  it('refuses absurdly deep nesting with a clear message instead of overflowing the stack', () => {
    const deep = docx(
      `${'<w:sdt><w:sdtContent>'.repeat(20_000)}<w:p><w:fldSimple w:instr="INCLUDEPICTURE x"/></w:p>${'</w:sdtContent></w:sdt>'.repeat(20_000)}`,
    );
    assert.throws(
      () => makeInert(deep, 'docx'),
      (error: Error) => error instanceof InputError && /more than 1000 levels deep/.test(error.message),
    );
  });
});

describe('HTML made inert', () => {
  it('removes every resource reference a browser would follow', () => {
    const out = inertHtml(
      '<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=file:///x"><base href="file:///srv/">' +
        '<link rel="stylesheet" href="/srv/a.css"><style>@import "/srv/b.css"; p { background: url(/srv/c.png) }</style><script>alert(1)</script></head>' +
        '<body onload="x()"><img/src=/srv/d.png><img src="&#x66;ile:///srv/e.png"><img srcset="/srv/f.png 2x"><iframe src="/srv/g.html"></iframe>' +
        `<svg><image href="/srv/h.png"/></svg><a href="#top">top</a><a href="https://example.com">out</a><img src="data:image/png;base64,${PNG}">` +
        '<p style="background-image:u\\72l(/srv/i.png)">text &amp; more</p></body></html>',
    );
    assert.ok(!/\/srv\/|script|alert|onload|refresh/.test(out), out);
    assert.match(out, /<meta charset="utf-8">/);
    assert.match(out, /href="#top"/);
    assert.ok(out.includes(`src="data:image/png;base64,${PNG}"`), 'a real PNG stays');
    assert.match(out, /text &amp; more/);
  });

  it('keeps data: images in CSS and drops everything else that loads', () => {
    assert.equal(inertCss(`a{background:url("data:image/png;base64,${PNG}")}`), `a{background:url("data:image/png;base64,${PNG}")}`);
    assert.equal(
      inertCss('a{background:url("data:image/png;base64,AA")}'),
      `a{background:url("data:image/png;base64,${BLANK_PNG.toString('base64')}")}`,
      'not a picture: blank',
    );
    assert.equal(inertCss('a{background:url(x.png);behavior:url(x.htc)}'), 'a{background:none;}');
  });
});

describe('inert Word 6.0 and 95 documents', () => {
  it('turns linking fields into unknown ones in the field table of the WordDocument stream, and blanks their keyword', async () => {
    const { legacyWordDoc } = await import('../helpers/hostile.js');
    const CFB = (await import('cfb')).default;
    for (const nFib of [101, 104] as const) {
      const input = legacyWordDoc('Before ', { nFib, field: { instruction: 'INCLUDEPICTURE "/etc/secret.png"', flt: 0x43 } });
      const out = makeInert(input, 'doc');
      const word = Buffer.from(CFB.read(out, { type: 'buffer' }).FileIndex.find((e) => e.name === 'WordDocument')!.content as Uint8Array);
      const plc = word.readUInt32LE(0xd8);
      assert.equal(word[plc + 16], 0x13);
      assert.equal(word[plc + 17], 0x01, 'the field type is "unknown"');
      assert.ok(!word.toString('latin1').includes('INCLUDEPICTURE'), 'the keyword is gone');
      assert.ok(word.toString('latin1').includes('/etc/secret.png'), 'nothing else moves');
    }
    const plain = legacyWordDoc('No fields here');
    assert.equal(makeInert(plain, 'doc'), plain, 'a document without links is returned as it is');
  });
});
