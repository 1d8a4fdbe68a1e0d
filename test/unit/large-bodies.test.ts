import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBase64, forgetDecoded, keepDecoded, withDecodedBase64 } from '../../src/util/base64.js';
import { parseJsonBody } from '../../src/util/json.js';

const big = (byte: number) => Buffer.alloc(300_000, byte);

describe('large bodies: documents decoded where the body is parsed (a worker thread)', () => {
  it('takes the documents out of the body, leaves stand-ins that decode to their bytes once', () => {
    const text = JSON.stringify({
      template: big(1).toString('base64'),
      documents: [{ document: big(2).toString('base64') }, { document: 'short' }],
      mergeData: [{ picture: big(3).toString('base64') }],
    });
    const parsed = withDecodedBase64(parseJsonBody(Buffer.from(text)));
    const body = parsed.value as { template: string; documents: { document: string }[]; mergeData: { picture: string }[] };
    assert.equal(parsed.decoded.length, 2);
    assert.ok(body.template.length < 100 && body.documents[0]!.document.length < 100, 'the long texts stay in the thread');
    assert.equal(body.documents[1]!.document, 'short');
    assert.equal(body.mergeData[0]!.picture.length, big(3).toString('base64').length, 'merge data is left as it came');
    const kept = keepDecoded(parsed);
    assert.ok(decodeBase64(body.template, 'The template').equals(big(1)));
    assert.throws(() => decodeBase64(body.template, 'The template'), /The template is no longer at hand/);
    forgetDecoded(kept);
    assert.throws(() => decodeBase64(body.documents[0]!.document, 'documents[0].document'), /no longer at hand/);
  });

  it('leaves a long text that is not Base64 to the parser, which names it', () => {
    const parsed = withDecodedBase64(parseJsonBody(Buffer.from(JSON.stringify({ template: '!'.repeat(300_000) }))));
    assert.equal(parsed.decoded.length, 0);
    assert.throws(() => decodeBase64((parsed.value as { template: string }).template, 'The template'), /The template is not valid Base64/);
  });

  it('a bare document body is taken too; a made-up stand-in is a 400, never another request\u2019s document', () => {
    const parsed = withDecodedBase64(parseJsonBody(Buffer.from(JSON.stringify(big(4).toString('base64')))));
    assert.equal(parsed.decoded.length, 1);
    assert.throws(() => decodeBase64('\u0000docsmith-decoded:guess', 'The document'), /no longer at hand/);
  });
});
