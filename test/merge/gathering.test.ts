import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { gathering } from '../../src/merge/render.js';
import { sampleRecord } from '../../packages/client/src/sample.js';
import { FIXTURES, filesUnder as files } from '../helpers/server.js';
import { checkedCompile } from '../helpers/word-rules.js';

// Rendering gathers the pieces of a long region into one string (src/merge/render.ts): over the
// whole real-template corpus (a sweep, so here and not in the unit tier), the documents are byte
// for byte those of rendering without it. test/unit/merge/gather.test.ts has the focused cases.
const DEFAULT_AT = gathering.at;

describe('gathering rendered pieces over the real-world templates', () => {
  afterEach(() => {
    gathering.at = DEFAULT_AT;
  });

  it('changes no byte of any real-world template merged with sample data', () => {
    const all = files(path.resolve(FIXTURES, '..', 'real-templates')).filter((f) => /\.docx$/i.test(f));
    assert.ok(all.length > 30);
    let compared = 0;
    for (const file of all) {
      let template: CompiledTemplate;
      try {
        template = checkedCompile(fs.readFileSync(file));
      } catch {
        continue; // templates the engine refuses are another test's subject
      }
      const record = sampleRecord(template.info);
      gathering.at = Number.POSITIVE_INFINITY;
      const plain = template.merge([record, record], DEFAULT_MERGE_OPTIONS, false);
      gathering.at = 3; // gather as often as possible
      const gathered = template.merge([record, record], DEFAULT_MERGE_OPTIONS, false);
      assert.deepEqual(gathered, plain, path.basename(file));
      compared++;
    }
    assert.ok(compared > 30, `${compared} compared`);
  });
});
