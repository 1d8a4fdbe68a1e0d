// Small merges are done on the event loop when nothing else is being done in the threads
// (src/workers/inline.ts), with the same documents as a thread makes, made inert there too when
// bound for the office; any other merge, and one that outgrows its budget, is done in a thread.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, strFromU8 } from 'fflate';
import { DocumentWorkers } from '../../src/workers/pool.js';
import { DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { block, cell, docx, field, mergefield, p, row, run, table } from '../helpers/docx.js';
import { Records } from '../../src/merge/records.js';

const template = docx(
  p(mergefield('company')) + table(row(cell(p(run('Article')))), block('items', row(cell(p(mergefield('name')))))) + p(run('Thank you.')),
);
const record = (rows: number) => ({ company: 'ACME', items: Array.from({ length: rows }, (_, i) => ({ name: `Article ${i + 1}` })) });
const body = (document: Buffer) => strFromU8(unzipSync(document)['word/document.xml']!);

describe('merges on the event loop', () => {
  const workers = new DocumentWorkers(1, { inlineMs: 60_000 });
  after(() => workers.close());
  const merge = (rows: number, more: { inert?: boolean } = {}) =>
    workers.merge({ docx: template, records: Records.of([record(rows)]), options: DEFAULT_MERGE_OPTIONS, append: false, ...more });

  it('are the small ones of a template a thread has merged, with the same document', async () => {
    const first = await merge(8);
    // The thread's word that the template is small is taken up once the inline code has loaded.
    let again = await merge(8);
    for (let i = 0; i < 100 && workers.stats.inlineMerges === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await merge(8);
    }
    assert.equal(workers.stats.inlineMerges, 1);
    assert.equal(body(again.documents[0]!), body(first.documents[0]!));
  });

  it('leave a merge that outgrows the budget to a thread, which merges all of it', async () => {
    const before = workers.stats.inlineMerges;
    // 300 rows: data small enough to be tried here (6 KB of JSON), more steps than the budget.
    const { documents } = await merge(300);
    assert.equal((body(documents[0]!).match(/Article \d+/g) ?? []).length, 300);
    assert.equal(workers.stats.inlineMerges, before);
  });

  it('never take a template that draws barcodes (milliseconds each)', async () => {
    const before = workers.stats.inlineMerges;
    const qr = docx(p(run('QR: '), field('MERGEBARCODE Url QR \\q 3 \\h 1440')));
    for (let i = 0; i < 5; i++) {
      await workers.merge({
        docx: qr,
        records: Records.of([{ Url: 'https://example.com' }]),
        options: DEFAULT_MERGE_OPTIONS,
        append: false,
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(workers.stats.inlineMerges, before);
  });

  it('never take one while the threads are working', async () => {
    const before = workers.stats.inlineMerges;
    const busy = merge(3000);
    await merge(8);
    await busy;
    assert.equal(workers.stats.inlineMerges, before);
    await merge(8);
    assert.equal(workers.stats.inlineMerges, before + 1);
  });
});

describe('merges bound for the office on the event loop', () => {
  const workers = new DocumentWorkers(1, { inlineMs: 60_000 });
  after(() => workers.close());
  const bound = { inert: true, dropComments: true, longTableRows: 50 };
  const merge = (document: Buffer, rows: number) =>
    workers.merge({ docx: document, records: Records.of([record(rows)]), options: DEFAULT_MERGE_OPTIONS, append: false, ...bound });
  /** Merges until one is done here (a thread's word that the template is small is taken up once the inline code has loaded). */
  const mergedHere = async (document: Buffer, rows: number) => {
    const before = workers.stats.inlineMerges;
    for (let i = 0; i < 100; i++) {
      const merged = await merge(document, rows);
      if (workers.stats.inlineMerges > before) return merged;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return undefined;
  };

  it('are admitted apart from merges to DOCX, and give what a thread gives: inert, its fields and table looked for', async () => {
    const linked = docx(
      p(mergefield('company')) +
        p(field('INCLUDETEXT "C:\\secret.txt"', 'included')) +
        table(row(cell(p(run('Article')))), block('items', row(cell(p(mergefield('name')))))),
    );
    const inThread = await merge(linked, 8);
    const here = await mergedHere(linked, 8);
    assert.ok(here, 'merged on the event loop');
    assert.equal(body(here.documents[0]!), body(inThread.documents[0]!));
    assert.doesNotMatch(body(here.documents[0]!), /INCLUDETEXT|secret/);
    assert.deepEqual(here.updateFields, inThread.updateFields);
    // Its table looked for, and too short to be cut, as in a thread.
    assert.deepEqual(here.longTables, [null]);
    assert.deepEqual(inThread.longTables, [null]);
    // Admitted for the office, the template is not admitted for DOCX by that.
    const before = workers.stats.inlineMerges;
    await workers.merge({ docx: linked, records: Records.of([record(8)]), options: DEFAULT_MERGE_OPTIONS, append: false });
    assert.equal(workers.stats.inlineMerges, before);
  });

  it('never take a template whose merged package is large, though its rendered parts are small', async () => {
    const styles = Array.from(
      { length: 3000 },
      (_, i) =>
        `<w:style w:type="paragraph" w:styleId="S${i}"><w:name w:val="Style ${i}"/><w:rPr><w:sz w:val="${20 + (i % 9)}"/></w:rPr></w:style>`,
    ).join('');
    const styled = docx(p(mergefield('company')) + table(row(cell(p(run('Article')))), block('items', row(cell(p(mergefield('name')))))), {
      styles,
    });
    assert.ok(styles.length > 256 * 1024);
    assert.equal(await mergedHere(styled, 8), undefined);
  });
});

describe('a template whose merges outgrow the budget', () => {
  const workers = new DocumentWorkers(1, { inlineMs: 60_000 });
  after(() => workers.close());

  it('is merged in threads only after three, though a thread finds it small again', async () => {
    const merge = (rows: number) =>
      workers.merge({ docx: template, records: Records.of([record(rows)]), options: DEFAULT_MERGE_OPTIONS, append: false });
    await merge(8);
    for (let i = 0; i < 100 && workers.stats.inlineMerges === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await merge(8);
    }
    assert.equal(workers.stats.inlineMerges, 1);
    for (let i = 0; i < 5; i++) await merge(300);
    await merge(8);
    assert.equal(workers.stats.inlineMerges, 1);
  });
});
