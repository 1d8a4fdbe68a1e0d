import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import CFB from 'cfb';
import { zipSync, strToU8, unzipSync } from 'fflate';
import * as mupdf from 'mupdf';
import { mapFieldTypes } from '../../src/inert/doc.js';
import { FIXTURES, tempDir } from './server.js';
import { png } from './docx.js';
import { pdfFacts } from './office.js';

/** A colour no document of ours uses: finding it on a page means the secret picture was read. */
export const SECRET_RGB = [13, 201, 87] as const;
export const SECRET_TEXT = 'SECRET-7f3a-DO-NOT-LEAK';

export interface Secrets {
  dir: string;
  png: string;
  txt: string;
  html: string;
}

/** Files a hostile document tries to read: a picture, a text and an HTML file. */
export function plantSecrets(dir: string): Secrets {
  fs.mkdirSync(dir, { recursive: true });
  const secrets = { dir, png: path.join(dir, 'secret.png'), txt: path.join(dir, 'secret.txt'), html: path.join(dir, 'secret.html') };
  fs.writeFileSync(secrets.png, png(240, 180, [...SECRET_RGB]));
  fs.writeFileSync(secrets.txt, `${SECRET_TEXT}\n`);
  fs.writeFileSync(secrets.html, `<html><body><p>${SECRET_TEXT}</p></body></html>`);
  return secrets;
}

export interface Hostile {
  name: string;
  format: 'rtf' | 'docx' | 'doc' | 'html';
  bytes: Buffer;
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A DOCX from a body and extra package parts; `rels` are added to the main document's relationships. */
export function docx(
  body: string,
  options: { rels?: string; parts?: Record<string, string | Buffer>; types?: string; rootAttrs?: string; settings?: string } = {},
): Buffer {
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Default Extension="png" ContentType="image/png"/><Default Extension="html" ContentType="text/html"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        (options.settings
          ? '<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>'
          : '') +
        `${options.types ?? ''}</Types>`,
    ),
    '_rels/.rels': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/></Relationships>`,
    ),
    'word/document.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="${R}" ${options.rootAttrs ?? ''}><w:body>${body}<w:p><w:r><w:t>MARK</w:t></w:r></w:p></w:body></w:document>`,
    ),
    'word/_rels/document.xml.rels': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${options.rels ?? ''}${options.settings ? `<Relationship Id="rIdS" Type="${R}/settings" Target="settings.xml"/>` : ''}</Relationships>`,
    ),
  };
  if (options.settings)
    files['word/settings.xml'] = strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:settings xmlns:w="${W}" xmlns:r="${R}">${options.settings}</w:settings>`,
    );
  for (const [name, data] of Object.entries(options.parts ?? {})) files[name] = typeof data === 'string' ? strToU8(data) : data;
  return Buffer.from(zipSync(files));
}

const complexField = (instruction: string[]) =>
  `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>${instruction.map((part) => `<w:r><w:instrText xml:space="preserve">${part}</w:instrText></w:r>`).join('')}` +
  '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>old result</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>';

function hexEscaped(text: string): string {
  return [...text].map((c) => `\\'${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
}

/** An SVG picture that shows a local file through `<image href>` (the office follows it). */
export function svgLinking(file: string, options: { xlink?: boolean } = {}): Buffer {
  const ref = options.xlink === false ? `href="file://${file}"` : `xlink:href="file://${file}"`;
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="240" height="180" viewBox="0 0 240 180"><rect width="240" height="180" fill="#ffffff"/><image ${ref} x="0" y="0" width="240" height="180"/></svg>`,
  );
}

/** A DOCX showing the part `word/<target>` as an inline picture. */
function docxPicture(target: string, bytes: Buffer): Buffer {
  const drawing =
    '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="2286000" cy="1714500"/><wp:docPr id="1" name="p"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdP"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="2286000" cy="1714500"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
  return docx(drawing, { rels: `<Relationship Id="rIdP" Type="${R}/image" Target="${target}"/>`, parts: { [`word/${target}`]: bytes } });
}

/** Documents in every input format that try to pull the secret files in. */
export function hostileDocuments(s: Secrets): Hostile[] {
  const url = (file: string) => `file://${file}`;
  const list: Hostile[] = [
    {
      name: 'rtf INCLUDEPICTURE',
      format: 'rtf',
      bytes: Buffer.from(`{\\rtf1\\ansi {\\field{\\*\\fldinst INCLUDEPICTURE "${s.png}"}{\\fldrslt x}}\\par MARK}`),
    },
    {
      name: 'rtf INCLUDEPICTURE \\d split over groups',
      format: 'rtf',
      bytes: Buffer.from(`{\\rtf1\\ansi {\\field{\\*\\fldinst {\\b INCLUDE}{PICTURE  "${s.png}" \\\\d}}{\\fldrslt x}}\\par MARK}`),
    },
    {
      name: 'rtf INCLUDEPICTURE hex-escaped',
      format: 'rtf',
      bytes: Buffer.from(`{\\rtf1\\ansi {\\field{\\*\\fldinst ${hexEscaped('INCLUDEPICTURE')} "${s.png}"}{\\fldrslt x}}\\par MARK}`),
    },
    {
      name: 'rtf lower-case includepicture with URL',
      format: 'rtf',
      bytes: Buffer.from(`{\\rtf1\\ansi {\\field{\\*\\fldinst includepicture "${url(s.png)}"}{\\fldrslt x}}\\par MARK}`),
    },
    {
      name: 'rtf INCLUDETEXT',
      format: 'rtf',
      bytes: Buffer.from(`{\\rtf1\\ansi {\\field{\\*\\fldinst INCLUDETEXT "${s.txt}"}{\\fldrslt x}}\\par MARK}`),
    },
    { name: 'docx INCLUDEPICTURE split over runs', format: 'docx', bytes: docx(complexField(['INCLUDE', `PICTURE "${s.png}" \\d`])) },
    {
      name: 'docx INCLUDEPICTURE with another prefix and entities',
      format: 'docx',
      bytes: docx(
        `<x:p xmlns:x="${W}"><x:r><x:fldChar x:fldCharType="begin"/></x:r><x:r><x:instrText>&#73;NCLUDEPICTURE "${s.png}"</x:instrText></x:r><x:r><x:fldChar x:fldCharType="end"/></x:r></x:p>`,
      ),
    },
    {
      name: 'docx fldSimple INCLUDEPICTURE',
      format: 'docx',
      bytes: docx(`<w:p><w:fldSimple w:instr=" INCLUDEPICTURE &quot;${s.png}&quot; "><w:r><w:t>x</w:t></w:r></w:fldSimple></w:p>`),
    },
    { name: 'docx INCLUDETEXT', format: 'docx', bytes: docx(complexField([`INCLUDETEXT "${s.txt}"`])) },
    {
      name: 'docx linked picture (external relationship)',
      format: 'docx',
      bytes: docx(
        `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="2286000" cy="1714500"/><wp:docPr id="1" name="p"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rIdL"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="2286000" cy="1714500"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`,
        { rels: `<Relationship Id="rIdL" Type="${R}/image" Target="${url(s.png)}" TargetMode="External"/>` },
      ),
    },
    {
      name: 'docx VML image data src',
      format: 'docx',
      bytes: docx(
        `<w:p><w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml" style="width:180pt;height:135pt"><v:imagedata src="${url(s.png)}"/></v:shape></w:pict></w:r></w:p>`,
      ),
    },
    {
      name: 'docx altChunk HTML with an image',
      format: 'docx',
      bytes: docx('<w:altChunk r:id="rIdA"/>', {
        rels: `<Relationship Id="rIdA" Type="${R}/aFChunk" Target="chunk.html"/>`,
        parts: { 'word/chunk.html': `<html><body><p>chunk</p><img src="${url(s.png)}" width="240" height="180"></body></html>` },
        types: '<Override PartName="/word/chunk.html" ContentType="text/html"/>',
      }),
    },
    {
      name: 'html img',
      format: 'html',
      bytes: Buffer.from(`<!DOCTYPE html><html><body><p>MARK</p><img src="${url(s.png)}" width="240" height="180"></body></html>`),
    },
    {
      name: 'html img/src without quotes',
      format: 'html',
      bytes: Buffer.from(`<html><body><p>MARK</p><img/src=${s.png} width=240 height=180></body></html>`),
    },
    {
      name: 'html entity-encoded src and CSS background',
      format: 'html',
      bytes: Buffer.from(
        `<html><body><p>MARK</p><img src="&#x66;ile://${s.png}" width="240" height="180"><div style="width:240px;height:180px;background:u\\72l(${url(s.png)})">x</div></body></html>`,
      ),
    },
    {
      name: 'html data: SVG picture linking a file',
      format: 'html',
      bytes: Buffer.from(
        `<html><body><p>MARK</p><img src="data:image/svg+xml;base64,${svgLinking(s.png).toString('base64')}" width="240" height="180"></body></html>`,
      ),
    },
    {
      name: 'html data: SVG under image/png, percent-encoded',
      format: 'html',
      bytes: Buffer.from(
        `<html><body><p>MARK</p><img src="data:image/png,${encodeURIComponent(svgLinking(s.png, { xlink: false }).toString())}" width="240" height="180"></body></html>`,
      ),
    },
    {
      name: 'html body background SVG',
      format: 'html',
      bytes: Buffer.from(
        `<html><body background="data:image/svg+xml;base64,${svgLinking(s.png).toString('base64')}"><p>MARK</p><p style="height:200px">x</p></body></html>`,
      ),
    },
    {
      name: 'html CSS background SVG',
      format: 'html',
      bytes: Buffer.from(
        `<html><body><p>MARK</p><div style="width:240px;height:180px;background-image:url('data:image/svg+xml;base64,${svgLinking(s.png).toString('base64')}')">x</div></body></html>`,
      ),
    },
    { name: 'docx SVG picture under a .png name', format: 'docx', bytes: docxPicture('media/image1.png', svgLinking(s.png)) },
    { name: 'docx SVG picture without an extension', format: 'docx', bytes: docxPicture('media/image1', svgLinking(s.png)) },
    {
      name: 'docx gzip-packed SVG picture outside media',
      format: 'docx',
      bytes: docxPicture('pictures/p.bin', zlib.gzipSync(svgLinking(s.png))),
    },
    {
      name: 'docx SVG picture in an .xml part',
      format: 'docx',
      bytes: docxPicture(
        'pic.xml',
        Buffer.from(svgLinking(s.png).toString().replace('<rect', '<style>image{fill:url(file:///x)}</style><rect')),
      ),
    },
    {
      name: 'rtf \\pngblip holding an SVG',
      format: 'rtf',
      bytes: Buffer.from(
        `{\\rtf1\\ansi MARK\\par {\\pict\\pngblip\\picw240\\pich180\\picwgoal3600\\pichgoal2700 ${svgLinking(s.png).toString('hex')}}\\par}`,
      ),
    },
    {
      name: 'rtf \\jpegblip holding an SVG as \\bin data',
      format: 'rtf',
      bytes: Buffer.concat([
        Buffer.from(
          '{\\rtf1\\ansi MARK\\par {\\*\\shppict{\\pict{\\*\\picprop{\\sp{\\sn fLine}{\\sv 0}}}\\jpegblip\\picwgoal3600\\pichgoal2700\\bin' +
            svgLinking(s.png).length +
            ' ',
        ),
        svgLinking(s.png),
        Buffer.from('}}\\par}'),
      ]),
    },
    {
      name: 'html iframe and object',
      format: 'html',
      bytes: Buffer.from(
        `<html><body><p>MARK</p><iframe src="${url(s.html)}"></iframe><object data="${url(s.html)}"></object></body></html>`,
      ),
    },
  ];
  return list;
}

/** The hostile documents of every format, the Word 97 ones included (made with the office). */
export function everyHostileDocument(s: Secrets): Hostile[] {
  return [...hostileDocuments(s), ...hostileDocs(s)];
}

/** What of the secrets a PDF shows, or undefined. */
export function leaked(pdf: Uint8Array): string | undefined {
  if (secretShareInPdf(pdf) > 0) return 'the secret picture is on a page';
  if (pdfText(pdf).includes(SECRET_TEXT)) return 'the secret text is on a page';
  return undefined;
}

/**
 * Word 97-2003 documents made by the office, then turned hostile in place:
 * - an INCLUDEPICTURE field linking the secret picture. LibreOffice does not write such a field
 *   itself, so a MERGEFIELD with room for the path is written and then turned into
 *   INCLUDEPICTURE: its text in place, and its type (0x3B -> 0x43) in the field table;
 * - a picture (a PNG record in the Data stream) whose bytes are swapped for an SVG linking the
 *   secret: plain, gzip-packed, and deflated in a metafile record;
 * - the picture's PICF header turned into "a file, not embedded" naming the secret picture.
 */
export function hostileDocs(s: Secrets, soffice = '/usr/lib/libreoffice/program/soffice'): Hostile[] {
  const work = tempDir('docsmith-hostile-doc-');
  const placeholder = `MERGEFIELD ${'A'.repeat(Math.max(60, s.png.length + 24))}`;
  fs.writeFileSync(path.join(work, 'field.rtf'), `{\\rtf1\\ansi {\\field{\\*\\fldinst ${placeholder}}{\\fldrslt x}}\\par MARK}`);
  fs.writeFileSync(
    path.join(work, 'picture.html'),
    `<html><body><p>MARK</p><p><img src="data:image/png;base64,${paddedPng().toString('base64')}" width="240" height="180"></p></body></html>`,
  );
  execFileSync(
    soffice,
    [
      `-env:UserInstallation=file://${path.join(work, 'profile')}`,
      '--headless',
      '--convert-to',
      'doc:MS Word 97',
      '--outdir',
      work,
      path.join(work, 'field.rtf'),
      path.join(work, 'picture.html'),
    ],
    { stdio: 'ignore', timeout: 120_000 },
  );
  const field = fs.readFileSync(path.join(work, 'field.doc'));
  const picture = fs.readFileSync(path.join(work, 'picture.doc'));
  fs.rmSync(work, { recursive: true, force: true });

  const from = Buffer.from(placeholder, 'utf16le');
  const at = field.indexOf(from);
  if (at < 0) throw new Error('the placeholder field was not found in the DOC');
  Buffer.from(`INCLUDEPICTURE "${s.png}" \\d`.padEnd(placeholder.length), 'utf16le').copy(field, at);
  const container = CFB.read(field, { type: 'buffer' });
  if (!mapFieldTypes(container, (flt) => (flt === 0x3b ? 0x43 : flt))) throw new Error('no field type to change');
  const svg = svgLinking(s.png);
  return [
    { name: 'doc INCLUDEPICTURE', format: 'doc', bytes: Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array) },
    { name: 'doc SVG behind a PNG picture', format: 'doc', bytes: withDocPicture(picture, (data) => svg.copy(data.fill(0x20))) },
    {
      name: 'doc gzip-packed SVG behind a PNG picture',
      format: 'doc',
      bytes: withDocPicture(picture, (data) => zlib.gzipSync(svg).copy(data.fill(0))),
    },
    {
      name: 'doc SVG deflated in a metafile picture',
      format: 'doc',
      bytes: withDocPicture(picture, (data, record) => {
        record.writeUInt16LE(0x2160, 0); // a WMF record: a metafile header, then deflated data
        zlib.deflateSync(svg).copy(data.fill(0), 16 + 34 - 17);
      }),
    },
    {
      name: 'doc picture linked by its PICF header',
      format: 'doc',
      bytes: withDocData(picture, (stream) => {
        const picf = stream.indexOf(Buffer.from([0x44, 0x00, 0x64, 0x00])) - 4;
        if (picf < 0) throw new Error('no PICF in the DOC');
        stream.writeUInt16LE(94, picf + 6); // "a BMP or GIF file, not embedded", named after the header
        const name = Buffer.from(s.png, 'latin1');
        stream[picf + 0x44] = name.length;
        name.copy(stream, picf + 0x45);
      }),
    },
  ];
}

/** A PNG of 240x180 in a colour of no secret, with a text chunk that leaves room for an SVG in its place. */
function paddedPng(): Buffer {
  const plain = png(240, 180, [40, 60, 200]);
  const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), Buffer.alloc(4096, 0x2e)]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return Buffer.concat([plain.subarray(0, 33), chunk, plain.subarray(33)]); // after the signature and IHDR
}

/** The DOC with its Data stream changed by `change`. */
function withDocData(doc: Buffer, change: (stream: Buffer) => void): Buffer {
  const container = CFB.read(doc, { type: 'buffer' });
  const entry = container.FileIndex.find((e) => e.name === 'Data');
  if (!entry?.content) throw new Error('the DOC has no Data stream');
  const stream = Buffer.from(entry.content as Uint8Array);
  change(stream);
  entry.content = stream;
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/** The DOC with the data of its PNG picture record (after its tag byte) and the record itself given to `change`. */
function withDocPicture(doc: Buffer, change: (data: Buffer, record: Buffer) => void): Buffer {
  return withDocData(doc, (stream) => {
    const at = stream.indexOf(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    if (at < 0) throw new Error('the PNG picture was not found in the DOC');
    const record = stream.subarray(at - 17 - 8);
    change(stream.subarray(at, at - 17 + record.readUInt32LE(4)), record);
  });
}

/** Converts with a plain, unprotected LibreOffice: shows that a document really is hostile. */
export function unprotectedPdf(bytes: Buffer, extension: string, soffice = '/usr/lib/libreoffice/program/soffice'): Buffer {
  return unprotectedPdfs([{ bytes, extension }], soffice)[0]!;
}

/** Several documents through one plain LibreOffice (one start: a start per document took minutes on a busy machine). */
export function unprotectedPdfs(
  documents: { bytes: Buffer; extension: string }[],
  soffice = '/usr/lib/libreoffice/program/soffice',
): Buffer[] {
  const work = tempDir('docsmith-unprotected-');
  const inputs = documents.map((d, i) => {
    const file = path.join(work, `in${i}.${d.extension}`);
    fs.writeFileSync(file, d.bytes);
    return file;
  });
  execFileSync(
    soffice,
    [`-env:UserInstallation=file://${path.join(work, 'profile')}`, '--headless', '--convert-to', 'pdf', '--outdir', work, ...inputs],
    {
      stdio: 'ignore',
      timeout: 600_000,
    },
  );
  const pdfs = documents.map((_, i) => fs.readFileSync(path.join(work, `in${i}.pdf`)));
  fs.rmSync(work, { recursive: true, force: true });
  return pdfs;
}

/** Pixels of the secret colour in a pixmap, and all its pixels. */
function secretPixels(pix: mupdf.Pixmap): { hits: number; total: number } {
  const s = pix.getPixels();
  const n = pix.getNumberOfComponents() + (pix.getAlpha() ? 1 : 0);
  let hits = 0;
  for (let i = 0; i < s.length; i += n) {
    if (Math.abs(s[i]! - SECRET_RGB[0]) < 8 && Math.abs(s[i + 1]! - SECRET_RGB[1]) < 8 && Math.abs(s[i + 2]! - SECRET_RGB[2]) < 8) hits++;
  }
  return { hits, total: s.length / n };
}

/** Share of pixels of the secret colour over all pages of a PDF (0 when the picture was not read). */
export function secretShareInPdf(pdf: Uint8Array): number {
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  let hits = 0;
  let total = 0;
  for (let p = 0; p < doc.countPages(); p++) {
    const counted = secretPixels(doc.loadPage(p).toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceRGB, false, true));
    hits += counted.hits;
    total += counted.total;
  }
  return total ? hits / total : 0;
}

/** Share of pixels of the secret colour in a PNG page image. */
export function secretShareInPng(image: Uint8Array): number {
  const { hits, total } = secretPixels(new mupdf.Image(image).toPixmap());
  return hits / total;
}

/** The text of every page of a PDF. */
export function pdfText(pdf: Uint8Array): string {
  return pdfFacts(pdf).text;
}

/**
 * A ZIP written by hand, so its headers can lie: each entry's declared size may differ from
 * what it really inflates to.
 */
export function handmadeZip(entries: { name: string; deflated: Buffer; declared: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(entry.deflated.length, 18);
    local.writeUInt32LE(entry.declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(entry.deflated.length, 20);
    central.writeUInt32LE(entry.declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    const localPart = Buffer.concat([local, name, entry.deflated]);
    locals.push(localPart);
    centrals.push(Buffer.concat([central, name]));
    offset += localPart.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, central, end]);
}

/**
 * A DOCX whose part `name` inflates to `inflated` bytes of zeros while its headers declare
 * `declared` bytes: the falsified-size zip bomb. The other parts are those of a real DOCX.
 */
export function zipBomb(name: string, inflated: number, declared = 1000): Buffer {
  const real = unzipSync(docx(''));
  const entries = Object.entries(real)
    .filter(([n]) => n !== name)
    .map(([n, data]) => ({ name: n, deflated: zlib.deflateRawSync(data), declared: data.length }));
  entries.push({ name, deflated: zlib.deflateRawSync(Buffer.alloc(inflated), { level: 9 }), declared });
  return handmadeZip(entries);
}

/**
 * A minimal Word 6.0 (nFib 101) or Word 95 (nFib 104) document: a fixed FIB, 8-bit text, and,
 * when `field` is given, one field whose table (plcffldMom, FIB offset 0xD8) LibreOffice reads.
 */
export function legacyWordDoc(text: string, options: { nFib?: 101 | 104; field?: { instruction: string; flt: number } } = {}): Buffer {
  const field = options.field;
  const parts = field
    ? [
        Buffer.from(text, 'latin1'),
        Buffer.from([0x13]),
        Buffer.from(` ${field.instruction} `, 'latin1'),
        Buffer.from([0x14]),
        Buffer.from('old', 'latin1'),
        Buffer.from([0x15]),
        Buffer.from('\r', 'latin1'),
      ]
    : [Buffer.from(`${text}\r`, 'latin1')];
  const body = Buffer.concat(parts);
  const fibSize = 0x200;
  const plc = field ? Buffer.alloc(4 * 4 + 3 * 2) : Buffer.alloc(0);
  if (field) {
    const begin = parts[0]!.length;
    const separator = begin + 1 + parts[2]!.length;
    const end = separator + 1 + parts[4]!.length;
    [begin, separator, end, body.length].forEach((cp, i) => plc.writeUInt32LE(cp, i * 4));
    plc.set([0x13, field.flt, 0x14, 0xff, 0x15, 0x80], 16);
  }
  const word = Buffer.alloc(fibSize + body.length + plc.length + 0x100);
  word.writeUInt16LE(0xa5dc, 0x00); // wIdent
  word.writeUInt16LE(options.nFib ?? 101, 0x02);
  word.writeUInt16LE(0x0409, 0x06); // lid: English
  word.writeUInt32LE(fibSize, 0x18); // fcMin
  word.writeUInt32LE(fibSize + body.length, 0x1c); // fcMac
  word.writeUInt32LE(word.length, 0x20); // cbMac
  word.writeUInt32LE(body.length, 0x34); // ccpText
  body.copy(word, fibSize);
  if (field) {
    plc.copy(word, fibSize + body.length);
    word.writeUInt32LE(fibSize + body.length, 0xd8);
    word.writeUInt32LE(plc.length, 0xdc);
  }
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, '/WordDocument', word);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/** The SDK's PDF with its cross-reference offset and a byte of every 3 KB broken: readable, with many reader warnings. */
export function damagedPdf(): Buffer {
  const pdf = Buffer.from(fs.readFileSync(path.join(FIXTURES, 'resource', 'maelzel_machine.pdf')));
  pdf.write('999999', pdf.lastIndexOf('startxref') + 10, 'latin1');
  for (let at = 2000; at < pdf.length - 2000; at += 3001) pdf[at] = 0x20;
  return pdf;
}

/** A PDF of these objects (1 0 obj is the catalog), with its cross-reference table and trailer. */
export function pdfOfObjects(objects: string[]): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  return Buffer.from(`${out}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`, 'latin1');
}

/** A well-formed PDF whose page tree holds no page: nothing a reader can show. */
export function pagelessPdf(): Buffer {
  return pdfOfObjects(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>']);
}
