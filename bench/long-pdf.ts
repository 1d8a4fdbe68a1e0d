/**
 * Long documents to PDF (issue 30): appended 8-row invoices, laid out as one office job (what
 * LibreOffice alone does) against docsmith's layout in parts across the office pool (2 processes)
 * joined with MuPDF, and against Carbone (in-process, its own LibreOffice) rendering the same
 * invoices one per page, in one run: time, pages, ratio, peak memory.
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
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

type Render = (template: string, data: object, options: object, done: (error: Error | null, result: Buffer) => void) => void;
process.env.PATH = `/usr/lib/libreoffice/program:/usr/bin:${process.env.PATH ?? ''}`;
const carbone = createRequire(import.meta.url)('carbone') as { render: Render; set(options: object): void };
// Carbone's template: the invoice repeated per record (from a record's first paragraph to the next's), a page break after each.
const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
const carboneTemplate = docx(
  p(run('{d.invoices[i].company}')) +
    p(run('Invoice {d.invoices[i].number}')) +
    table(
      titleRow,
      row(
        cell(p(run('{d.invoices[i].items[i].name}'))),
        cell(p(run('{d.invoices[i].items[i].qty}'))),
        cell(p(run('{d.invoices[i].items[i].price}'))),
      ),
      row(cell(p(run('{d.invoices[i].items[i+1].name}'))), cell(p(run(''))), cell(p(run('')))),
    ) +
    p(run('{d.invoices[i].total}')) +
    pageBreak +
    p(run('{d.invoices[i+1].company}')),
);
const carboneFile = path.join(tempDir(), 'invoices.docx');
fs.writeFileSync(carboneFile, carboneTemplate);
carbone.set({ factories: 1, startFactory: true, converterFactoryTimeout: 600_000 });
// Carbone's LibreOffice warm, as the pool's processes are (each converts a letter at start).
await new Promise<void>((resolve, reject) =>
  carbone.render(carboneFile, { invoices: [1, 2, 3].map(invoice) }, { convertTo: 'pdf' }, (error) => (error ? reject(error) : resolve())),
);

const compiled = CompiledTemplate.compile(template);
const pool = testPool({ size: 2 });
await pool.start();
const converter = new Converter(pool);
const workers = new DocumentWorkers(2);
await workers.warm(); // as a server's threads are, at its start
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

  started = performance.now();
  const theirs = await new Promise<Buffer>((resolve, reject) =>
    carbone.render(carboneFile, { invoices: records }, { convertTo: 'pdf' }, (error, result) => (error ? reject(error) : resolve(result))),
  );
  const carboneMs = performance.now() - started;
  const carboneText = mupdf.Document.openDocument(theirs, 'application/pdf');
  // The same work: every invoice with all its rows (the last article of each, and the last invoice).
  const carboneAll = Array.from({ length: carboneText.countPages() }, (_, i) =>
    carboneText.loadPage(i).toStructuredText('preserve-whitespace').asText(),
  ).join('\n');
  if ((carboneAll.match(/Article 8\b/g) ?? []).length !== count || !carboneAll.includes(`INV-${count}`))
    throw new Error(`Carbone's ${count}-invoice PDF lacks invoices or rows`);
  console.log(
    `${count} appended invoices to PDF: one layout ${(single / 1000).toFixed(2)} s (${pages(one)} pages), ` +
      `in ${starts.length} parts ${(parts / 1000).toFixed(2)} s (${pages(joined)} pages): ${(single / parts).toFixed(2)}x; ` +
      `Carbone ${(carboneMs / 1000).toFixed(2)} s (${carboneText.countPages()} pages): ${(carboneMs / parts).toFixed(2)}x; ` +
      `peak memory of the 2 office processes ${mb(singleOffice)} for one layout, ${mb(officePeak)} in parts`,
  );
}
clearInterval(sample);
console.log(`peak RSS of this process ${mb(peak)} (the office processes are separate)`);
await workers.close();
await pool.close();
process.exit(0); // Carbone's office factory keeps the event loop alive
