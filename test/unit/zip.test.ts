import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, zipSync, strToU8 } from 'fflate';
import { readZip, writeZip, ZipError } from '../../src/ooxml/zip.js';
import { OoxmlPackage } from '../../src/ooxml/package.js';
import { detectFormat } from '../../src/formats/detect.js';
import { InputError } from '../../src/errors.js';
import { docx, zipBomb } from '../helpers/hostile.js';

describe('ZIP reading under hard limits', () => {
  it('reads what fflate reads from a normal package', () => {
    const bytes = docx('<w:p><w:r><w:t>hello</w:t></w:r></w:p>');
    const ours = readZip(bytes);
    const theirs = unzipSync(bytes);
    assert.deepEqual([...ours.keys()].sort(), Object.keys(theirs).sort());
    for (const [name, data] of ours) assert.ok(Buffer.from(data).equals(Buffer.from(theirs[name]!)), name);
  });

  it('stops a bomb with falsified sizes after the limit, not after the bomb', () => {
    for (const name of ['word/document.xml', '[Content_Types].xml']) {
      const bomb = zipBomb(name, 64 * 1024 * 1024);
      const started = process.hrtime.bigint();
      assert.throws(
        () => readZip(bomb),
        (error: Error) => error instanceof ZipError && error.kind === 'limit' && /zip bomb|more than/.test(error.message),
      );
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      assert.ok(ms < 5000, `took ${ms} ms`);
    }
    assert.throws(
      () => OoxmlPackage.read(zipBomb('word/document.xml', 64 * 1024 * 1024), 'The template'),
      (error: Error) =>
        error instanceof InputError &&
        /^The template is refused: the part word\/document.xml unpacks to more than 200 times/.test(error.message),
    );
    const detected = detectFormat(zipBomb('[Content_Types].xml', 64 * 1024 * 1024));
    assert.equal(detected.ok, false);
    assert.match((detected as { message: string }).message, /refused/);
  });

  it('refuses too many parts, too much in total, and damaged archives, each in words', () => {
    const many: Record<string, Uint8Array> = {};
    for (let i = 0; i < 20; i++) many[`p${i}.xml`] = strToU8('<a/>');
    const limits = { maxEntries: 10, maxPartBytes: 1024, maxTotalBytes: 2048, maxRatio: 200, ratioFloorBytes: 1024 };
    assert.throws(() => readZip(zipSync(many), limits), /more than 10 parts/);
    assert.throws(
      () => readZip(zipSync({ a: new Uint8Array(1500), b: new Uint8Array(1500) }), limits),
      /more than 0 MB|unpacks to more than/,
    );
    const good = docx('');
    assert.throws(
      () => readZip(good.subarray(0, good.length - 30)),
      (e: Error) => e instanceof ZipError && e.kind === 'damaged',
    );
    assert.throws(
      () => readZip(Buffer.from('PK\u0003\u0004 not really')),
      (e: Error) => e instanceof ZipError && e.kind === 'damaged',
    );
  });

  it('inflates a small part it has read before only once, and still holds each read to its limits', (t) => {
    const inflations = t.mock.method(zlib, 'inflateRawSync');
    const bytes = zipSync({
      'word/document.xml': strToU8(`<w:document>${'<w:p/>'.repeat(300)}${randomBytes(8).toString('hex')}</w:document>`),
    });
    const first = readZip(bytes).get('word/document.xml')!;
    const calls = inflations.mock.callCount();
    assert.equal(calls, 1);
    // What a caller does to its copy is not what the next read gets.
    first.fill(0);
    const again = readZip(Buffer.from(bytes)).get('word/document.xml')!;
    assert.equal(inflations.mock.callCount(), calls);
    assert.match(Buffer.from(again).toString('utf8'), /^<w:document><w:p\/>/);
    // A read with a lower limit is refused as if the part were inflated again.
    const limits = { maxEntries: 10, maxPartBytes: 1000, maxTotalBytes: 2048, maxRatio: 200, ratioFloorBytes: 1024 };
    assert.throws(
      () => readZip(bytes, limits),
      (e: Error) => e instanceof ZipError && e.kind === 'limit' && /word\/document.xml unpacks to more than 0 MB/.test(e.message),
    );
    // A damaged part is refused each time, never remembered.
    const damaged = Buffer.from(bytes);
    const at = damaged.indexOf('word/document.xml') + 'word/document.xml'.length;
    damaged.fill(0xff, at, at + 8);
    for (let i = 0; i < 2; i++)
      assert.throws(
        () => readZip(damaged),
        (e: Error) => e instanceof ZipError && e.kind === 'damaged',
      );
  });
});

describe('DOCTYPEs in packages', () => {
  const withPart = (name: string, text: string) => {
    const files = unzipSync(docx(''));
    files[name] = strToU8(text);
    return Buffer.from(zipSync(files));
  };
  it('refuses any DOCTYPE in XML parts, and entity declarations in the web pages a document carries (altChunk)', () => {
    assert.throws(() => OoxmlPackage.read(withPart('word/styles.xml', '<?xml version="1.0"?><!DOCTYPE s><w:styles/>')), /DOCTYPE/);
    // Word documents carry whole web pages as altChunk parts, which start with <!DOCTYPE html>.
    const page = OoxmlPackage.read(withPart('word/afchunk.html', '<!DOCTYPE html><html><body><p>Chunk</p></body></html>'));
    assert.ok(page.has('word/afchunk.html'));
    assert.ok(
      OoxmlPackage.read(
        withPart('word/afchunk.mht', 'MIME-Version: 1.0\r\n\r\n<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN"><html></html>'),
      ),
    );
    assert.throws(
      () => OoxmlPackage.read(withPart('word/afchunk.html', '<!DOCTYPE html [<!ENTITY a "aaaa">]><html>&a;</html>')),
      /DOCTYPE/,
    );
  });

  it('leaves DOCTYPEs inside pictures and printer settings alone (Apple plists in JPEG metadata, Mac Word), by content type', () => {
    const plist =
      '<?xml version="1.0"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd"><plist/>';
    const withParts = (parts: Record<string, string | Uint8Array>, types: string) => {
      const files = unzipSync(docx(''));
      const declared = Buffer.from(files['[Content_Types].xml']!).toString('utf8').replace('</Types>', `${types}</Types>`);
      files['[Content_Types].xml'] = strToU8(declared);
      for (const [name, data] of Object.entries(parts)) files[name] = typeof data === 'string' ? strToU8(data) : new Uint8Array(data);
      return Buffer.from(zipSync(files));
    };
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe1]), Buffer.from(plist)]);
    const settings =
      '<Default Extension="jpeg" ContentType="image/jpeg"/><Default Extension="bin" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.printerSettings"/>';
    const read = OoxmlPackage.read(
      withParts({ 'word/media/image1.jpeg': jpeg, 'word/printerSettings/printerSettings1.bin': plist }, settings),
    );
    assert.ok(read.has('word/media/image1.jpeg') && read.has('word/printerSettings/printerSettings1.bin'));
    // Declared as markup, or named as markup, it is checked whatever else it claims.
    assert.throws(
      () =>
        OoxmlPackage.read(
          withParts(
            { 'word/media/image2.jpeg': plist },
            `${settings}<Override PartName="/word/media/image2.jpeg" ContentType="application/xml"/>`,
          ),
        ),
      /image2\.jpeg contains a DOCTYPE/,
    );
    assert.throws(
      () =>
        OoxmlPackage.read(
          withParts({ 'word/fake.xml': plist }, `${settings}<Override PartName="/word/fake.xml" ContentType="image/png"/>`),
        ),
      /fake\.xml contains a DOCTYPE/,
    );
    assert.throws(
      () => OoxmlPackage.read(withParts({ 'word/media/image3.gif': plist }, settings)),
      /image3\.gif contains a DOCTYPE/,
      'a part of no declared type',
    );
  });
});

describe('ZIP writing', () => {
  it('writes archives that fflate and our reader read back exactly, markup deflated and media stored', () => {
    const parts: [string, Uint8Array][] = [
      ['[Content_Types].xml', strToU8('<Types/>'.repeat(100))],
      ['word/document.xml', strToU8('<w:p>héllo wörld</w:p>'.repeat(1000))],
      ['word/media/image1.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])],
      ['word/Überschrift ü.xml', strToU8('<x/>')],
      ['empty.xml', new Uint8Array(0)],
    ];
    const zip = writeZip(parts);
    const theirs = unzipSync(zip);
    const ours = readZip(zip);
    for (const [name, data] of parts) {
      assert.ok(Buffer.from(theirs[name]!).equals(Buffer.from(data)), `fflate: ${name}`);
      assert.ok(Buffer.from(ours.get(name)!).equals(Buffer.from(data)), `ours: ${name}`);
    }
    assert.ok(zip.length < 2000, `markup is compressed (${zip.length} bytes)`);
    assert.ok(zip.includes(Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])), 'media is stored as it is');
  });

  it('deflates media that is not compressed already, whatever its name, and stores media that is', () => {
    const flat = Buffer.alloc(8 * 1024 * 1024, 0x7f); // an uncompressed picture: 8 MB of one colour
    const noise = randomBytes(256 * 1024); // a real JPEG's entropy
    const zip = writeZip([
      ['word/media/image1.png', flat],
      ['word/media/image2.jpeg', noise],
      ['word/media/image3', flat],
    ]);
    assert.ok(zip.length < noise.length + 100_000, `${zip.length} bytes for 16 MB of flat pictures and 256 KB of noise`);
    assert.ok(zip.includes(noise), 'the incompressible picture is stored as it is');
    const back = unzipSync(zip);
    assert.ok(Buffer.from(back['word/media/image1.png']!).equals(flat));
    assert.ok(Buffer.from(back['word/media/image3']!).equals(flat));
  });
});
