/** Reading the merge and find-and-replace bodies (api/requests/ is where wire input is read and checked). */
import type { FastifyRequest } from 'fastify';
import { InputError, PayloadTooLargeError } from '../../errors.js';
import type { ReturnFormat } from '../../formats/returnFormat.js';
import type { JsonObject } from '../../merge/scope.js';
import { jsonType } from '../../util/json.js';
import { parseMergeSettings } from './settings.js';

export function bodyObject(request: FastifyRequest | { body: unknown }, what: string): Record<string, unknown> {
  const body = request.body;
  if (body === undefined || body === null) throw new InputError(`The request body is empty; send a JSON object with ${what}.`);
  if (typeof body !== 'object' || Array.isArray(body))
    throw new InputError(`The request body must be a JSON object with ${what}, not a JSON ${jsonType(body)}.`);
  return body as Record<string, unknown>;
}

/** `mergeData`: an array of records or one record. */
export function parseRecords(value: unknown): JsonObject[] {
  if (value === undefined || value === null)
    throw new InputError('mergeData is missing: send an array of records (JSON objects) or one record.');
  const records = Array.isArray(value) ? value : [value];
  if (typeof value !== 'object')
    throw new InputError(`mergeData must be an array of records or one record (a JSON object), not a JSON ${jsonType(value)}.`);
  if (records.length === 0) throw new InputError('mergeData is an empty array; send at least one record.');
  records.forEach((record, i) => {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new InputError(`mergeData[${i}] must be a record (a JSON object), not a JSON ${jsonType(record)}.`);
    }
  });
  return records as JsonObject[];
}

/** The merge body both /document/merge and /document/preview take. */
export function mergeRequest(request: FastifyRequest | { body: unknown }) {
  const body = bodyObject(request, '"mergeData" (and "template" when no templateName is given)');
  return { template: body.template, records: parseRecords(body.mergeData), settings: parseMergeSettings(body.mergeSettings) };
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

/** `findAndReplaceData`: an array of [find, replace] string pairs. */
export function parsePairs(value: unknown): [string, string][] {
  if (value === undefined || value === null)
    throw new InputError('findAndReplaceData is missing: send an array of ["find", "replace"] pairs.');
  if (!Array.isArray(value)) throw new InputError('findAndReplaceData must be an array of ["find", "replace"] pairs.');
  if (value.length === 0) throw new InputError('findAndReplaceData is an empty array; send at least one pair.');
  return value.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || (typeof pair[1] !== 'string' && pair[1] !== null)) {
      throw new InputError(`findAndReplaceData[${i}] must be a pair of strings, like ["«name»", "Ann"].`);
    }
    return [pair[0], pair[1] ?? ''] as [string, string];
  });
}
