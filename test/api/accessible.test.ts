import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/server.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { errorMessage as message, type Client } from '../helpers/http.js';
import { docx, mergefield, p, run } from '../helpers/docx.js';

const skip = spawnSync('sh', ['-c', 'command -v pdfinfo']).status !== 0 ? 'pdfinfo is needed: apt-get install poppler-utils' : false;

/** What poppler's pdfinfo says of a PDF (`-struct`: its structure tree; `-meta`: its XMP metadata). */
function pdfinfo(pdf: Buffer, ...options: string[]): string {
  const file = path.join(tempDir(), 'doc.pdf');
  fs.writeFileSync(file, pdf);
  const result = spawnSync('pdfinfo', [...options, file], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return `${result.stdout}${result.stderr}`;
}

describe('accessible PDFs, PDF/UA (docsmith)', { skip }, () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let ann: Client;
  // The template's language (its default run language) becomes the PDF's.
  const styles = '<w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="de-DE"/></w:rPr></w:rPrDefault></w:docDefaults>';
  const template = docx(p(run('Rechnung für '), mergefield('name')) + p(run('Vielen Dank.')), { styles }).toString('base64');
  const first = (reply: { json(): unknown }) => Buffer.from((reply.json() as string[])[0]!, 'base64');

  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-UA' } }, { DOCSMITH_OFFICE_PROCESSES: '1' });
    ann = env.clients.ann!;
  });
  after(async () => {
    await env?.close();
  });

  it('makes tagged PDF/UA output with a structure tree, the title and the language, on request', async () => {
    const body = { template, mergeData: [{ name: 'Ann' }], mergeSettings: { documentTitle: 'Rechnung 778723' } };
    const merged = await ann.post('/v1/document/merge?returnFormat=PDF&accessible=true', { json: body });
    assert.equal(merged.status, 200, merged.text);
    const pdf = first(merged);
    assert.match(pdfinfo(pdf), /Tagged:\s+yes/);
    assert.match(pdfinfo(pdf), /Title:\s+Rechnung 778723/);
    assert.match(pdfinfo(pdf, '-meta'), /<pdfuaid:part>1<\/pdfuaid:part>/);
    const tree = pdfinfo(pdf, '-struct');
    assert.match(tree, /Document/);
    assert.match(tree, /\bP\b/, 'paragraphs tagged');
    assert.match(pdf.toString('latin1'), /\/Lang\s*\(de-DE\)/);
    assert.match(pdf.toString('latin1'), /\/DisplayDocTitle\s+true/);

    // PDF/A and PDF/UA together.
    const both = first(await ann.post('/v1/document/merge?returnFormat=PDFA&accessible=true', { json: body }));
    const meta = pdfinfo(both, '-meta');
    assert.match(meta, /<pdfuaid:part>1<\/pdfuaid:part>/);
    assert.match(meta, /<pdfaid:part>2<\/pdfaid:part>/);

    // Without a title anywhere, the document still has one (PDF/UA needs it).
    const untitled = first(
      await ann.post('/v1/document/merge?returnFormat=PDF&accessible=true', { json: { template, mergeData: [{ name: 'Bo' }] } }),
    );
    assert.match(pdfinfo(untitled), /Title:\s+\S/);

    // Not asked: untagged, as before.
    const plain = first(await ann.post('/v1/document/merge?returnFormat=PDF', { json: body }));
    assert.match(pdfinfo(plain), /Tagged:\s+no/);
    assert.doesNotMatch(pdfinfo(plain, '-meta'), /pdfuaid/);

    const converted = await ann.post('/v1/document/convert?returnFormat=PDF&accessible=true', {
      json: Buffer.from(template, 'base64').toString('base64'),
    });
    assert.equal(converted.status, 200, converted.text);
    assert.match(pdfinfo(Buffer.from(converted.json() as string, 'base64')), /Tagged:\s+yes/);

    for (const [url, json, pattern] of [
      ['/v1/document/merge?returnFormat=DOCX&accessible=true', body, /returnFormat must be PDF or PDFA, not DOCX/],
      ['/v1/document/convert?returnFormat=PDF&accessible=true', plain.toString('base64'), /A PDF passes through convert as it is/],
    ] as const) {
      const refused = await ann.post(url, { json: json as never });
      assert.equal(refused.status, 400, url);
      assert.match(message(refused), pattern);
    }
  });
});
