import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newDocx } from '../../src/ooxml/newPackage.js';
import { OoxmlPackage } from '../../src/ooxml/package.js';

describe('new packages (ooxml/newPackage.ts)', () => {
  it('hold the body, each part with its content type and relationship, and links as external relationships', () => {
    const bytes = newDocx(
      '<w:p><w:hyperlink r:id="rIdL1"><w:r><w:t>site</w:t></w:r></w:hyperlink></w:p><w:sectPr><w:footerReference w:type="default" r:id="rF"/></w:sectPr>',
      [
        { kind: 'styles', id: 'rS', content: '<w:style w:type="paragraph" w:styleId="Normal"/>' },
        { kind: 'footer', id: 'rF', content: '<w:p/>', links: [['rIdL1', 'https://example.com/?a=1&b=2']] },
      ],
      [['rIdL1', 'https://example.com/']],
    );
    const pkg = OoxmlPackage.read(bytes);
    assert.equal(pkg.mainDocument(), 'word/document.xml');
    assert.match(pkg.text('word/document.xml')!, /<w:body><w:p><w:hyperlink r:id="rIdL1">/);
    const rels = pkg.relationships('word/document.xml');
    assert.deepEqual(
      rels.map((r) => [r.id, r.type.split('/').pop(), r.target, r.external]),
      [
        ['rS', 'styles', 'styles.xml', false],
        ['rF', 'footer', 'footer1.xml', false],
        ['rIdL1', 'hyperlink', 'https://example.com/', true],
      ],
    );
    assert.equal(pkg.contentTypeOf('word/footer1.xml'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml');
    assert.equal(pkg.contentTypeOf('word/styles.xml'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml');
    assert.deepEqual(
      pkg.relationships('word/footer1.xml').map((r) => r.target),
      ['https://example.com/?a=1&b=2'],
    );
  });

  it('answer relationships as their part holds them now: read once per bytes, removed, added or rewritten', () => {
    const pkg = OoxmlPackage.read(
      newDocx('<w:p/>', [
        { kind: 'styles', id: 'rS', content: '' },
        { kind: 'footer', id: 'rF', content: '<w:p/>' },
      ]),
    );
    const ids = () => pkg.relationships('word/document.xml').map((r) => r.id);
    assert.deepEqual(ids(), ['rS', 'rF']);
    pkg.relationships('word/document.xml')[0]!.target = 'changed.xml';
    assert.equal(pkg.relationships('word/document.xml')[0]!.target, 'styles.xml', "a caller's change stays its own");
    pkg.removeRelationships('word/document.xml', (r) => r.id === 'rF');
    assert.deepEqual(ids(), ['rS']);
    pkg.addRelationships('word/document.xml', [{ id: 'rX', type: 'http://example.com/x', target: 'x.xml' }]);
    assert.deepEqual(ids(), ['rS', 'rX']);
    const rels = 'word/_rels/document.xml.rels';
    pkg.setText(rels, pkg.text(rels)!.replace('Id="rS"', 'Id="rT"'));
    assert.deepEqual(ids(), ['rT', 'rX']);
  });
});
