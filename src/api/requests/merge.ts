/**
 * The merge and find-and-replace bodies, normalised. Their shape is checked by the schemas
 * (schemas.ts) before they get here; what is left are the checks a schema cannot make.
 */
import { PayloadTooLargeError, InputError } from '../../errors.js';
import type { ReturnFormat } from '../../formats/returnFormat.js';
import type { JsonObject } from '../../merge/scope.js';
import { Records } from '../../merge/records.js';
import { JsonArrayText } from '../../util/json.js';
import type { FindAndReplaceBody, MergeBody } from './schemas.js';
import { parseMergeSettings } from './settings.js';

/** `mergeData`: an array of records or one record, or the array as its text (the merge routes' `keepAsText`). */
export function parseRecords(value: MergeBody['mergeData']): Records {
  const sent: unknown = value;
  if (sent instanceof JsonArrayText) return Records.sent(sent.text, sent.count);
  return Records.of((Array.isArray(value) ? value : [value]) as JsonObject[]);
}

/** The merge body /document/merge, /document/preview and /document/checkdata take. */
export function mergeRequest(body: MergeBody) {
  return { records: parseRecords(body.mergeData), settings: parseMergeSettings(body.mergeSettings) };
}

export function checkPdfProperties(format: ReturnFormat, title: string | undefined, subject: string | undefined): void {
  if (format !== 'pdf' && format !== 'pdfa') return;
  if ((title?.length ?? 0) > 2000)
    throw new InputError('mergeSettings.documentTitle is longer than 2000 characters, the limit for PDF output.');
  if ((subject?.length ?? 0) > 2000)
    throw new InputError('mergeSettings.documentSubject is longer than 2000 characters, the limit for PDF output.');
}

/** More records than this server merges in one request: 413 naming the setting. */
export function checkRecordCount(count: number, max: number): void {
  if (count > max)
    throw new PayloadTooLargeError(
      `mergeData has ${count} records; this server merges at most ${max} in one request (DOCSMITH_MAX_RECORDS). Split the data into several requests.`,
    );
}

/** `findAndReplaceData`: [find, replace] pairs; a null replacement removes the text. */
export function parsePairs(value: FindAndReplaceBody['findAndReplaceData']): [string, string][] {
  return value.map(([find, replace]) => [find, replace ?? '']);
}
