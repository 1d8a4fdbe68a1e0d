/**
 * A statement with one long table to PDF (issue 30), in one run: docsmith over HTTP (the table laid
 * out part by part, operations/longTable.ts) against one LibreOffice layout of the same merged DOCX
 * (what LibreOffice alone, and Carbone through it, do) and against Carbone in-process (its own
 * LibreOffice converter) on the same table, docsmith and Carbone each the median of three runs (one
 * layout, a reference, runs once). Each output checked: page count and the last row's text;
 * docsmith's pages equal to one layout's where both ran.
 *
 * `node --import tsx bench/long-table.ts [rows...]` (default 2000 4000 8000 20000). One layout and
 * Carbone run up to 8,000 rows: past that they take minutes (a 504 in the service).
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import fs from 'node:fs';
import path from 'node:path';
import * as mupdf from 'mupdf';
import { block, docx, field, gridRow, gridTable, mergefield, p, run } from '../test/helpers/docx.js';
import { tempDir } from '../test/helpers/server.js';
import { benchServer, ownRssBytes, type BenchServer } from './support.js';
import { treeRssBytes } from '../src/util/process.js';

type Render = (template: string, data: object, options: object, done: (error: Error | null, result: Buffer) => void) => void;
process.env.PATH = `/usr/lib/libreoffice/program:/usr/bin:${process.env.PATH ?? ''}`;
const carbone = createRequire(import.meta.url)('carbone') as { render: Render; set(options: object): void };

const widths = [1800, 5400, 1800];
const right = (x: string) => x.replace('<w:p>', '<w:p><w:pPr><w:jc w:val="right"/></w:pPr>');
const head = gridRow(widths, [p(run('Date')), p(run('Text')), right(p(run('Amount')))], true);
const footer = { footer: p(run('Page '), field('PAGE', '1')) };
const ours = docx(
  p(run('Statement for '), mergefield('name')) +
    gridTable(
      widths,
      head,
      block('items', gridRow(widths, [p(mergefield('date')), p(mergefield('text')), right(p(mergefield('amount')))])),
    ) +
    p(run('Closing balance')),
  footer,
);
const carboneTemplate = docx(
  p(run('Statement for {d.name}')) +
    gridTable(
      widths,
      head,
      gridRow(widths, [p(run('{d.items[i].date}')), p(run('{d.items[i].text}')), right(p(run('{d.items[i].amount}')))]),
      gridRow(widths, [p(run('{d.items[i+1].date}')), p(run('')), p(run(''))]),
    ) +
    p(run('Closing balance')),
  footer,
);
/** Every 17th row wraps (pages hold varying rows), or every row is one line (pages hold the same rows). */
const shapes = ['every 17th row wraps', 'one-line rows'] as const;
const statement = (rows: number, shape: (typeof shapes)[number]) => ({
  name: 'Ann Lee',
  items: Array.from({ length: rows }, (_, i) => ({
    date: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
    text:
      i % 17 === 0 && shape === shapes[0]
        ? `Transfer ${i} with a description long enough to wrap onto further lines of the middle column`
        : `Card payment ${i}`,
    amount: (i * 7.31).toFixed(2),
  })),
});

const counts = process.argv.slice(2).map(Number);
/** docsmith's and Carbone's times are each the median of this many runs (one layout, a reference, runs once). */
const RUNS = 3;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
let server: BenchServer;
/** The peak memory of the server's office processes (its process tree less itself) while `work` runs. */
async function officePeak<T>(work: () => Promise<T>): Promise<[T, number]> {
  let peak = 0;
  const sample = () => (peak = Math.max(peak, treeRssBytes(server.pid) - ownRssBytes(server.pid)));
  const timer = setInterval(sample, 50);
  try {
    return [await work(), peak];
  } finally {
    clearInterval(timer);
  }
}
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const carboneFile = path.join(tempDir(), 'statement.docx');
fs.writeFileSync(carboneFile, carboneTemplate);
carbone.set({ factories: 1, startFactory: true, converterFactoryTimeout: 600_000 });
// Carbone's LibreOffice warm too (docsmith's office processes warm themselves at start): a short statement first.
await new Promise<void>((resolve, reject) =>
  carbone.render(carboneFile, statement(40, shapes[1]), { convertTo: 'pdf' }, (error) => (error ? reject(error) : resolve())),
);

const post = async (url: string, body: unknown) => {
  const reply = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { authorization: server.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (reply.status !== 200) throw new Error(`${url}: ${reply.status} ${await reply.text()}`);
  return { json: (await reply.json()) as unknown, parts: reply.headers.get('x-layout-parts') };
};
const pdfOf = (bytes: Uint8Array) => mupdf.Document.openDocument(Buffer.from(bytes), 'application/pdf');
const lastPage = (doc: mupdf.Document) =>
  doc
    .loadPage(doc.countPages() - 1)
    .toStructuredText('preserve-whitespace')
    .asText();
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Parts of long tables the server laid out, from its /metrics. */
const partsLaid = async () => {
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const count = (laid: string) => Number(new RegExp(`docsmith_long_table_parts_total\\{laid="${laid}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
  const kept = Number(/docsmith_long_table_parts_kept_layout_total (\d+)/.exec(metrics)?.[1] ?? 0);
  return `${count('in_turn')} in turn, ${count('ahead')} ahead (${kept} of them kept their layout), ${count('discarded')} discarded`;
};

for (const shape of shapes) {
  console.log(`${shape}:`);
  const timings: Record<number, number> = {};
  for (const rows of counts.length ? counts : [2000, 4000, 8000, 20000]) {
    // A fresh server each time: an office process keeps the memory of its largest job. Its time limit
    // is raised so that one layout can be timed on a slow day; docsmith's own time is checked below.
    server = await benchServer({ DOCSMITH_OFFICE_PROCESSES: '2', DOCSMITH_PROCESSING_LIMIT_MS: '900000' });
    const data = statement(rows, shape);
    const lastRow = `Card payment ${rows - 1}`;
    // The median of RUNS requests (the first on a fresh server among them), as for Carbone below.
    const ourRuns: number[] = [];
    let merged!: Awaited<ReturnType<typeof post>>;
    let oursPeak = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      let peak: number;
      [merged, peak] = await officePeak(() =>
        post('/v1/document/merge?returnFormat=PDF', { mergeData: [data], template: Buffer.from(ours).toString('base64') }),
      );
      ourRuns.push(performance.now() - started);
      oursPeak = Math.max(oursPeak, peak);
    }
    const oursMs = median(ourRuns);
    let started: number;
    if (oursMs > 60_000) throw new Error(`${rows} rows: docsmith took ${seconds(oursMs)}, past the default 60 s limit`);
    timings[rows] = oursMs;
    const pdf = pdfOf(Buffer.from((merged.json as string[])[0]!, 'base64'));
    if (!lastPage(pdf).includes(lastRow)) throw new Error(`docsmith's ${rows}-row PDF lacks its last row`);
    let line = `${rows} rows: docsmith ${seconds(oursMs)} (${pdf.countPages()} pages, ${merged.parts ?? 1} parts; over the ${RUNS} runs ${await partsLaid()}; office peak ${mb(oursPeak)})`;
    if (rows <= 8000) {
      // One layout of the same merged document, through the service's convert (office time, same pool).
      const asDocx = await post('/v1/document/merge?returnFormat=DOCX', {
        mergeData: [data],
        template: Buffer.from(ours).toString('base64'),
      });
      started = performance.now();
      const [whole, wholePeak] = await officePeak(() => post('/v1/document/convert?returnFormat=PDF', (asDocx.json as string[])[0]));
      const wholeMs = performance.now() - started;
      const one = pdfOf(Buffer.from(whole.json as string, 'base64'));
      const same =
        one.countPages() === pdf.countPages() &&
        Array.from({ length: one.countPages() }, (_, i) => i).every(
          (i) =>
            one.loadPage(i).toStructuredText('preserve-whitespace').asText() ===
            pdf.loadPage(i).toStructuredText('preserve-whitespace').asText(),
        );
      if (!same) throw new Error(`${rows} rows: the pages differ from one layout's`);
      const carboneRuns: number[] = [];
      let theirs!: Buffer;
      for (let run = 0; run < RUNS; run++) {
        started = performance.now();
        theirs = await new Promise<Buffer>((resolve, reject) =>
          carbone.render(carboneFile, data, { convertTo: 'pdf' }, (error, result) => (error ? reject(error) : resolve(result))),
        );
        carboneRuns.push(performance.now() - started);
      }
      const carboneMs = median(carboneRuns);
      const carbonePdf = pdfOf(theirs);
      if (!lastPage(carbonePdf).includes(lastRow)) throw new Error(`Carbone's ${rows}-row PDF lacks its last row`);
      line +=
        `; one layout ${seconds(wholeMs)} (the same pages and text, office peak ${mb(wholePeak)}), ${(wholeMs / oursMs).toFixed(1)}x; ` +
        `Carbone ${seconds(carboneMs)} (${carbonePdf.countPages()} pages), ${(carboneMs / oursMs).toFixed(1)}x`;
    }
    console.log(line);
    await server.stop();
  }
  if (timings[2000] && timings[8000])
    console.log(`2,000 -> 8,000 rows: docsmith grows ${(timings[8000] / timings[2000]).toFixed(2)}x (linear: 4x)`);
}

// Fairness: a one-page merge alone, and while an 8,000-row table (parts laid out ahead) is laid out.
{
  server = await benchServer({ DOCSMITH_OFFICE_PROCESSES: '2' });
  const small = { mergeData: [{ name: 'Bo Chen', items: statement(8, shapes[1]).items }], template: Buffer.from(ours).toString('base64') };
  const timed = async () => {
    const started = performance.now();
    await post('/v1/document/merge?returnFormat=PDF', small);
    return performance.now() - started;
  };
  for (let i = 0; i < 3; i++) await timed();
  const alone: number[] = [];
  for (let i = 0; i < 10; i++) alone.push(await timed());
  let running = true;
  const big = post('/v1/document/merge?returnFormat=PDF', { mergeData: [statement(8000, shapes[1])], template: small.template }).finally(
    () => (running = false),
  );
  const beside: number[] = [];
  while (running) beside.push(await timed());
  await big;
  console.log(
    `one-page merge: alone median ${seconds(median(alone))}, max ${seconds(Math.max(...alone))}; ` +
      `beside an 8,000-row table (${beside.length} merges) median ${seconds(median(beside))}, max ${seconds(Math.max(...beside))}`,
  );
  await server.stop();
}
process.exit(0);
