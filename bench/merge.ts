/**
 * Merge engine benchmark, in one run on this machine:
 *  1. DOCX->DOCX merge of an invoice with 100 item rows: docsmith against docxtemplater on the
 *     equivalent template and the same data (docs per second, ratio);
 *  2. a 20,000-row block: time, peak memory, and the output opened by LibreOffice;
 *  3. end-to-end /v1/document/merge of a one-page invoice to PDF: p50, split into merge and conversion.
 */
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import PizZip from 'pizzip';
import Docxtemplater from 'docxtemplater';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../src/merge/engine.js';
import { Converter } from '../src/convert/converter.js';
import { block, cell, docx, mergefield, p, row, run, table } from '../test/helpers/docx.js';
import { testPool } from '../test/helpers/office.js';
import { benchServer, median } from './support.js';

function invoiceData(rows: number) {
  return {
    company: 'ACME Corporation',
    street: '1 Main Street',
    city: 'Springfield',
    number: 'INV-2026-0042',
    date: '2026-11-21',
    items: Array.from({ length: rows }, (_, i) => ({
      name: `Article ${i + 1}`,
      qty: (i % 7) + 1,
      price: 9.99 + i,
      total: ((i % 7) + 1) * (9.99 + i),
    })),
  };
}

/** The same invoice twice: with MERGEFIELDs and a txmb_ row block, and with docxtemplater tags. */
function invoiceTemplates() {
  const header =
    p(mergefield('company')) +
    p(mergefield('street')) +
    p(mergefield('city')) +
    p(run('Invoice '), mergefield('number'), run(' of '), mergefield('date'));
  const ours = docx(
    header +
      table(
        row(cell(p(run('Article'))), cell(p(run('Qty'))), cell(p(run('Price'))), cell(p(run('Total')))),
        block(
          'items',
          row(
            cell(p(mergefield('name'))),
            cell(p(mergefield('qty'))),
            cell(p(mergefield('price', '\\# "#,##0.00"'))),
            cell(p(mergefield('total', '\\# "#,##0.00"'))),
          ),
        ),
      ) +
      p(run('Thank you.')),
  );
  const theirs = docx(
    p(run('{company}')) +
      p(run('{street}')) +
      p(run('{city}')) +
      p(run('Invoice {number} of {date}')) +
      table(
        row(cell(p(run('Article'))), cell(p(run('Qty'))), cell(p(run('Price'))), cell(p(run('Total')))),
        row(cell(p(run('{#items}{name}'))), cell(p(run('{qty}'))), cell(p(run('{price}'))), cell(p(run('{total}{/items}')))),
      ) +
      p(run('Thank you.')),
  );
  return { ours, theirs };
}

function docsPerSecond(fn: () => unknown, seconds = 3): number {
  for (let i = 0; i < 5; i++) fn();
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < seconds * 1000) {
    fn();
    n++;
  }
  return n / ((performance.now() - started) / 1000);
}

async function versusDocxtemplater(): Promise<void> {
  console.log('\n1. DOCX->DOCX invoice with 100 item rows: docsmith vs docxtemplater');
  const { ours, theirs } = invoiceTemplates();
  const data = invoiceData(100);
  const template = CompiledTemplate.compile(ours); // stored templates are compiled once and cached
  const docsmith = docsPerSecond(() => template.merge([data], DEFAULT_MERGE_OPTIONS, false));
  const dt = docsPerSecond(() => {
    const doc = new Docxtemplater(new PizZip(theirs), { paragraphLoop: true, linebreaks: true });
    doc.render({ ...data, items: data.items.map((i) => ({ ...i, price: i.price.toFixed(2), total: i.total.toFixed(2) })) });
    return doc.getZip().generate({ type: 'nodebuffer', compression: 'DEFLATE' });
  });
  const cold = docsPerSecond(() => CompiledTemplate.compile(ours).merge([data], DEFAULT_MERGE_OPTIONS, false));
  console.log(
    `  docsmith ${docsmith.toFixed(0)} docs/s (${cold.toFixed(0)} docs/s compiling every time), docxtemplater ${dt.toFixed(0)} docs/s: docsmith is ${(docsmith / dt).toFixed(1)}x (${(cold / dt).toFixed(1)}x uncached)`,
  );
}

function measure(label: string, run: () => Buffer): Buffer {
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const out = run();
  const elapsed = performance.now() - started;
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(
    `  ${label}: merged in ${elapsed.toFixed(0)} ms, output ${(out.length / 1024 / 1024).toFixed(1)} MB, RSS ${(before / 1024 / 1024).toFixed(0)} MB before, process peak ${(peak / 1024 / 1024).toFixed(0)} MB`,
  );
  return out;
}

async function bigBlock(): Promise<void> {
  console.log('\n2. a 20,000-row block');
  const data = invoiceData(20_000);
  const lines = docx(
    p(mergefield('company')) +
      block('items', p(mergefield('name'), run('\t'), mergefield('qty'), run('\t'), mergefield('price', '\\# "#,##0.00"'))),
  );
  const paragraphs = measure('as 20,000 paragraphs', () => CompiledTemplate.compile(lines).merge([data], DEFAULT_MERGE_OPTIONS, false)[0]!);
  measure('as 20,000 table rows', () => CompiledTemplate.compile(invoiceTemplates().ours).merge([data], DEFAULT_MERGE_OPTIONS, false)[0]!);
  const pool = testPool({ size: 1, processingLimitMs: 600_000 });
  await pool.start();
  try {
    const t = performance.now();
    const { data: txt } = await new Converter(pool).convert(paragraphs, 'docx', 'txt');
    const count = txt
      .toString('utf8')
      .split('\r\n')
      .filter((l) => /^Article \d+\t/.test(l)).length;
    console.log(
      `  LibreOffice opened the paragraph version and exported ${count} rows as text in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
  } finally {
    await pool.close();
  }
}

async function endToEnd(): Promise<void> {
  console.log(`\n3. end-to-end /v1/document/merge of a one-page invoice (10 rows), pool of ${os.cpus().length}`);
  const server = await benchServer({ DOCSMITH_OFFICE_PROCESSES: String(os.cpus().length) });
  const { authorization } = server;
  try {
    await fetch(`${server.url}/v1/templates/upload?templateName=invoice.docx`, {
      method: 'POST',
      headers: { authorization },
      body: JSON.stringify(invoiceTemplates().ours.toString('base64')),
    });
    const body = JSON.stringify({ mergeData: [invoiceData(10)] });
    const time = async (format: string) => {
      const xs: number[] = [];
      for (let i = 0; i < 40; i++) {
        const t = performance.now();
        const response = await fetch(`${server.url}/v1/document/merge?returnFormat=${format}&templateName=invoice.docx`, {
          method: 'POST',
          headers: { authorization },
          body,
        });
        await response.text();
        if (response.status !== 200) throw new Error(`${response.status}`);
        if (i >= 5) xs.push(performance.now() - t);
      }
      return median(xs);
    };
    const docxMs = await time('DOCX');
    const pdfMs = await time('PDF');
    console.log(
      `  to PDF p50 ${pdfMs.toFixed(1)} ms = merge (request to DOCX) ${docxMs.toFixed(1)} ms + conversion ${(pdfMs - docxMs).toFixed(1)} ms`,
    );
  } finally {
    await server.stop();
  }
}

await versusDocxtemplater();
await bigBlock();
await endToEnd();
