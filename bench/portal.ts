/**
 * The portal's playground preview, in one run on this machine: POST /v1/document/preview (merge,
 * PDF and page images in one request, one document counted) against what a client of the plain
 * ReportingCloud API must do: /v1/document/merge to PDF, then /v1/document/thumbnails of that PDF
 * (two requests, the PDF twice over the wire as Base64, two documents counted). Each round merges
 * new data, so no cache answers. Also prints what a first visit to /portal downloads.
 */
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { block, cell, docx, mergefield, p, row, run, table } from '../test/helpers/docx.js';
import { benchServer, median } from './support.js';

const ROUNDS = 20;

const template = docx(
  p(run('Invoice for '), mergefield('customer')) +
    table(
      row(cell(p(run('Item'))), cell(p(run('Price')))),
      block('items', row(cell(p(mergefield('name'))), cell(p(mergefield('price', '\\# "#,##0.00"'))))),
    ),
);

const server = await benchServer({ DOCSMITH_OFFICE_PROCESSES: '1' });
const { authorization } = server;
const post = async (path: string, body: unknown): Promise<unknown> => {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};

try {
  await post('/v1/templates/upload?templateName=invoice.docx', template.toString('base64'));
  const data = (i: number) => ({
    mergeData: [{ customer: `Customer ${i}`, items: Array.from({ length: 10 }, (_, j) => ({ name: `Item ${j}`, price: i * 100 + j })) }],
  });
  const preview = async (i: number) => post('/v1/document/preview?templateName=invoice.docx&zoomFactor=75', data(i));
  const twoCalls = async (i: number) => {
    const [pdf] = (await post('/v1/document/merge?templateName=invoice.docx&returnFormat=PDF', data(i))) as string[];
    return post('/v1/document/thumbnails?zoomFactor=75', pdf);
  };
  await preview(-1);
  await twoCalls(-2);
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    await preview(i);
    ours.push(performance.now() - t);
    t = performance.now();
    await twoCalls(ROUNDS + i);
    theirs.push(performance.now() - t);
  }
  console.log('\nplayground preview of a merged one-page invoice (zoom 75, PNG)');
  console.log(
    `  /document/preview p50 ${median(ours).toFixed(1)} ms; merge to PDF + /document/thumbnails p50 ${median(theirs).toFixed(1)} ms: ${(median(theirs) / median(ours)).toFixed(2)}x faster, 1 document counted instead of 2`,
  );

  const page = await (await fetch(`${server.url}/portal/`)).text();
  const assets = [...page.matchAll(/(?:src|href)="(\/portal\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  let raw = page.length;
  let zipped = gzipSync(page).length;
  for (const asset of assets) {
    const bytes = Buffer.from(await (await fetch(`${server.url}${asset}`)).arrayBuffer());
    raw += bytes.length;
    zipped += gzipSync(bytes).length;
  }
  console.log(
    `\nfirst visit to /portal: ${assets.length + 1} files, ${(raw / 1024).toFixed(0)} KB (${(zipped / 1024).toFixed(0)} KB gzipped); the JSON editor loads on demand`,
  );
} finally {
  await server.stop();
}
