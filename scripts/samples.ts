/**
 * Writes samples/: templates and data a newcomer merges first, taken from the visual suite's
 * cases (test/visual/cases.ts), whose merged pages are approved images. `--check` only compares
 * (the samples test runs it): the files in samples/ must be what the cases make.
 *
 *   node --import tsx scripts/samples.ts [--check]
 */
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { cases } from '../test/visual/cases.js';

/** The same file: for a DOCX the same parts with the same bytes (the ZIP's times may differ). */
export function sameFile(name: string, a: Buffer, b: Buffer): boolean {
  if (!name.endsWith('.docx')) return a.equals(b);
  const [x, y] = [unzipSync(a), unzipSync(b)];
  const names = Object.keys(x).sort();
  return names.join() === Object.keys(y).sort().join() && names.every((n) => Buffer.from(x[n]!).equals(Buffer.from(y[n]!)));
}

const ROOT = path.resolve(import.meta.dirname, '..');
/** samples/<folder> from the visual case of that name. */
export const SAMPLES: Record<string, string> = {
  letter: 'letter',
  invoice: 'sdk-invoice-tx',
  labels: 'labels',
  'shipping-label': 'shipping-label',
  'sales-report': 'sales-report',
  'html-notes': 'html-notes',
  badges: 'badges',
};

/** The files of one sample: its template, its data, and its merge settings when it has any. */
export function sampleFiles(folder: string): Record<string, Buffer> {
  const c = cases.find((x) => x.name === SAMPLES[folder]);
  if (!c) throw new Error(`no visual case "${SAMPLES[folder]}"`);
  const files: Record<string, Buffer> = {
    'template.docx': c.template,
    'data.json': Buffer.from(JSON.stringify(c.records, null, 2) + '\n'),
  };
  if (c.options) files['settings.json'] = Buffer.from(JSON.stringify(c.options, null, 2) + '\n');
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const folder of Object.keys(SAMPLES)) {
    for (const [name, bytes] of Object.entries(sampleFiles(folder))) {
      const file = path.join(ROOT, 'samples', folder, name);
      const same = fs.existsSync(file) && sameFile(name, fs.readFileSync(file), bytes);
      if (check) {
        if (!same) {
          console.error(`samples/${folder}/${name} is not what test/visual/cases.ts makes: run node --import tsx scripts/samples.ts`);
          stale++;
        }
      } else if (!same) {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, bytes);
        console.log(`wrote samples/${folder}/${name}`);
      }
    }
  }
  process.exit(stale ? 1 : 0);
}
