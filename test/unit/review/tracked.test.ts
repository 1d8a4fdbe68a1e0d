import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANGE_KIND, listTrackedChanges, removeTrackedChange } from '../../../src/review/trackedChanges.js';
import { docx, p, partXml, run } from '../../helpers/docx.js';

const formatted =
  '<w:r><w:rPr><w:b/><w:rPrChange w:id="5" w:author="Cy" w:date="2024-01-01T00:00:00Z"><w:rPr><w:i/></w:rPr></w:rPrChange></w:rPr><w:t>bold now</w:t></w:r>';
const insertedMark =
  '<w:p><w:pPr><w:rPr><w:ins w:id="6" w:author="Di" w:date="2024-01-02T00:00:00Z"/></w:rPr></w:pPr>' + run('first') + '</w:p>';

describe('tracked changes: formatting and paragraph marks', () => {
  it('reports formatting and paragraph-mark revisions in document order', () => {
    const changes = listTrackedChanges(docx(insertedMark + p(run('x '), formatted)));
    assert.deepEqual(
      changes.map((c) => [c.id, c.changeKind, c.userName]),
      [
        [1, CHANGE_KIND.paragraph, 'Di'],
        [2, CHANGE_KIND.formatting, 'Cy'],
      ],
    );
    assert.equal(changes[1]!.start, 'first'.length + 1 + 'x '.length);
  });

  it('accepting a formatting change keeps the new look; rejecting restores the old one', () => {
    const d = docx(p(formatted));
    const accepted = partXml(removeTrackedChange(d, 1, true));
    assert.match(accepted, /<w:rPr><w:b\/><\/w:rPr><w:t>bold now/);
    const rejected = partXml(removeTrackedChange(d, 1, false));
    assert.match(rejected, /<w:rPr><w:i\/><\/w:rPr><w:t>bold now/);
    assert.equal(listTrackedChanges(removeTrackedChange(d, 1, true)).length, 0);
  });

  it('removes a paragraph-mark revision', () => {
    const out = removeTrackedChange(docx(insertedMark), 1, true);
    assert.ok(!partXml(out).includes('<w:ins'));
    assert.equal(listTrackedChanges(out).length, 0);
  });
});
