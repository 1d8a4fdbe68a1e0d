import { after, before, describe, it } from 'node:test';
import { requireFormat } from '../../src/formats/detect.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CompiledTemplate, DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { sampleRecord } from '../../packages/client/src/sample.js';
import { Converter } from '../../src/convert/converter.js';
import { Normaliser } from '../../src/convert/normalise.js';
import type { OfficePool } from '../../src/office/pool.js';
import { openSandbox } from '../../src/office/sandbox.js';
import { FIXTURES, filesUnder as files, tempDir } from '../helpers/server.js';
import { pdfFacts, testPool } from '../helpers/office.js';
import { newProblems } from '../helpers/word-rules.js';

const ROOT = path.resolve(FIXTURES, '..', 'real-templates');

describe('robustness: the real-world mail-merge templates', () => {
  let pool: OfficePool;
  let converter: Converter;
  let normaliser: Normaliser;
  before(async () => {
    pool = testPool({ size: 2 });
    await pool.start();
    converter = new Converter(pool, {
      sofficePath: '/usr/lib/libreoffice/program/soffice.bin',
      sandbox: openSandbox('auto'),
      timeoutMs: 60_000,
    });
    normaliser = new Normaliser(converter, tempDir());
  });
  after(() => pool.close());

  it('each one loads, lists its fields, merges empty and sample data, and opens in LibreOffice', async () => {
    const all = files(ROOT).filter((file) => /\.(docx|doc|dotx|rtf)$/i.test(file));
    assert.equal(all.length, 57);
    const failures: string[] = [];
    let fieldsSeen = 0;
    for (const file of all) {
      const name = path.relative(ROOT, file);
      try {
        const bytes = fs.readFileSync(file);
        const format = requireFormat(bytes, ['docx', 'doc', 'rtf'], name);
        const docx = format === 'docx' ? bytes : await normaliser.toDocx(bytes, format as 'doc' | 'rtf');
        const template = CompiledTemplate.compile(docx, name);
        fieldsSeen += template.info.mergeFields.length + template.info.mergeBlocks.length;
        const [empty] = template.merge([{}], DEFAULT_MERGE_OPTIONS, false);
        const [sample] = template.merge(
          [sampleRecord(template.info), sampleRecord(template.info, 1)],
          { ...DEFAULT_MERGE_OPTIONS, removeEmptyFields: false },
          true,
        );
        // Whatever faults a template brings, the merge adds none Word would stumble on (test/helpers/word-rules.ts).
        const added = [...newProblems(empty!, [docx]), ...newProblems(sample!, [docx])];
        if (added.length > 0) failures.push(`${name}: ${added.slice(0, 3).join('; ')}`);
        for (const out of [empty!, sample!]) {
          const pdf = (await converter.convert(out, 'docx', 'pdf')).data;
          assert.ok(pdfFacts(pdf).pages >= 1);
        }
      } catch (error) {
        failures.push(`${name}: ${(error as Error).message}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(fieldsSeen > 100, `only ${fieldsSeen} fields and blocks found`);
  });
});
