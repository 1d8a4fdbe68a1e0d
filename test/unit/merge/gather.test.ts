import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MERGE_OPTIONS } from '../../../src/merge/engine.js';
import { gathering } from '../../../src/merge/render.js';
import { block, cell, docx, field, mergefield, p, row, run, table } from '../../helpers/docx.js';
import { checkedCompile } from '../../helpers/word-rules.js';

// Rendering gathers the pieces of a long region into one string (src/merge/render.ts): the
// documents must be byte for byte those of rendering without it, whatever the template (the
// real-template sweep is in test/merge/gathering.test.ts).
const DEFAULT_AT = gathering.at;

function both(template: Buffer, records: object[], options = DEFAULT_MERGE_OPTIONS, append = false): [Buffer[], Buffer[]] {
  const compiled = checkedCompile(template);
  gathering.at = Number.POSITIVE_INFINITY;
  const plain = compiled.merge(records as never, options, append);
  gathering.at = 3; // gather as often as possible
  const gathered = compiled.merge(records as never, options, append);
  return [plain, gathered];
}

describe('gathering rendered pieces', () => {
  afterEach(() => {
    gathering.at = DEFAULT_AT;
  });

  it('keeps what cutting back regions does: empty tables go, cells keep a paragraph, empty lines go', () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ v: i % 3 === 0 ? '' : `v${i}`, w: `w${i}` }));
    const template = docx(
      table(row(cell(p(run('head')))), block('rows', row(cell(p(mergefield('v'))), cell(block('inner', p(mergefield('x'))))))) + // rows, cells with blocks
        table(row(cell(p(run('t2')))), block('none', row(cell(p(mergefield('v')))))) + // a table whose block is empty
        p(mergefield('v'), mergefield('w')) + // an empty line when v and w are empty
        block('rows', p(mergefield('v')), p(run('k '), mergefield('w')), p(field('NEXT'))),
    );
    for (const options of [DEFAULT_MERGE_OPTIONS, { ...DEFAULT_MERGE_OPTIONS, removeEmptyLines: true, removeEmptyBlocks: false }]) {
      const records = [
        { rows: rows(500).map((r, i) => ({ ...r, inner: i % 5 === 0 ? [] : [{ x: 'a' }, { x: 'b' }] })), none: [], v: '', w: '' },
        { rows: rows(3), none: [] },
      ];
      const [plain, gathered] = both(template, records, options);
      assert.deepEqual(gathered, plain);
      const [appendedPlain, appendedGathered] = both(template, records, options, true);
      assert.deepEqual(appendedGathered, appendedPlain);
    }
  });
});
