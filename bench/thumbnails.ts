/**
 * Thumbnail benchmark, in one run on this machine:
 *  1. all pages of a 25-page PDF at zoom 100 (96 dpi) to PNG: docsmith (MuPDF in worker threads)
 *     against `pdftoppm -png -r 96` (poppler-utils);
 *  2. /v1/templates/thumbnails of a stored one-page template: first call against a cached call.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DocumentWorkers } from '../src/workers/pool.js';
import { Converter } from '../src/convert/converter.js';
import { docx, p, run } from '../test/helpers/docx.js';
import { testPool } from '../test/helpers/office.js';
import { tempDir } from '../test/helpers/server.js';
import { benchServer, median } from './support.js';

async function versusPdftoppm(): Promise<void> {
  console.log('\n1. all 25 pages of a PDF at 96 dpi to PNG');
  const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
  const body = Array.from({ length: 25 }, (_, i) => p(run(`Page ${i + 1}. ${text}`))).join(pageBreak);
  const pool = testPool({ size: 1 });
  await pool.start();
  const pdf = (await new Converter(pool).convert(docx(body), 'docx', 'pdf')).data;
  await pool.close();
  const dir = tempDir();
  const file = path.join(dir, 'doc.pdf');
  fs.writeFileSync(file, pdf);
  const renderer = new DocumentWorkers(os.cpus().length);
  const pages = Array.from({ length: 25 }, (_, i) => i);
  const ours = async () => {
    // Split over the workers, as a request for many pages is.
    const chunks = Array.from({ length: os.cpus().length }, (_, w) => pages.filter((x) => x % os.cpus().length === w));
    await Promise.all(chunks.map((chunk) => renderer.renderPages({ pdf, pages: chunk, scale: 96 / 72, format: 'png' })));
  };
  await ours();
  const oursTimes: number[] = [];
  const theirTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    await ours();
    oursTimes.push(performance.now() - t);
    t = performance.now();
    const r = spawnSync('pdftoppm', ['-png', '-r', '96', file, path.join(dir, 'page')]);
    if (r.status !== 0) throw new Error('pdftoppm failed; install poppler-utils');
    theirTimes.push(performance.now() - t);
  }
  await renderer.close();
  console.log(
    `  docsmith ${median(oursTimes).toFixed(0)} ms, pdftoppm ${median(theirTimes).toFixed(0)} ms: docsmith is ${(median(theirTimes) / median(oursTimes)).toFixed(1)}x faster`,
  );
}

async function templateCache(): Promise<void> {
  console.log('\n2. /v1/templates/thumbnails of a stored one-page template');
  const server = await benchServer({ DOCSMITH_OFFICE_PROCESSES: '1' });
  const { authorization } = server;
  try {
    const get = async () => {
      const t = performance.now();
      const response = await fetch(`${server.url}/v1/templates/thumbnails?templateName=t.docx`, { headers: { authorization } });
      await response.text();
      return performance.now() - t;
    };
    const first: number[] = [];
    const cached: number[] = [];
    for (let i = 0; i < 5; i++) {
      await fetch(`${server.url}/v1/templates/upload?templateName=t.docx`, {
        method: 'POST',
        headers: { authorization },
        body: JSON.stringify(docx(p(run(`Version ${i}`))).toString('base64')),
      });
      first.push(await get());
      for (let j = 0; j < 5; j++) cached.push(await get());
    }
    console.log(
      `  first call p50 ${median(first).toFixed(1)} ms, cached call p50 ${median(cached).toFixed(1)} ms (${(median(first) / median(cached)).toFixed(1)}x)`,
    );
  } finally {
    await server.stop();
  }
}

await versusPdftoppm();
await templateCache();
