import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { unzipSync } from 'fflate';
import { BLANK_PNG, inertDataUri, inertPicture, inertSvg, pictureKind } from '../../src/inert/pictures.js';
import { makeInert } from '../../src/inert/index.js';
import { png } from '../helpers/docx.js';
import { hostileDocuments, svgLinking, type Secrets } from '../helpers/hostile.js';

const secrets: Secrets = { dir: '/srv/data', png: '/srv/data/secret.png', txt: '/srv/data/secret.txt', html: '/srv/data/secret.html' };
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('pictures are judged by their bytes', () => {
  it('keeps formats that cannot name a file, byte for byte, whatever they are called', () => {
    const raster = png(4, 4, [1, 2, 3]);
    assert.equal(pictureKind(raster), 'inert');
    assert.equal(inertPicture(raster), raster);
    const emz = zlib.gzipSync(Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.alloc(36), Buffer.from(' EMF'), Buffer.alloc(60)]));
    assert.equal(inertPicture(emz), emz, 'a gzip-packed metafile (.emz) stays');
  });

  it('rewrites SVG without anything that loads, and keeps what draws', () => {
    const svg =
      '<?xml version="1.0"?><?xml-stylesheet href="file:///etc/x.css"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">' +
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xml:base="file:///etc/">' +
      '<defs><linearGradient id="g"><stop offset="0"/></linearGradient></defs>' +
      '<style>@import url(file:///etc/a.css); rect { fill: url(#g) } circle { fill: url("file:///etc/b.svg#x") }</style>' +
      '<rect width="10" height="10" style="fill:url(#g);stroke:u\\72l(file:///etc/c.png)" onload="alert(1)"/>' +
      '<use href="#g"/><use xlink:href="file:///etc/d.svg#shape"/><image href="/etc/passwd"/><image xlink:href=" FILE:///x.png"/>' +
      `<image href="data:image/png;base64,${png(2, 2, [9, 9, 9]).toString('base64')}"/>` +
      `<image href="data:image/svg+xml;base64,${svgLinking('/srv/data/secret.png').toString('base64')}"/>` +
      '<foreignObject><iframe src="file:///etc/passwd"/></foreignObject><script>x()</script>' +
      '<circle r="3" filter="url(file:///etc/f.svg#f)"/></svg>';
    const out = inertSvg(svg)!;
    assert.ok(out, 'an SVG with the standard DOCTYPE is read');
    assert.doesNotMatch(out, /file:|\/etc\/|@import|onload|script|foreignObject|DOCTYPE|xml-stylesheet|xml:base/i, out);
    assert.match(out, /<rect width="10" height="10" style="fill:url\(&quot;#g&quot;\);stroke:none"\/>/);
    assert.match(out, /<use href="#g"\/>/);
    assert.match(out, /linearGradient/);
    const nested = [...out.matchAll(/href="data:image\/svg\+xml;base64,([^"]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString());
    assert.equal(nested.length, 1, 'the nested SVG stays, made inert itself');
    assert.doesNotMatch(nested[0]!, /file:|secret/);
    assert.match(out, /href="data:image\/png;base64,/, 'a nested raster picture stays');
  });

  it('blanks what it cannot vouch for: entity declarations, other XML, unknown bytes, broken gzip', () => {
    assert.equal(inertPicture(Buffer.from('<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>')), BLANK_PNG);
    assert.equal(inertPicture(Buffer.from('<html><img src="file:///x"></html>')), BLANK_PNG);
    assert.equal(inertPicture(Buffer.from('%!PS-Adobe-3.0 EPSF-3.0\n(/etc/passwd) (r) file')), BLANK_PNG);
    assert.equal(inertPicture(Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3])), BLANK_PNG);
    assert.equal(inertPicture(zlib.gzipSync('plain text')), BLANK_PNG);
    // The blank shows nothing: one RGBA pixel, wholly transparent (it was a half-opaque blue one).
    const idat = BLANK_PNG.indexOf('IDAT');
    const pixels = zlib.inflateSync(BLANK_PNG.subarray(idat + 4, idat + 4 + BLANK_PNG.readUInt32BE(idat - 4)));
    assert.deepEqual([BLANK_PNG.readUInt32BE(16), BLANK_PNG.readUInt32BE(20), BLANK_PNG[25]], [1, 1, 6], '1 x 1, RGBA');
    assert.deepEqual([...pixels], [0, 0, 0, 0, 0], 'no filter, alpha 0');
  });

  it('unpacks gzip-packed SVG and UTF-16 SVG before judging', () => {
    const packed = text(inertPicture(zlib.gzipSync(svgLinking(secrets.png))));
    assert.match(packed, /^<\?xml[^>]*\?><svg/);
    assert.doesNotMatch(packed, /secret/);
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(svgLinking(secrets.png).toString().replace(' encoding="UTF-8"', ''), 'utf16le'),
    ]);
    assert.doesNotMatch(text(inertPicture(utf16)), /secret/);
  });

  it('writes data: pictures back as base64 after judging them', () => {
    const raster = png(2, 2, [1, 1, 1]);
    assert.equal(inertDataUri(`data:image/png;base64,${raster.toString('base64')}`), `data:image/png;base64,${raster.toString('base64')}`);
    assert.equal(
      inertDataUri('data:image/gif,%3Csvg%3E%3Cimage%20href%3D%22file%3A%2F%2F%2Fx%22%2F%3E%3C%2Fsvg%3E'),
      `data:image/svg+xml;base64,${Buffer.from('<svg><image/></svg>').toString('base64')}`,
    );
    assert.equal(inertDataUri('file:///etc/passwd'), undefined);
    assert.equal(inertDataUri('data:text/html,<b>x</b>'), undefined);
  });
});

describe("every format's pictures are judged", () => {
  const documents = hostileDocuments(secrets).filter((d) => /SVG/.test(d.name));

  it('no hostile SVG keeps a path, and each is still a picture', () => {
    assert.ok(documents.length >= 9);
    for (const document of documents) {
      const out = makeInert(document.bytes, document.format);
      const all =
        document.format === 'docx'
          ? Object.values(unzipSync(out))
              .map((part) => (part[0] === 0x1f ? zlib.gunzipSync(part) : Buffer.from(part)).toString('latin1'))
              .join('\n')
          : out.toString('latin1');
      const decoded =
        all +
        [...all.matchAll(/base64,([A-Za-z0-9+/=]+)/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('latin1')).join('') +
        [...all.matchAll(/\b([0-9a-f]{200,})\b/g)].map((m) => Buffer.from(m[1]!, 'hex').toString('latin1')).join('');
      assert.doesNotMatch(decoded, /secret\.png/, document.name);
      assert.match(decoded, /<svg|<rect/, `${document.name}: the SVG itself stays`);
    }
  });

  it('leaves an RTF picture that is a real PNG byte for byte', () => {
    const rtf = Buffer.from(`{\\rtf1\\ansi {\\pict\\pngblip\\picw2\\pich2 ${png(2, 2, [1, 2, 3]).toString('hex')}}\\par}`);
    assert.equal(makeInert(rtf, 'rtf'), rtf);
  });
});
