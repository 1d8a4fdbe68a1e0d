/**
 * Append benchmark, in one run on this machine:
 *  1. 50 copies of construction_turk.docx (two images each): docsmith's builder against the same
 *     append done by LibreOffice (insertDocumentFromURL over UNO): time and output size ratios;
 *  2. a 1,000-record merge with append=true to PDF: total time and peak memory.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { unzipSync } from 'fflate';
import { DocumentBuilder } from '../src/compose/builder.js';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../src/merge/engine.js';
import { Converter } from '../src/convert/converter.js';
import { fixture, tempDir } from '../test/helpers/server.js';
import { pdfFacts, testPool } from '../test/helpers/office.js';

const COPIES = 50;

async function versusOffice(): Promise<void> {
  console.log(`\n1. appending ${COPIES} copies of construction_turk.docx`);
  const input = fixture('construction_turk.docx');
  const started = performance.now();
  const builder = new DocumentBuilder(input);
  for (let i = 1; i < COPIES; i++) builder.append(input, 'section');
  const ours = builder.toBuffer();
  const oursMs = performance.now() - started;

  const dir = tempDir();
  const files = Array.from({ length: COPIES }, (_, i) => {
    const file = path.join(dir, `copy${i}.docx`);
    fs.writeFileSync(file, input);
    return file;
  });
  const output = path.join(dir, 'office.docx');
  // LibreOffice's own join runs in a script of the benchmark's (bench/libreoffice-append.py), not in the service's bridge.
  const joined = spawnSync(
    '/usr/bin/python3',
    [path.join(path.dirname(fileURLToPath(import.meta.url)), 'libreoffice-append.py'), output, ...files],
    {
      encoding: 'utf8',
      timeout: 600_000,
    },
  );
  if (joined.status !== 0) throw new Error(`LibreOffice's join failed: ${joined.stderr}`);
  const officeMs = Number(joined.stdout.trim().split('\n').pop());
  const theirs = fs.readFileSync(output);
  const media = (b: Buffer) => Object.keys(unzipSync(b)).filter((n) => n.startsWith('word/media/')).length;
  console.log(`  docsmith ${oursMs.toFixed(0)} ms, ${(ours.length / 1024).toFixed(0)} KB, ${media(ours)} media parts`);
  console.log(
    `  LibreOffice (insertDocumentFromURL) ${officeMs.toFixed(0)} ms, ${(theirs.length / 1024).toFixed(0)} KB, ${media(theirs)} media parts`,
  );
  console.log(
    `  docsmith is ${(officeMs / oursMs).toFixed(1)}x faster; output size ratio ${(ours.length / theirs.length).toFixed(2)} (docsmith / LibreOffice)`,
  );
}

async function thousandRecords(): Promise<void> {
  console.log('\n2. a 1,000-record merge with append=true to PDF');
  const template = CompiledTemplate.compile(fixture('test_template.docx'));
  const records = Array.from({ length: 1000 }, (_, i) => ({ name: `Person ${i + 1}`, age: 20 + (i % 50) }));
  const pool = testPool({ size: 1, processingLimitMs: 600_000 });
  await pool.start();
  try {
    const started = performance.now();
    const [docx] = template.merge(records, DEFAULT_MERGE_OPTIONS, true);
    const mergeMs = performance.now() - started;
    const { data: pdf } = await new Converter(pool).convert(docx!, 'docx', 'pdf');
    const totalMs = performance.now() - started;
    console.log(
      `  merge and join ${(mergeMs / 1000).toFixed(1)} s, to PDF ${((totalMs - mergeMs) / 1000).toFixed(1)} s, total ${(totalMs / 1000).toFixed(1)} s (limit 60 s); ${pdfFacts(pdf).pages} pages; process peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
  } finally {
    await pool.close();
  }
}

await versusOffice();
await thousandRecords();
