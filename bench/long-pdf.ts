/**
 * Long documents to PDF (issue 30): appended 8-row invoices, laid out as one office job (what
 * LibreOffice alone does, and Carbone through it) against docsmith's layout in parts across the
 * office pool (2 processes) joined with MuPDF, in one run: time, pages, ratio, peak memory.
 */
import { performance } from 'node:perf_hooks';
import * as mupdf from 'mupdf';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../src/merge/engine.js';
import { Converter } from '../src/convert/converter.js';
import { DocumentWorkers } from '../src/workers/pool.js';
import { partSize } from '../src/operations/index.js';
import { block, cell, docx, mergefield, p, row, run, table } from '../test/helpers/docx.js';
import { testPool } from '../test/helpers/office.js';
import { tempDir } from '../test/helpers/server.js';
import { treeRssBytes } from '../src/util/process.js';

const titleRow = row(cell(p(run('Article'))), cell(p(run('Qty'))), cell(p(run('Price'))));
const template = docx(
  p(mergefield('company')) +
    p(run('Invoice '), mergefield('number')) +
    table(titleRow, block('items', row(cell(p(mergefield('name'))), cell(p(mergefield('qty'))), cell(p(mergefield('price')))))) +
    p(mergefield('total')),
);
const invoice = (i: number) => ({
  company: 'ACME Corporation',
  number: `INV-${i}`,
  items: Array.from({ length: 8 }, (_, k) => ({ name: `Article ${k + 1}`, qty: (k % 7) + 1, price: (9.99 + k).toFixed(2) })),
  total: 'TOTAL-OK',
});

const compiled = CompiledTemplate.compile(template);
const pool = testPool({ size: 2 });
await pool.start();
const converter = new Converter(pool, tempDir());
const workers = new DocumentWorkers(2);
const pages = (pdf: Uint8Array) => mupdf.Document.openDocument(Buffer.from(pdf), 'application/pdf').countPages();
let peak = 0;
/** The office processes' memory: this process's tree less itself (worker threads are in it). */
let officePeak = 0;
const sample = setInterval(() => {
  const own = process.memoryUsage().rss;
  peak = Math.max(peak, own);
  officePeak = Math.max(officePeak, treeRssBytes(process.pid) - own);
}, 20);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

for (const count of [400, 1600]) {
  const records = Array.from({ length: count }, (_, i) => invoice(i + 1));
  let started = performance.now();
  officePeak = 0;
  const [whole] = compiled.merge(records, DEFAULT_MERGE_OPTIONS, true, { officeBound: true });
  const one = (await converter.convert(whole!, 'docx', 'pdf')).data;
  const single = performance.now() - started;
  const singleOffice = officePeak;

  // As operations/index.ts mergeInParts does: parts of partSize() records, 2 at a time.
  started = performance.now();
  officePeak = 0;
  const size = partSize(count, 2);
  const starts = Array.from({ length: Math.ceil(count / size) }, (_, i) => i * size);
  const pdfs: Buffer[] = [];
  let next = 0;
  const lane = async () => {
    while (next < starts.length) {
      const part = next++;
      const [docxPart] = compiled.merge(records.slice(starts[part], starts[part]! + size), DEFAULT_MERGE_OPTIONS, true, {
        officeBound: true,
      });
      pdfs[part] = (await converter.convert(docxPart!, 'docx', 'pdf')).data;
    }
  };
  await Promise.all([lane(), lane()]);
  const joined = await workers.joinPdfs(pdfs);
  const parts = performance.now() - started;
  console.log(
    `${count} appended invoices to PDF: one layout ${(single / 1000).toFixed(2)} s (${pages(one)} pages), ` +
      `in ${starts.length} parts ${(parts / 1000).toFixed(2)} s (${pages(joined)} pages): ${(single / parts).toFixed(2)}x; ` +
      `peak memory of the 2 office processes ${mb(singleOffice)} for one layout, ${mb(officePeak)} in parts`,
  );
}
clearInterval(sample);
console.log(`peak RSS of this process ${mb(peak)} (the office processes are separate)`);
await workers.close();
await pool.close();
