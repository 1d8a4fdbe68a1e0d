import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { documentsJson, documentsJsonLength, documentsJsonPieces } from '../../src/operations/answer.js';

describe('document answers written in pieces', () => {
  it('join up to the JSON of Base64 strings, of the length announced, at every piece boundary', async () => {
    const piece = 3 * 256 * 1024;
    const sizes = [0, 1, 2, 3, piece - 1, piece, piece + 1, 2 * piece + 2];
    const documents = sizes.map((n) => randomBytes(n));
    for (const list of [true, false]) {
      const chosen = list ? documents : [documents.at(-1)!];
      const expected = JSON.stringify(list ? chosen.map((d) => d.toString('base64')) : chosen[0]!.toString('base64'));
      const joined = Buffer.concat([...documentsJsonPieces(chosen, list)]).toString('latin1');
      assert.equal(joined, expected);
      assert.equal(documentsJsonLength(chosen, list), Buffer.byteLength(expected));
      assert.equal((await documentsJson(chosen, list)).toString('latin1'), expected);
    }
    assert.equal(Buffer.concat([...documentsJsonPieces([], true)]).toString(), '[]');
    assert.equal(documentsJsonLength([], true), 2);
  });
});
