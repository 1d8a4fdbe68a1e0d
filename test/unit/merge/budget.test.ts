// A merge on the event loop (src/workers/inline.ts) runs under a budget of steps, time and
// characters (src/merge/render.ts RenderBudget): past any of them it stops with OverBudgetError,
// whatever the template and data, before the document is joined or zipped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../../../src/merge/engine.js';
import { OverBudgetError } from '../../../src/merge/render.js';
import { block, cell, docx, mergefield, p, row, run, table } from '../../helpers/docx.js';

const invoice = CompiledTemplate.compile(
  docx(
    p(mergefield('company')) +
      table(row(cell(p(run('Article')))), block('items', row(cell(p(mergefield('name'))), cell(p(mergefield('qty')))))) +
      p(run('Thank you.')),
  ),
);
const record = (rows: number) => ({ company: 'ACME', items: Array.from({ length: rows }, (_, i) => ({ name: `Article ${i}`, qty: i })) });
const budget = (over: Partial<{ steps: number; until: number; chars: number }> = {}) => ({
  steps: 400,
  until: performance.now() + 60_000,
  chars: 128 * 1024,
  ...over,
});

describe('a merge under a budget', () => {
  it('makes the same document as one without, when it fits', () => {
    const [free] = invoice.merge([record(8)], DEFAULT_MERGE_OPTIONS, false);
    const [held] = invoice.merge([record(8)], DEFAULT_MERGE_OPTIONS, false, { budget: budget() });
    assert.ok(free && held);
    assert.equal(held.toString('base64'), free.toString('base64'));
  });

  it('stops past its steps, its characters or its time', () => {
    const merge = (rows: number, over: Parameters<typeof budget>[0]) =>
      invoice.merge([record(rows)], DEFAULT_MERGE_OPTIONS, false, { budget: budget(over) });
    assert.throws(() => merge(2000, {}), OverBudgetError);
    assert.throws(() => merge(8, { steps: 5 }), OverBudgetError);
    assert.throws(() => merge(8, { chars: 1000 }), OverBudgetError);
    assert.throws(() => merge(8, { until: performance.now() - 1 }), OverBudgetError);
  });

  it('counts the values it writes against its characters, not only the template', () => {
    const big = 'x'.repeat(40_000);
    const template = CompiledTemplate.compile(docx(p(mergefield('a')) + p(mergefield('b')) + p(mergefield('c'))));
    const data = { a: big, b: big, c: big };
    assert.ok(template.merge([data], DEFAULT_MERGE_OPTIONS, false, { budget: budget({ chars: 200_000 }) })[0]);
    assert.throws(() => template.merge([data], DEFAULT_MERGE_OPTIONS, false, { budget: budget({ chars: 100_000 }) }), OverBudgetError);
  });
});
