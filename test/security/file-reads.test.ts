import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { Converter } from '../../src/convert/converter.js';
import type { OfficePool } from '../../src/office/pool.js';
import { confiningSandboxes } from '../../src/office/sandbox.js';
import { inertForOffice, makeInert } from '../../src/inert/index.js';
import { DocumentWorkers } from '../../src/workers/pool.js';
import { DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { unzipSync } from 'fflate';
import { testPool } from '../helpers/office.js';
import { tempDir } from '../helpers/server.js';
import { DOCX_IMPORT_FILTER } from '../../src/office/filters.js';
import {
  everyHostileDocument,
  leaked,
  pdfText,
  plantSecrets,
  secretShareInPdf,
  unprotectedPdfs,
  type Hostile,
  type Secrets,
} from '../helpers/hostile.js';
import { Records } from '../../src/merge/records.js';

const EXTENSIONS = { rtf: 'rtf', docx: 'docx', doc: 'doc', html: 'html' } as const;
const INPUT_FILTERS = { rtf: 'Rich Text Format', docx: DOCX_IMPORT_FILTER, doc: 'MS Word 97', html: 'HTML (StarWriter)' } as const;

/** The documents that a plain LibreOffice really lets read the secret picture (checked below). */
const KNOWN_HOSTILE = [
  'rtf INCLUDEPICTURE',
  'docx linked picture (external relationship)',
  'html img',
  'html img/src without quotes',
  'html entity-encoded src and CSS background',
  'doc INCLUDEPICTURE',
  'doc SVG behind a PNG picture',
  'doc SVG deflated in a metafile picture',
  'doc picture linked by its PICF header',
  // SVG pictures follow `<image href="file:...">`, whatever the picture is called or declared as.
  'html data: SVG picture linking a file',
  'html data: SVG under image/png, percent-encoded',
  'html body background SVG',
  'docx SVG picture under a .png name',
  'docx SVG picture without an extension',
  'docx gzip-packed SVG picture outside media',
  'docx SVG picture in an .xml part',
  'rtf \\pngblip holding an SVG',
  'rtf \\jpegblip holding an SVG as \\bin data',
];

let secrets: Secrets;
let documents: Hostile[];

before(() => {
  secrets = plantSecrets(tempDir('docsmith-secrets-'));
  documents = everyHostileDocument(secrets);
});

describe('hostile documents: the attack is real', () => {
  it('a plain LibreOffice shows the secret picture for each known-hostile document', () => {
    const hostile = KNOWN_HOSTILE.map((name) => documents.find((d) => d.name === name)!);
    const pdfs = unprotectedPdfs(hostile.map((d) => ({ bytes: d.bytes, extension: EXTENSIONS[d.format] })));
    pdfs.forEach((pdf, i) =>
      assert.ok(secretShareInPdf(pdf) > 0.01, `${KNOWN_HOSTILE[i]}: expected the unprotected office to read the file`),
    );
  });
});

describe('first line: documents are made inert before the office sees them (no sandbox)', () => {
  let pool: OfficePool;
  let converter: Converter;
  before(async () => {
    pool = testPool({ size: 1 }, 'off');
    await pool.start();
    converter = new Converter(pool);
  });
  after(() => pool.close());

  it('reads nothing from outside for any hostile document', async () => {
    for (const document of documents) {
      const pdf = (await converter.convert(document.bytes, document.format, 'pdf')).data;
      assert.equal(leaked(pdf), undefined, document.name);
      assert.ok(pdfText(pdf).includes('MARK'), `${document.name}: the rest of the document is still there`);
    }
  });
});

for (const kind of ['bubblewrap', 'landlock'] as const) {
  describe(
    `second line: the office sandbox, ${kind} (documents not made inert)`,
    { skip: !confiningSandboxes().includes(kind) && `${kind} cannot run on this machine` },
    () => {
      let pool: OfficePool;
      before(async () => {
        pool = testPool({ size: 1 }, kind);
        await pool.start();
      });
      after(() => pool.close());

      it('the sandboxed office cannot read the files the raw documents link', async () => {
        const work = tempDir();
        for (const name of KNOWN_HOSTILE) {
          const document = documents.find((d) => d.name === name)!;
          const input = path.join(work, `in.${EXTENSIONS[document.format]}`);
          const output = path.join(work, 'out.pdf');
          fs.writeFileSync(input, document.bytes);
          await pool.run({ input, output, filter: 'writer_pdf_Export', inputFilter: INPUT_FILTERS[document.format] });
          const pdf = fs.readFileSync(output);
          assert.equal(leaked(pdf), undefined, name);
          assert.ok(pdfText(pdf).includes('MARK'), `${name}: the office did convert the document`);
        }
      });

      it('is what the office runs in', () => {
        assert.equal(pool.status().sandbox, kind);
      });
    },
  );
}

describe('making inert keeps what is harmless', () => {
  it('returns documents without links unchanged, byte for byte', () => {
    const plainRtf = Buffer.from('{\\rtf1\\ansi {\\field{\\*\\fldinst MERGEFIELD name}{\\fldrslt x}}\\par}');
    assert.equal(makeInert(plainRtf, 'rtf'), plainRtf);
  });
});

describe('the first line runs in worker threads on the server', () => {
  let workers: DocumentWorkers;
  before(() => {
    workers = new DocumentWorkers(1);
  });
  after(() => workers.close());

  it("makes documents inert in a worker exactly as in-process, and merge results bound for the office in the merge's thread", async () => {
    for (const document of documents) {
      const here = makeInert(document.bytes, document.format);
      const there = await workers.inert(document.bytes, document.format);
      assert.ok(there.bytes.equals(here), document.name);
      assert.deepEqual(there, inertForOffice(document.bytes, document.format), `${document.name}: the same facts`);
    }
    const template = documents.find((d) => d.name === 'docx INCLUDEPICTURE split over runs')!.bytes;
    const body = (docx: Buffer) => Buffer.from(unzipSync(docx)['word/document.xml']!).toString('utf8');
    const merge = async (inert: boolean) =>
      (await workers.merge({ docx: template, records: Records.of([{}]), options: DEFAULT_MERGE_OPTIONS, append: true, inert })).documents;
    assert.match(body((await merge(false))[0]!), /PICTURE/, 'the merge itself keeps the field');
    assert.doesNotMatch(
      body((await merge(true))[0]!),
      new RegExp(secrets.png.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      'a result bound for the office is made inert',
    );
  });
});
