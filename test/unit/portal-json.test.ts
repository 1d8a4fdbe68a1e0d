import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkMergeData, jsonProblems } from '../../portal/src/json.js';

describe('portal: merge data checks', () => {
  it('accepts a record or a list of records', () => {
    assert.deepEqual(checkMergeData('{"a": 1}'), { ok: true, records: [{ a: 1 }] });
    assert.deepEqual(checkMergeData('[{"a": 1}, {"a": 2}]'), { ok: true, records: [{ a: 1 }, { a: 2 }] });
  });

  it('says where and why the text is not JSON', () => {
    assert.deepEqual(checkMergeData('[{\n  "a": 1,\n  "b": }]'), {
      ok: false,
      message: 'The data is not valid JSON: a value is expected (line 3, column 8).',
    });
    assert.match((checkMergeData('[{"a": 1,}]') as { message: string }).message, /no trailing comma/);
    assert.match((checkMergeData('{"a": 1} // note') as { message: string }).message, /comments are not allowed/);
    assert.match((checkMergeData('') as { message: string }).message, /a value is expected/);
    assert.deepEqual(jsonProblems('{"a": 1'), [{ from: 7, to: 7, message: 'a closing } is expected' }]);
  });

  it('says when the JSON is not records', () => {
    assert.equal(
      (checkMergeData('[]') as { message: string }).message,
      'The data is an empty list; add at least one record (a JSON object).',
    );
    assert.equal((checkMergeData('[{}, 3]') as { message: string }).message, 'Record 2 is not a JSON object ({ … }).');
    assert.equal(
      (checkMergeData('"text"') as { message: string }).message,
      'The data must be a record ({ … }) or a list of records ([{ … }]).',
    );
  });
});
