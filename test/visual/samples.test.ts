// The samples a newcomer merges first (samples/): still what the visual suite's approved cases make,
// and the README's first command merges one to a PDF with its data.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SAMPLES, sameFile, sampleFiles } from '../../scripts/samples.js';
import { ROOT, tempDir } from '../helpers/server.js';
import { pdfText } from '../../src/formats/pdf.js';

describe('samples', () => {
  it('are the visual suite cases whose pages are approved', () => {
    for (const folder of Object.keys(SAMPLES))
      for (const [name, bytes] of Object.entries(sampleFiles(folder))) {
        const file = path.join(ROOT, 'samples', folder, name);
        assert.ok(fs.existsSync(file) && sameFile(name, fs.readFileSync(file), bytes), `samples/${folder}/${name}: run scripts/samples.ts`);
      }
  });

  it('merge as the README says: the invoice to PDF with the CLI, no server', async () => {
    const out = path.join(tempDir(), 'invoice.pdf');
    const run = spawnSync(
      process.execPath,
      ['bin/docsmith.js', 'merge', '--template', 'samples/invoice/template.docx', '--data', 'samples/invoice/data.json', '-o', out],
      { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const text = await pdfText(fs.readFileSync(out));
    for (const expected of [/Invoice number #778723/, /Item description 2/, /\$8,210\.54/, /TEXT CONTROL, LLC/])
      assert.match(text, expected);
  });
});
