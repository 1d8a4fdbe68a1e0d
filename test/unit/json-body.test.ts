import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { arrayOfObjects, JsonArrayText, parseJsonBody } from '../../src/util/json.js';
import { parseRecordsText, Records } from '../../src/merge/records.js';
import { InputError } from '../../src/errors.js';

const body = (text: string) => parseJsonBody(Buffer.from(text), 'mergeData') as Record<string, unknown>;

/** A random JSON value with the characters a scan of JSON text can trip on: quotes, escapes, brackets and commas in strings. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 4 : 7));
  const texts = ['a', '"', '\\', '\\"', '[{', '}]', ',', 'mergeData', '"mergeData":[', '\u00e9\u4e2d', ''];
  switch (pick) {
    case 0:
      return texts[Math.floor(random() * texts.length)]! + texts[Math.floor(random() * texts.length)]!;
    case 1:
      return Math.round(random() * 1e6) / 100;
    case 2:
      return random() < 0.5 ? null : random() < 0.5;
    case 3:
      return -1;
    case 4:
    case 5:
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, (_, i) => [
          `${texts[Math.floor(random() * texts.length)]}${i}`,
          randomValue(random, depth + 1),
        ]),
      );
    default:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  }
}

function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

describe('merge data kept as the text it came as (util/json.ts, merge/records.ts)', () => {
  it('finds a plain array of records, leaves the rest of the body parsed as before', () => {
    const text =
      ' {"mergeSettings": {"culture": "de-DE"},\n "mergeData" : [ {"a": "x\\"]}"} ,{"b": [1, {"c": "["}]} ] , "template": "UEsDB"}';
    const parsed = body(text);
    const kept = parsed.mergeData as JsonArrayText;
    assert.ok(kept instanceof JsonArrayText);
    assert.equal(kept.count, 2);
    assert.deepEqual(JSON.parse(kept.text), (JSON.parse(text) as { mergeData: unknown }).mergeData);
    assert.deepEqual(parsed.mergeSettings, { culture: 'de-DE' });
    assert.equal(parsed.template, 'UEsDB');
  });

  it('parses anything less plain as before, so the schema names what is wrong', () => {
    for (const text of [
      '{"mergeData": {"one": "record"}}',
      '{"mergeData": []}',
      '{"mergeData": [{}, 3]}',
      '{"mergeData": ["x"]}',
      '{"mergeData": [{}], "mergeData": [{"b": 1}]}',
      '{"merge\\u0044ata": [{"a": 1}], "mergeData": [{"b": 1}]}',
      '{"other": {"mergeData": [{"a": 1}]}}',
      '[{"mergeData": [{"a": 1}]}]',
      '{"mergeData": null}',
    ]) {
      const parsed = parseJsonBody(Buffer.from(text), 'mergeData');
      assert.deepEqual(parsed, JSON.parse(text), text);
    }
    assert.throws(() => parseJsonBody(Buffer.from('{"mergeData": [{},]}'), 'mergeData'), /request body is not valid JSON/);
    assert.throws(() => parseJsonBody(Buffer.from('{"mergeData": [{}], "x": }'), 'mergeData'), /request body is not valid JSON/);
    assert.equal(arrayOfObjects('{"mergeData": [{} {}]}', 'mergeData'), undefined);
    const deep = `{"mergeData": [{"a": ${'['.repeat(150)}${']'.repeat(150)}}]}`;
    assert.throws(() => parseJsonBody(Buffer.from(deep), 'mergeData'), /nests arrays and objects more than 100 levels deep in "mergeData"/);
    assert.equal(arrayOfObjects('{"mergeData": [{}', 'mergeData'), undefined);
  });

  it('agrees with JSON.parse on random bodies', () => {
    const random = seeded(52);
    let kept = 0;
    for (let n = 0; n < 3000; n++) {
      const records = Array.from({ length: 1 + Math.floor(random() * 3) }, () => randomValue(random, 2));
      const value = random() < 0.8 ? records.map((r) => (r && typeof r === 'object' && !Array.isArray(r) ? r : { r })) : records;
      const shape = { before: randomValue(random, 1), mergeData: value, after: randomValue(random, 1) };
      const text = JSON.stringify(shape, null, random() < 0.5 ? 1 : undefined);
      const parsed = body(text);
      const sent = parsed.mergeData;
      if (sent instanceof JsonArrayText) {
        kept++;
        assert.deepEqual(JSON.parse(sent.text), shape.mergeData, text);
        assert.equal(sent.count, value.length);
        assert.deepEqual({ ...parsed, mergeData: shape.mergeData }, JSON.parse(text), text);
      } else {
        assert.deepEqual(parsed, JSON.parse(text), text);
      }
    }
    assert.ok(kept > 1000, `${kept} of 3000 kept as text`);
  });

  it('a thread parses the text as the body would have been: no __proto__ or constructor keys; broken JSON is a 400 naming mergeData', () => {
    const text = '[{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"x": 1}}, "name": "Ann"}]';
    const records = Records.sent(text, 1);
    assert.equal(records.length, 1);
    assert.equal(records.json, text, 'handed to the thread as sent');
    assert.deepEqual(records.objects, [{ name: 'Ann' }]);
    assert.equal(({} as { polluted?: number }).polluted, undefined);
    assert.throws(
      () => parseRecordsText('[{"a": }]'),
      (error: unknown) => error instanceof InputError && error.status === 400 && /^mergeData is not valid JSON/.test(error.message),
    );
    assert.equal(Records.of([{ a: 1 }]).json, '[{"a":1}]');
    assert.equal(JSON.stringify({ records: Records.sent('[ {"a" : 1} ]', 1) }), '{"records":[{"a":1}]}', 'a job stores them as JSON');
  });
});
