/** The document requests read off the wire into their typed form (operations/kinds/): one parser per endpoint. */
import { DOCUMENT_FORMATS, requireFormat } from '../../formats/detect.js';
import { InputError } from '../../errors.js';
import { decodeBase64 } from '../../util/base64.js';
import { parseSyntax } from '../../merge/syntax/index.js';
import type {
  AppendRequest,
  ConvertRequest,
  FindAndReplaceRequest,
  InfoRequest,
  MergeRequest,
  PageCountRequest,
  PageImagesRequest,
  PreviewRequest,
  RemoveTrackedChangeRequest,
  ThumbnailsRequest,
  TrackedChangesRequest,
} from '../../operations/kinds/index.js';
import { booleanParam, type Query } from '../wire.js';
import type { Source } from '../../operations/work.js';
import type { AppendBody, Base64Body, FindAndReplaceBody, MergeBody } from './schemas.js';
import { parseReturnFormat } from './returnFormat.js';
import { isSignatureMode, SIGNATURE_MODES, type SignatureMode } from '../../documents/signing.js';
import type { ReturnFormat } from '../../formats/returnFormat.js';
import type { EInvoiceRequest } from '../../documents/einvoice.js';
import { parseDocumentSettings, parseMergeSettings } from './settings.js';
import { parseEntries } from './append.js';
import { checkPdfProperties, checkRecordCount, mergeRequest, parsePairs } from './merge.js';
import { parseThumbnailRequest } from './thumbnails.js';

/** A query parameter the schema requires (the CLI and job replays reach parsers without the schema). */
function required(query: Query, name: string): string {
  const value = query[name];
  if (value === undefined) throw new InputError(`The query parameter "${name}" is required.`);
  return value;
}

const documentBytes = (body: Base64Body) => decodeBase64(body, 'The document');

/**
 * `signature` (docsmith): sign PDF output with the server's certificate (visible, invisible) or
 * not (none); absent: the account's default. Only PDF and PDFA can carry one.
 */
export function signatureOf(query: Query, format: ReturnFormat): { signature?: SignatureMode } {
  const value = query.signature;
  if (value === undefined) return {};
  if (!isSignatureMode(value)) throw new InputError(`signature is one of ${SIGNATURE_MODES.join(', ')}, not "${value}".`);
  if (value !== 'none' && format !== 'pdf' && format !== 'pdfa')
    throw new InputError(`Only PDF and PDFA documents can be signed; returnFormat is ${format.toUpperCase()}.`);
  return { signature: value };
}

/** `accessible=true` (docsmith): tagged PDF/UA output, for PDF and PDFA. */
export function accessibleOf(query: Query, format: ReturnFormat): { accessible?: true } {
  if (!booleanParam(query, 'accessible', false)) return {};
  if (format !== 'pdf' && format !== 'pdfa')
    throw new InputError(`accessible=true makes a tagged PDF/UA document: returnFormat must be PDF or PDFA, not ${format.toUpperCase()}.`);
  return { accessible: true };
}

/** `templateVersion` (docsmith): a stored template's version number, as GET /v1/templates/versions lists them. */
export function templateVersionOf(query: Query): { templateVersion?: number } {
  const text = query.templateVersion;
  if (text === undefined) return {};
  if (!/^[1-9][0-9]{0,8}$/.test(text))
    throw new InputError(`templateVersion must be a version number from GET /v1/templates/versions, not "${text}".`);
  if (query.templateName === undefined) throw new InputError('templateVersion needs templateName: only a stored template has versions.');
  return { templateVersion: Number(text) };
}

/** What every request with a merge body carries besides its template: the records (at most `maxRecords`), the settings. */
export function mergeFields(body: MergeBody, maxRecords: number) {
  const { records, settings } = mergeRequest(body);
  checkRecordCount(records.length, maxRecords);
  return {
    records,
    options: settings.options,
    document: settings.document,
    ...(settings.translations ? { translations: settings.translations } : {}),
  };
}

/**
 * The template a request names (`templateName`, with `templateVersion`) or sends (`template`,
 * Base64): exactly one. Read after the request's other values, so their messages come first.
 */
export function templateOf(query: Query, uploaded: unknown): Source {
  const name = query.templateName;
  if (name !== undefined && uploaded !== undefined && uploaded !== null)
    throw new InputError('Send either templateName or a template in the body, not both.');
  const syntax = parseSyntax(query.templateSyntax);
  const typed = syntax ? { syntax } : {};
  if (name !== undefined) return { templateName: name, ...templateVersionOf(query), ...typed };
  templateVersionOf(query);
  if (typeof uploaded === 'string' && uploaded !== '') return { bytes: decodeBase64(uploaded, 'The template'), ...typed };
  if (uploaded === undefined || uploaded === null || uploaded === '')
    throw new InputError('No template: pass templateName for a stored template or send one in the body as "template" (Base64).');
  throw new InputError('"template" must be a Base64 string.');
}

/**
 * `einvoice=factur-x` (docsmith; `zugferd` is the same): PDF/A-3 documents carrying their invoice's
 * CII XML, sent as `einvoiceXml` (one invoice) or built from each record (docs/einvoice.md).
 */
export function einvoiceOf(
  query: Query,
  body: MergeBody,
  format: ReturnFormat,
  append: boolean,
  records: number,
): { einvoice?: EInvoiceRequest } {
  const value = query.einvoice?.toLowerCase();
  const xml = body.einvoiceXml;
  if (value === undefined || value === 'none') {
    if (xml !== undefined) throw new InputError('einvoiceXml is attached only with einvoice=factur-x.');
    return {};
  }
  if (value !== 'factur-x' && value !== 'zugferd')
    throw new InputError(`einvoice is factur-x (or zugferd, the same) or none, not "${query.einvoice}".`);
  if (format !== 'pdf' && format !== 'pdfa')
    throw new InputError(`An e-invoice is a PDF/A-3 document: returnFormat must be PDF or PDFA, not ${format.toUpperCase()}.`);
  const documents = append ? 1 : records;
  if (append && records > 1)
    throw new InputError(
      `An e-invoice is one invoice: merge one record, or ask append=false for one invoice per record (${records} records were sent).`,
    );
  if (xml === undefined) return { einvoice: {} };
  if (documents > 1) throw new InputError(`einvoiceXml is one invoice, but the merge makes ${documents} documents: send one record.`);
  return { einvoice: { xml } };
}

/** A merge request; `source`: a template already read (the CLI's file) in place of the body's. */
export function parseMergeRequest(query: Query, body: MergeBody, maxRecords: number, source?: Source): MergeRequest {
  const format = parseReturnFormat(query.returnFormat);
  const append = booleanParam(query, 'append', true);
  const test = booleanParam(query, 'test', false);
  const fields = mergeFields(body, maxRecords);
  checkPdfProperties(format, fields.document.properties.title, fields.document.properties.subject);
  const einvoice = einvoiceOf(query, body, format, append, fields.records.length);
  return {
    kind: 'merge',
    // An e-invoice is PDF/A-3b whichever PDF was asked for.
    format: einvoice.einvoice ? 'pdfa' : format,
    append,
    test,
    ...fields,
    document: { ...fields.document, ...accessibleOf(query, format), ...(einvoice.einvoice ? { pdfa3: true } : {}) },
    ...signatureOf(query, format),
    ...einvoice,
    source: source ?? templateOf(query, body.template),
  };
}

export function parsePreviewRequest(query: Query, body: MergeBody, maxRecords: number): PreviewRequest {
  const view = parseThumbnailRequest(query);
  const test = booleanParam(query, 'test', false);
  const fields = mergeFields(body, maxRecords);
  return { kind: 'preview', test, ...fields, view, source: templateOf(query, body.template) };
}

export function parseFindAndReplaceRequest(query: Query, body: FindAndReplaceBody): FindAndReplaceRequest {
  const format = parseReturnFormat(query.returnFormat);
  const test = booleanParam(query, 'test', false);
  const pairs = parsePairs(body.findAndReplaceData);
  const settings = parseMergeSettings(body.mergeSettings);
  checkPdfProperties(format, settings.document.properties.title, settings.document.properties.subject);
  return {
    kind: 'findAndReplace',
    format,
    test,
    pairs,
    document: { ...settings.document, ...accessibleOf(query, format) },
    ...signatureOf(query, format),
    source: templateOf(query, body.template),
  };
}

export function parseAppendRequest(query: Query, body: AppendBody): AppendRequest {
  const format = parseReturnFormat(query.returnFormat);
  const test = booleanParam(query, 'test', false);
  const documents = parseEntries(body);
  return {
    kind: 'append',
    format,
    test,
    documents,
    document: { ...parseDocumentSettings(body.documentSettings, 'documentSettings'), ...accessibleOf(query, format) },
    ...signatureOf(query, format),
  };
}

export function parseConvertRequest(query: Query, body: Base64Body): ConvertRequest {
  const format = parseReturnFormat(query.returnFormat);
  const test = booleanParam(query, 'test', false);
  const document = documentBytes(body);
  return {
    kind: 'convert',
    format,
    test,
    document,
    from: requireFormat(document, DOCUMENT_FORMATS),
    ...signatureOf(query, format),
    ...accessibleOf(query, format),
  };
}

/** Page images of a sent document. */
export function parseThumbnailsRequest(query: Query, body: Base64Body): ThumbnailsRequest {
  const view = parseThumbnailRequest(query);
  const bytes = documentBytes(body);
  return { kind: 'thumbnails', source: { bytes, format: requireFormat(bytes, [...DOCUMENT_FORMATS, 'xlsx']) }, view };
}

/** Page images of a stored template. */
export function parseTemplateThumbnailsRequest(query: Query): ThumbnailsRequest {
  return { kind: 'thumbnails', source: { templateName: required(query, 'templateName') }, view: parseThumbnailRequest(query) };
}

/** The few sizes page images are made in for the portal and share links (their image cache stays small). */
export const PAGE_IMAGE_ZOOMS = new Set([25, 50, 100, 150]);

/** One page of a stored template as PNG, uncounted (the portal's previews). */
export function parsePageImageRequest(query: Query): PageImagesRequest {
  const page = Number(query.page ?? 1);
  const zoom = Number(query.zoom ?? 100);
  if (!Number.isInteger(page) || page < 1) throw new InputError('page must be a page number from 1.');
  if (!PAGE_IMAGE_ZOOMS.has(zoom)) throw new InputError('zoom must be 25, 50, 100 or 150.');
  return {
    kind: 'pageImages',
    source: { templateName: required(query, 'templateName') },
    view: { zoom, fromPage: page, toPage: page, format: 'png' },
  };
}

export function parsePageCountRequest(query: Query): PageCountRequest {
  return { kind: 'pageCount', source: { templateName: required(query, 'templateName') } };
}

export function parseInfoRequest(query: Query): InfoRequest {
  const syntax = parseSyntax(query.templateSyntax);
  return {
    kind: 'info',
    source: { templateName: required(query, 'templateName'), ...templateVersionOf(query), ...(syntax ? { syntax } : {}) },
  };
}

export function parseTrackedChangesRequest(body: Base64Body): TrackedChangesRequest {
  return { kind: 'trackedChanges', document: documentBytes(body) };
}

export function parseRemoveTrackedChangeRequest(query: Query, body: Base64Body): RemoveTrackedChangeRequest {
  const idText = required(query, 'id');
  if (!/^\d+$/.test(idText)) throw new InputError(`id must be the number of a tracked change, not "${idText}".`);
  const accept = booleanParam(query, 'accept', true);
  return { kind: 'removeTrackedChange', document: documentBytes(body), id: Number(idText), accept };
}
