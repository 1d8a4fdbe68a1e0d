// src/workers/inline.ts: which merges it takes on the event loop, and what it does when one fails
// there. A stack overflow (a template nested deeper than the event loop's stack holds, where a
// thread's holds it) cannot be caused on demand: the compiler is made to throw one.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InlineMerges } from '../../src/workers/inline.js';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { InputError } from '../../src/errors.js';
import { Records } from '../../src/merge/records.js';
import type { JsonObject } from '../../src/merge/scope.js';
import { docx, mergefield, p } from '../helpers/docx.js';

const template = docx(p(mergefield('name')));
const task = (records: object[], docxBytes = template) => ({
  docx: docxBytes,
  records: Records.of(records as JsonObject[]),
  options: DEFAULT_MERGE_OPTIONS,
});
const compile = CompiledTemplate.compile.bind(CompiledTemplate);

describe('merges on the event loop (InlineMerges)', () => {
  afterEach(() => {
    CompiledTemplate.compile = compile;
  });

  it('takes only admitted templates, one record of small data without SVG', () => {
    const inline = new InlineMerges(60_000);
    assert.equal(inline.merge('t', task([{ name: 'Ann' }])), undefined);
    inline.admit('t');
    assert.ok(inline.merge('t', task([{ name: 'Ann' }])));
    assert.equal(inline.merge('t', task([{ name: 'Ann' }, { name: 'Bob' }])), undefined);
    assert.equal(inline.merge('t', task([{ name: 'x'.repeat(9000) }])), undefined);
    assert.equal(
      inline.merge(
        't',
        task([{ name: `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64')}` }]),
      ),
      undefined,
    );
  });

  it('takes a template for the office and for DOCX each once admitted for it, and compiles it once for both', () => {
    const inline = new InlineMerges(60_000);
    let compiled = 0;
    CompiledTemplate.compile = (bytes) => {
      compiled++;
      return compile(bytes);
    };
    const office = { ...task([{ name: 'Ann' }]), inert: true };
    inline.admit('t', true);
    assert.equal(inline.merge('t', task([{ name: 'Ann' }])), undefined);
    assert.ok(inline.merge('t', office)?.updateFields !== undefined);
    inline.admit('t');
    assert.ok(inline.merge('t', task([{ name: 'Ann' }])));
    assert.ok(inline.merge('t', office));
    assert.equal(compiled, 1);
  });

  it('answers what the request did wrong as a thread would', () => {
    const inline = new InlineMerges(60_000);
    inline.admit('bad');
    assert.throws(() => inline.merge('bad', task([{ name: 'Ann' }], Buffer.from('not a package'))), InputError);
  });

  it('leaves a template to the threads at once when it fails here otherwise', () => {
    const inline = new InlineMerges(60_000);
    inline.admit('deep');
    CompiledTemplate.compile = () => {
      throw new RangeError('Maximum call stack size exceeded');
    };
    assert.equal(inline.merge('deep', task([{ name: 'Ann' }])), undefined);
    CompiledTemplate.compile = compile;
    inline.admit('deep');
    assert.equal(inline.merge('deep', task([{ name: 'Ann' }])), undefined);
  });

  it('leaves a merge past its time to a thread, and the template admitted (a cold event loop is slower)', () => {
    const slow = new InlineMerges(-1);
    slow.admit('t');
    for (let i = 0; i < 20; i++) assert.equal(slow.merge('t', task([{ name: 'Ann' }])), undefined);
    const state = slow as unknown as { admitted: { get(key: string): { strikes: number } } };
    assert.equal(state.admitted.get('t')?.strikes, 0);
  });
});
