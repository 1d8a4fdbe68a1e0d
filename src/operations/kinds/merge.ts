/** Merges: documents from a template and records, page images of them (the playground), and the data checked alone. */
import type { SignatureMode } from '../../documents/signing.js';
import type { EInvoiceRequest } from '../../documents/einvoice.js';
import { settingsFromJson, settingsToJson, type DocumentSettings } from '../../documents/settings.js';
import type { ReturnFormat } from '../../formats/returnFormat.js';
import type { MergeOptions } from '../../merge/engine.js';
import type { JsonObject } from '../../merge/scope.js';
import { Records } from '../../merge/records.js';
import type { DataCheck } from '../../merge/datacheck.js';
import type { ThumbnailRequest } from '../../render/thumbnails.js';
import { decodeBase64 } from '../../util/base64.js';
import { InputError } from '../../errors.js';
import { asSyntax, tagContext } from '../../merge/syntax/index.js';
import type { Answer, Row, Source } from '../work.js';
import type { TemplateInput } from '../io.js';

export interface MergeRequest {
  kind: 'merge';
  source: Source;
  format: ReturnFormat;
  append: boolean;
  test: boolean;
  records: Records;
  options: MergeOptions;
  document: DocumentSettings;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
  /** docsmith: Factur-X e-invoices (PDF/A-3 with the invoice's XML attached). */
  einvoice?: EInvoiceRequest;
  /** docsmith: translation tables by language for typed tags (`{t(…)}`). */
  translations?: Record<string, Record<string, string>>;
}

/** A merge of all records shown as page images (the portal's playground). */
export interface PreviewRequest {
  kind: 'preview';
  source: Source;
  test: boolean;
  records: Records;
  options: MergeOptions;
  document: DocumentSettings;
  view: ThumbnailRequest;
  translations?: Record<string, Record<string, string>>;
}

/** The data checked against a template's fields and blocks, with no document made. */
export interface CheckDataRequest {
  kind: 'checkData';
  source: Source;
  records: Records;
  /** Values every record shares (mergeSettings.complement). */
  complement?: JsonObject;
}

/** A waiting merge's template as stored: by name (and version), or as Base64 (a job queued before decoding moved to the parser holds it as sent). */
function storedSource(name: unknown, version: unknown, template: unknown, syntax: unknown): Source {
  const typed = typeof syntax === 'string' ? { syntax: asSyntax(syntax) } : {};
  if (typeof name === 'string')
    return { templateName: name, ...(typeof version === 'number' ? { templateVersion: version } : {}), ...typed };
  if (typeof template === 'string' && template !== '') return { bytes: decodeBase64(template, 'The template'), ...typed };
  throw new InputError('The job holds no template.');
}

/** The template as a merge reads it: its bytes, name, syntax and hash, and what the request gives its typed tags. */
function typed(request: MergeRequest | PreviewRequest, source: TemplateInput) {
  return {
    template: source.bytes,
    what: source.what,
    syntax: source.syntax,
    sha256: source.sha256,
    tags: tagContext(request.options.culture, request.translations),
  };
}

export const merge = {
  counted: true,
  slot: true,
  pdf: (request) => ({
    format: request.format,
    signature: request.signature,
    password: request.document.password !== undefined && request.document.password !== '',
    ...(request.einvoice ? { einvoice: { asked: request.einvoice, records: request.records } } : {}),
  }),
  job: {
    // Stored as earlier versions stored it: the template's name (and version) or its Base64 beside the fields.
    store: ({ kind, source, ...rest }) => ({
      kind,
      ...rest,
      ...('templateName' in source
        ? source
        : { template: source.bytes.toString('base64'), ...(source.syntax ? { syntax: source.syntax } : {}) }),
      document: settingsToJson(rest.document),
    }),
    restore: (stored) => {
      const { templateName, templateVersion, template, syntax, ...rest } = stored;
      return {
        ...(rest as unknown as MergeRequest),
        records: Records.of(rest.records as JsonObject[]),
        source: storedSource(templateName, templateVersion, template, syntax),
        document: settingsFromJson(stored.document),
      };
    },
    summary: (request) => ({
      format: request.format.toUpperCase(),
      records: request.records.length,
      ...('templateName' in request.source ? { template: request.source.templateName } : {}),
    }),
    template: (request) => request.source,
  },
  async run(request, { operations, ctx, template }) {
    const source = await template(request.source);
    // A long document laid out in parts says how many (X-Layout-Parts), for the operator. Progress
    // is asked for only when someone follows it: the office's page reports cost it time.
    let parts = 0;
    const laidOutInParts = (n: number) => (parts = n);
    const documents = await operations.merge({ ...request, ...typed(request, source) }, { ...ctx, laidOutInParts });
    const headers: Record<string, string> = parts ? { 'x-layout-parts': String(parts) } : {};
    return { documents, list: true, headers };
  },
} satisfies Row<MergeRequest, Answer>;

export const preview = {
  counted: true,
  slot: true,
  async run(request, { operations, ctx, template }) {
    const source = await template(request.source);
    const documents = await operations.preview({ ...request, ...typed(request, source) }, ctx);
    return { documents, list: true, headers: {} };
  },
} satisfies Row<PreviewRequest, Answer>;

export const checkData = {
  counted: false,
  slot: false,
  async run(request, { operations, ctx, template }) {
    const source = await template(request.source);
    return operations.checkData(
      { template: source.bytes, what: source.what, records: request.records, syntax: source.syntax, complement: request.complement },
      ctx,
    );
  },
} satisfies Row<CheckDataRequest, DataCheck>;
