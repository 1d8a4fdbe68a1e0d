/**
 * Templates a new account may find stored (DOCSMITH_SAMPLE_TEMPLATES=1), as ReportingCloud's
 * trial accounts find their demo template, which the SDKs' test suites expect: the PHP SDK's
 * invoice (BSD-3, samples/reportingcloud/), under the vendor's name for it.
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import type { DocumentFormat } from '../formats/detect.js';

export interface SampleTemplate {
  name: string;
  format: DocumentFormat;
  sha256: string;
  data: Buffer;
}

/** Read from src/ and dist/ alike: the samples folder sits beside both. */
export function sampleTemplates(): SampleTemplate[] {
  const data = fs.readFileSync(new URL('../../samples/reportingcloud/sample_invoice.tx', import.meta.url));
  return [{ name: 'sample_invoice.tx', format: 'tx', sha256: createHash('sha256').update(data).digest('hex'), data }];
}
