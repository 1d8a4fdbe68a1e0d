import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseXml, serializeDocument } from '../../src/ooxml/xml.js';

describe('XML parts read and written again', () => {
  it('keep everything before and inside the root as written; what follows the root is left out', () => {
    const part = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n<a x="1">\n<b/><![CDATA[<c>]]><?pi body?>\n</a>';
    assert.equal(serializeDocument(parseXml(part, 'the part')), part);
    // An office writes a line end after the root; it was read as part of the prolog, before the root.
    assert.equal(serializeDocument(parseXml(`${part}\n<!-- after -->\n`, 'the part')), part);
  });
});
