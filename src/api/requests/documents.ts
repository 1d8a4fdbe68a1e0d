/** The merge, append and convert requests read off the wire into their typed form (operations/requests.ts). */
import { requireFormat } from '../../formats/detect.js';
import { decodeBase64 } from '../../util/base64.js';
import type { AppendRequest, ConvertRequest, MergeRequest } from '../../operations/requests.js';
import { booleanParam, stringBody, type Query } from '../wire.js';
import { parseReturnFormat } from './returnFormat.js';
import { parseDocumentSettings } from './settings.js';
import { parseEntries } from './append.js';
import { checkPdfProperties, checkRecordCount, mergeRequest } from './merge.js';

export function parseMergeRequest(query: Query, body: unknown, maxRecords: number): MergeRequest {
  const format = parseReturnFormat(query.returnFormat);
  const append = booleanParam(query, 'append', true);
  const test = booleanParam(query, 'test', false);
  const { template, records, settings } = mergeRequest({ body });
  checkPdfProperties(format, settings.document.properties.title, settings.document.properties.subject);
  checkRecordCount(records.length, maxRecords);
  return {
    kind: 'merge',
    format,
    append,
    test,
    templateName: query.templateName,
    template,
    records,
    options: settings.options,
    document: settings.document,
  };
}

export function parseAppendRequest(query: Query, body: unknown): AppendRequest {
  const format = parseReturnFormat(query.returnFormat);
  const test = booleanParam(query, 'test', false);
  const { entries, settings } = parseEntries(body);
  return { kind: 'append', format, test, documents: entries, document: parseDocumentSettings(settings, 'documentSettings') };
}

export function parseConvertRequest(query: Query, body: unknown): ConvertRequest {
  const format = parseReturnFormat(query.returnFormat);
  const test = booleanParam(query, 'test', false);
  const document = decodeBase64(stringBody({ body }, 'the document as Base64'), 'The document');
  return { kind: 'convert', format, test, document, from: requireFormat(document, ['docx', 'doc', 'rtf', 'html', 'pdf']) };
}
