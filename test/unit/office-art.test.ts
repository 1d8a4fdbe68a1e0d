import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import CFB from 'cfb';
import { zipSync } from 'fflate';
import { inertOfficeArtStream } from '../../src/inert/officeArt.js';
import { inertPicture, markupIn, BLANK_PNG } from '../../src/inert/pictures.js';
import { makeInert } from '../../src/inert/index.js';
import { png } from '../helpers/docx.js';
import { svgLinking } from '../helpers/hostile.js';

const SECRET = '/srv/data/secret.png';

/** An OfficeArt BLIP record: a PNG (instance 0x6E0) or a WMF (0x216) with `data` after its prefix. */
function blip(instance: number, data: Buffer): Buffer {
  const metafile = instance === 0x216 || instance === 0x3d4;
  const prefix = 16 + (metafile ? 34 : 1);
  const record = Buffer.alloc(8 + prefix + data.length);
  record.writeUInt16LE(instance << 4, 0);
  record.writeUInt16LE(metafile ? 0xf01b : 0xf01e, 2);
  record.writeUInt32LE(prefix + data.length, 4);
  data.copy(record, 8 + prefix);
  return record;
}

/** An EMF of a header record and an EMR_COMMENT carrying `comment` (as an EMF+ image would). */
function emf(comment: Buffer): Buffer {
  const header = Buffer.alloc(108);
  header.writeUInt32LE(1, 0);
  header.writeUInt32LE(108, 4);
  header.write(' EMF', 40, 'latin1');
  const record = Buffer.alloc(12 + comment.length + ((4 - (comment.length % 4)) % 4));
  record.writeUInt32LE(70, 0);
  record.writeUInt32LE(record.length, 4);
  record.writeUInt32LE(comment.length, 8);
  comment.copy(record, 12);
  return Buffer.concat([header, record]);
}

describe('pictures in binary Office streams (DOC, embedded workbooks) judged by their bytes', () => {
  it('keeps pictures that refer to nothing, byte for byte', () => {
    const stream = Buffer.concat([
      Buffer.alloc(40, 7),
      blip(0x6e0, png(8, 8, [1, 2, 3])),
      blip(0x216, zlib.deflateSync(emf(Buffer.from('text')))),
    ]);
    const before = Buffer.from(stream);
    assert.equal(inertOfficeArtStream(stream), false);
    assert.ok(stream.equals(before));
  });

  it('zeroes an SVG behind a PNG record, plain, gzip-packed or deflated in a metafile record, and keeps every offset', () => {
    for (const record of [
      blip(0x6e0, svgLinking(SECRET)),
      blip(0x6e0, zlib.gzipSync(svgLinking(SECRET))),
      blip(0x216, zlib.deflateSync(svgLinking(SECRET))),
      blip(0x216, zlib.deflateSync(emf(svgLinking(SECRET)))),
      blip(0x6e0, Buffer.from('%!PS-Adobe-3.0 EPSF-3.0\n')),
    ]) {
      const stream = Buffer.concat([Buffer.alloc(16), record, Buffer.alloc(16)]);
      const length = stream.length;
      assert.equal(inertOfficeArtStream(stream), true);
      assert.equal(stream.length, length);
      assert.equal(stream.includes(Buffer.from(SECRET)), false);
      assert.deepEqual(markupIn(stream), []);
      assert.equal(stream.readUInt16LE(16 + 2), record.readUInt16LE(2), 'the record header stays');
    }
  });

  it('judges what a damaged deflated metafile gives before its error', () => {
    const deflated = zlib.deflateSync(Buffer.concat([emf(Buffer.alloc(64)), svgLinking(SECRET)]));
    const damaged = Buffer.concat([deflated.subarray(0, deflated.length - 8), Buffer.alloc(8, 0xff)]);
    const stream = blip(0x216, damaged);
    assert.equal(inertOfficeArtStream(stream), true);
  });

  it('takes "link to file" from the picture flags of shapes, and leaves their names', () => {
    const name = Buffer.from(`${SECRET}\0`, 'utf16le');
    const fopt = Buffer.alloc(8 + 12 + name.length);
    fopt.writeUInt16LE((2 << 4) | 3, 0);
    fopt.writeUInt16LE(0xf00b, 2);
    fopt.writeUInt32LE(12 + name.length, 4);
    fopt.writeUInt16LE(0x105 | 0x8000, 8); // pibName, complex
    fopt.writeUInt32LE(name.length, 10);
    fopt.writeUInt16LE(0x106, 14); // pibFlags: link to file
    fopt.writeUInt32LE(0x08, 16);
    name.copy(fopt, 20);
    const before = Buffer.from(fopt);
    assert.equal(inertOfficeArtStream(fopt), true);
    assert.equal(fopt.readUInt32LE(16), 0, 'no longer linked');
    fopt.writeUInt32LE(0x08, 16);
    assert.ok(fopt.equals(before), 'nothing else changed');
    fopt.writeUInt32LE(0x02, 16);
    assert.equal(inertOfficeArtStream(fopt), false, 'a name that is only a name stays');
  });

  it('turns a PICF header that links a file by name into one the office skips', () => {
    const picf = Buffer.alloc(0x44 + 1 + SECRET.length);
    picf.writeUInt32LE(picf.length, 0);
    picf.writeUInt16LE(0x44, 4);
    picf.writeUInt16LE(94, 6);
    picf[0x44] = SECRET.length;
    picf.write(SECRET, 0x45, 'latin1');
    assert.equal(inertOfficeArtStream(picf), true);
    assert.equal(picf.readUInt16LE(6), 99);
  });

  it("leaves the document's text alone, and breaks SVG starts everywhere else", () => {
    const text = Buffer.from('How to write <svg> and <!DOCTYPE svg> in a page');
    const stream = Buffer.concat([text, Buffer.alloc(8), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')]);
    assert.equal(inertOfficeArtStream(stream, [{ start: 0, end: text.length }]), true);
    assert.equal(stream.subarray(0, text.length).toString(), text.toString());
    assert.equal(markupIn(stream.subarray(text.length)).length, 0);
  });

  it('finds SVG starts in any case, in UTF-16 and behind a gzip header', () => {
    assert.deepEqual(markupIn(Buffer.from('ab<SVG x')), [2]);
    assert.deepEqual(markupIn(Buffer.from('<svg', 'utf16le')), [0]);
    assert.deepEqual(markupIn(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('<svg'.replace(/./g, '\0$&'), 'latin1')])), [3]);
    assert.deepEqual(markupIn(Buffer.concat([Buffer.alloc(5), zlib.gzipSync(svgLinking(SECRET))])), [5]);
    assert.deepEqual(markupIn(Buffer.from('<?xml version="1.0"?><!doctype s:svg>')), [23]);
    assert.deepEqual(markupIn(Buffer.from('<?xml version="1.0"?><p>no picture</p>')), []);
  });
});

describe('metafiles carrying an SVG are blanked in every format', () => {
  it('in DOCX: an EMF picture with an SVG inside becomes a blank PNG; a plain EMF stays', () => {
    assert.equal(inertPicture(emf(svgLinking(SECRET))), BLANK_PNG);
    const plain = emf(Buffer.from('a comment'));
    assert.equal(inertPicture(plain), plain);
  });

  it('in a DOC: the Word document keeps its text and fields, its pictures are judged, embedded packages made inert', () => {
    const container = CFB.utils.cfb_new();
    const word = Buffer.alloc(0x400);
    word.writeUInt16LE(0xa5ec, 0);
    word.writeUInt16LE(101, 2); // a Word 6 FIB: its text is fcMin..fcMac
    word.writeUInt32LE(0x200, 0x18);
    word.writeUInt32LE(0x220, 0x1c);
    word.write('<svg> is a word here', 0x200, 'latin1');
    CFB.utils.cfb_add(container, '/WordDocument', word);
    CFB.utils.cfb_add(container, '/Data', Buffer.concat([Buffer.alloc(8), blip(0x6e0, svgLinking(SECRET))]));
    const embedded = zipSync({ 'word/media/image1.png': svgLinking(SECRET), '[Content_Types].xml': Buffer.from('<Types/>') });
    CFB.utils.cfb_add(container, '/ObjectPool/_1/Package', Buffer.from(embedded));
    const doc = Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
    const made = CFB.read(makeInert(doc, 'doc'), { type: 'buffer' });
    const content = (name: string) => Buffer.from(CFB.find(made, name)!.content as Uint8Array);
    assert.equal(content('/WordDocument').subarray(0x200, 0x214).toString('latin1'), '<svg> is a word here');
    assert.equal(content('/Data').includes(Buffer.from(SECRET)), false);
    assert.equal(content('/ObjectPool/_1/Package').includes(Buffer.from(SECRET)), false);
  });

  it('in RTF: an embedded object (\\objdata) holding a compound file has its pictures judged', () => {
    const container = CFB.utils.cfb_new();
    CFB.utils.cfb_add(container, '/Data', Buffer.concat([Buffer.alloc(8), blip(0x6e0, svgLinking(SECRET))]));
    const native = Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
    const name = (text: string) => {
      const length = Buffer.alloc(4);
      length.writeUInt32LE(text.length + 1);
      return Buffer.concat([length, Buffer.from(`${text}\0`, 'latin1')]);
    };
    const size = Buffer.alloc(4);
    size.writeUInt32LE(native.length);
    const ole1 = Buffer.concat([Buffer.from([1, 5, 0, 0, 2, 0, 0, 0]), name('Excel.Sheet.8'), name(''), name(''), size, native]);
    const rtf = Buffer.from(
      `{\\rtf1 MARK{\\object\\objemb{\\*\\objclass Excel.Sheet.8}{\\*\\objdata ${ole1.toString('hex')}}{\\result x}}}`,
    );
    const made = makeInert(rtf, 'rtf').toString('latin1');
    const hex = /\\objdata ([0-9a-f]+)\}/.exec(made)![1]!;
    assert.equal(Buffer.from(hex, 'hex').includes(Buffer.from(SECRET)), false);
    assert.match(made, /\\objclass Excel\.Sheet\.8/);
  });
});
