// The document use cases (operations/) called directly, as the routes and the CLI call them: real
// worker threads and a real SQLite store, no HTTP and no office (the office paths are tested in
// test/api and test/office).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DocumentOperations, type WorkProgress } from '../../src/operations/index.js';
import type { Converter, ConvertOptions } from '../../src/convert/converter.js';
import { DocumentPipeline } from '../../src/operations/io.js';
import { DocumentWorkers } from '../../src/workers/pool.js';
import { warm as warmTask } from '../../src/workers/tasks.js';
import { Thumbnails } from '../../src/render/thumbnails.js';
import { TemplateLibrary } from '../../src/templates/library.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { BusyError, InputError, type DocsmithError } from '../../src/errors.js';
import type { Store } from '../../src/store/types.js';
import { block, docx, field, mergefield, p, partText, rtfObject, run } from '../helpers/docx.js';
import { tempDir } from '../helpers/server.js';
import { damagedPdf } from '../helpers/hostile.js';
import { Records } from '../../src/merge/records.js';

describe('document operations, called directly', () => {
  let store: Store;
  let workers: DocumentWorkers;
  let operations: DocumentOperations;
  let officeAsked = 0;
  const document = { properties: {}, password: undefined };
  before(async () => {
    store = await openSqliteStore(path.join(tempDir(), 'operations.sqlite'));
    workers = new DocumentWorkers(1);
    operations = new DocumentOperations(
      {
        pipeline: new DocumentPipeline(new TemplateLibrary(store), null, null, (bytes, signal) => workers.txToDocx(bytes, signal)),
        workers,
        thumbnails: new Thumbnails(workers, null),
        converter: null,
        maxOutputBytes: 64 * 1024,
      },
      async () => {
        officeAsked++;
      },
    );
  });
  after(async () => {
    await workers.close();
    await store.close();
  });

  const template = docx(p(run('Dear '), mergefield('name')) + block('items', p(mergefield('item'))));
  const merge = (over: Partial<Parameters<DocumentOperations['merge']>[0]> = {}, ctx: Parameters<DocumentOperations['merge']>[1] = {}) =>
    operations.merge(
      {
        template,
        records: Records.of([{ name: 'Ann', items: [{ item: 'bolts' }] }]),
        options: DEFAULT_MERGE_OPTIONS,
        document,
        format: 'docx',
        append: false,
        test: false,
        ...over,
      },
      ctx,
    );

  it('merges to DOCX in the worker threads without the office, reporting progress', async () => {
    const stages: string[] = [];
    const [out] = await operations.merge(
      {
        template,
        records: Records.of([{ name: 'Ann', items: [{ item: 'bolts' }, { item: 'nuts' }] }]),
        options: DEFAULT_MERGE_OPTIONS,
        document,
        format: 'docx',
        append: false,
        test: false,
      },
      { progress: (p) => stages.push(p.stage) },
    );
    assert.equal(partText(out!), 'Dear Ann\nbolts\nnuts');
    assert.deepEqual([...new Set(stages)], ['merging']);
    assert.equal(officeAsked, 0, 'DOCX output never starts the office');
  });

  it('says what is wrong in terms a user can act on', async () => {
    await assert.rejects(
      merge({ template: Buffer.from('plain text') }),
      (e: Error) => e instanceof InputError && /The template cannot be used/.test(e.message),
    );
    const chart = Buffer.from(`{\\rtf1\\ansi \\pard x\\par ${rtfObject('MSGraph.Chart.8', 'sales')}}`, 'latin1');
    await assert.rejects(
      merge({ template: chart, what: 'The template "chart.rtf"', records: Records.of([{ sales: [{ revenue: 1 }] }]) }),
      /The template "chart.rtf" cannot be merged: the chart "sales"/,
    );
    await assert.rejects(
      merge({ format: 'pdf' }),
      (e: Error) => e instanceof BusyError && /office engine/.test(e.message),
      'no office: 503, not a crash',
    );
    const many = Array.from({ length: 2000 }, (_, i) => ({ name: `record ${i} ${'x'.repeat(40)}` }));
    await assert.rejects(
      merge({ records: Records.of(many) }),
      (e: Error) => (e as DocsmithError).status === 413,
      'the output limit stops the work',
    );
  });

  it('stops a merge at its deadline with a 504', async () => {
    // Errors made in a worker thread come back as the same answer (status and message), not the same class.
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ item: `row ${i}` }));
    await assert.rejects(
      merge({ records: Records.of([{ name: 'Ann', items: rows }]) }, { deadline: Date.now() - 1 }),
      (e: Error) => (e as DocsmithError).status === 504,
    );
  });

  it("finds and replaces, lists a template's fields and blocks, and reads the text of a PDF", async () => {
    const replaced = await operations.findAndReplace({ template, pairs: [['Dear', 'Hello']], document, format: 'docx', test: false });
    assert.match(partText(replaced), /^Hello /);
    const info = await operations.info(template, 'letter.docx');
    assert.deepEqual(
      info.mergeFields.map((f) => f.name),
      ['name'],
    );
    assert.deepEqual(
      info.mergeBlocks.map((b) => b.name),
      ['items'],
    );
    const pdf = Buffer.from(
      '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Count 1/Kids[3 0 R]>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n4 0 obj<</Length 35>>stream\nBT /F1 12 Tf 20 100 Td (Hello) Tj ET\nendstream endobj\n5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R/Size 6>>\n%%EOF\n',
      'latin1',
    );
    assert.match((await operations.convert({ document: pdf, from: 'pdf', format: 'txt', test: false })).data.toString('utf8'), /Hello/);
    assert.equal(await operations.pageCount({ document: pdf, from: 'pdf' }), 1);
  });

  it('reads a damaged PDF in a worker thread and reports what the reader said once, not line by line', async () => {
    const reports: { task: string; total: number; distinct: number }[] = [];
    workers.onReaderLog = (task, log) => reports.push({ task, total: log.total, distinct: log.messages.length });
    try {
      const view = { zoom: 20, fromPage: 1, toPage: 0, format: 'png' as const };
      const pages = await operations.thumbnails({ document: damagedPdf(), from: 'pdf', view }).catch(() => []);
      assert.ok(reports.length >= 1 && reports.length <= 3, `one report per task, not per message: ${JSON.stringify(reports)}`);
      assert.ok(reports.every((r) => r.distinct <= 20 && r.total >= r.distinct));
      assert.ok(pages.length >= 0);
    } finally {
      workers.onReaderLog = undefined;
    }
  });

  it('reports merge progress as records are merged (at most about twenty steps), the last before the merge answers', async () => {
    const seen: number[] = [];
    const records = Array.from({ length: 15 }, (_, i) => ({ name: `R${i}`, items: [] }));
    const out = await merge(
      { records: Records.of(records), append: true },
      { progress: (p) => p.stage === 'merging' && seen.push(p.done ?? -1) },
    );
    assert.equal(out.length, 1);
    assert.equal(seen[0], 0);
    assert.equal(seen[seen.length - 1], 15, 'the last step is in before the answer');
    assert.ok(seen.length >= 10 && seen.length <= 25, `${seen.length} steps`);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
      'steps only go forward',
    );
  });

  /** Operations whose office is a stand-in converter (the office's side is tested in test/office). */
  const operationsWith = (converter: Converter) =>
    new DocumentOperations(
      {
        pipeline: new DocumentPipeline(new TemplateLibrary(store), converter, null, (bytes, signal) => workers.txToDocx(bytes, signal)),
        workers,
        thumbnails: new Thumbnails(workers, null),
        converter,
        maxOutputBytes: 64 * 1024,
      },
      async () => undefined,
    );

  it("passes the office's page reports on as progress for one document, not for each of many", async () => {
    // A converter that writes three pages and says so: the office's side is tested in test/office.
    const asked: boolean[] = [];
    const converter = {
      convert: async (_bytes: Buffer, _from: string, _to: string, options: ConvertOptions) => {
        asked.push(options.pages !== undefined);
        options.loaded?.();
        for (const done of [0, 2, 3]) options.pages?.(done, 3);
        return { data: Buffer.from('%PDF-1.7 stand-in'), officeMs: 1 };
      },
    } as unknown as Converter;
    const withOffice = operationsWith(converter);
    const seen: string[] = [];
    const progress = (p: WorkProgress) => seen.push(`${p.stage} ${p.done ?? ''}/${p.total ?? ''}`);
    const one = {
      template,
      records: Records.of([{ name: 'Ann', items: [] }]),
      options: DEFAULT_MERGE_OPTIONS,
      document,
      format: 'pdf' as const,
      test: false,
    };
    await withOffice.merge({ ...one, append: true }, { progress });
    assert.deepEqual(
      seen.filter((s) => s.startsWith('pages') || s.startsWith('layout')),
      ['layout /', 'pages 0/3', 'pages 2/3', 'pages 3/3'],
    );
    seen.length = 0;
    await withOffice.merge({ ...one, records: Records.of([{ name: 'Ann' }, { name: 'Bob' }]), append: false }, { progress });
    assert.deepEqual(
      seen.filter((s) => s.startsWith('pages') || s.startsWith('layout')),
      [],
      'two documents: their count is the progress',
    );
    assert.deepEqual(asked, [true, false, false]);
  });

  it('asks the office for page reports only when someone follows, and tells it whether the merge left fields to recompute', async () => {
    // The office's page reports cost it time; whether fields need recomputing is found in the merge's thread.
    const asked: { pages: boolean; updateFields: boolean | undefined; inert: boolean | undefined }[] = [];
    const converter = {
      convert: async (_bytes: Buffer, _from: string, _to: string, options: ConvertOptions) => {
        asked.push({ pages: options.pages !== undefined, updateFields: options.updateFields, inert: options.alreadyInert });
        return { data: Buffer.from('%PDF-1.7 stand-in'), officeMs: 1 };
      },
    } as unknown as Converter;
    const withOffice = operationsWith(converter);
    const one = {
      records: Records.of([{ name: 'Ann' }]),
      options: DEFAULT_MERGE_OPTIONS,
      document,
      format: 'pdf' as const,
      test: false,
      append: false,
    };
    let parts = -1;
    await withOffice.merge({ ...one, template }, { laidOutInParts: (n) => (parts = n) });
    await withOffice.merge({ ...one, template: docx(p(run('Dear '), mergefield('name'), run(', '), field('NUMPAGES', '1'))) });
    await withOffice.merge({ ...one, template: docx(p(mergefield('name')), { footer: p(run('Page '), field('PAGE', '1')) }) });
    assert.deepEqual(asked, [
      { pages: false, updateFields: false, inert: true },
      { pages: false, updateFields: true, inert: true },
      { pages: false, updateFields: false, inert: true },
    ]);
    assert.equal(parts, -1, 'one document, laid out whole');
  });

  it('warms its threads with a small merge of their own', async () => {
    assert.deepEqual(await warmTask(), { ok: true, value: null }, 'the letter merges and is made inert, the PDF reader loads');
    await workers.warm();
    const [out] = await merge();
    assert.match(partText(out!), /Dear Ann/);
  });
});
