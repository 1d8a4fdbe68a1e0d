/**
 * Every kind of document work, as a typed request and one row: how the door guards it (counted as
 * a document, holding a merge slot) and which operation performs it. Routes, background jobs and
 * the CLI build these requests; `Door.perform` (door.ts) runs them. A new kind of work is a
 * request type and a row here, an operation (index.ts) and a route.
 */
import type { SignatureMode } from '../documents/signing.js';
import type { EInvoiceRequest } from '../documents/einvoice.js';
import type { DocumentSettings } from '../documents/settings.js';
import type { Divider } from '../compose/builder.js';
import type { DocumentFormat } from '../formats/detect.js';
import type { ReturnFormat } from '../formats/returnFormat.js';
import type { MergeOptions } from '../merge/engine.js';
import type { TemplateInfo } from '../merge/info.js';
import type { JsonObject } from '../merge/scope.js';
import type { ThumbnailRequest } from '../render/thumbnails.js';
import type { TrackedChange } from '../review/trackedChanges.js';
import type { IncorrectWord } from '../proofing/spelling.js';
import type { JsonText } from '../util/json.js';
import type { DataCheck } from '../merge/datacheck.js';
import type { DocumentOperations, WorkContext } from './index.js';

/** A stored template by name, or bytes already read (a sent document, a template a share link names, a CLI file). */
export type Source = { templateName: string; templateVersion?: number } | { bytes: Buffer; format: DocumentFormat; name?: string };

/**
 * Work on a template that is stored (`templateName`) or sent (`template`: Base64 from the wire,
 * checked when the work starts, or bytes from the CLI).
 */
interface TemplateChoice {
  templateName: string | undefined;
  template: unknown;
  /** An earlier version of the stored template (docsmith); absent: the current one. */
  templateVersion?: number;
}

export interface MergeRequest extends TemplateChoice {
  kind: 'merge';
  format: ReturnFormat;
  append: boolean;
  test: boolean;
  records: JsonObject[];
  options: MergeOptions;
  document: DocumentSettings;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
  /** docsmith: Factur-X e-invoices (PDF/A-3 with the invoice's XML attached). */
  einvoice?: EInvoiceRequest;
}

/** A merge of all records shown as page images (the portal's playground). */
export interface PreviewRequest extends TemplateChoice {
  kind: 'preview';
  test: boolean;
  records: JsonObject[];
  options: MergeOptions;
  document: DocumentSettings;
  view: ThumbnailRequest;
}

export interface FindAndReplaceRequest extends TemplateChoice {
  kind: 'findAndReplace';
  format: ReturnFormat;
  test: boolean;
  pairs: [string, string][];
  document: DocumentSettings;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
}

export interface AppendRequest {
  kind: 'append';
  format: ReturnFormat;
  test: boolean;
  documents: { bytes: Buffer; divider: Divider }[];
  document: DocumentSettings;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
}

export interface ConvertRequest {
  kind: 'convert';
  format: ReturnFormat;
  test: boolean;
  document: Buffer;
  from: DocumentFormat;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
  /** docsmith: tagged PDF/UA output. */
  accessible?: boolean;
}

/** Page images that count as a document (the thumbnail endpoints). */
export interface ThumbnailsRequest {
  kind: 'thumbnails';
  source: Source;
  view: ThumbnailRequest;
}

/** Page images that do not count (the portal's own views, share links). */
export interface PageImagesRequest {
  kind: 'pageImages';
  source: Source;
  view: ThumbnailRequest;
}

export interface PageCountRequest {
  kind: 'pageCount';
  source: Source;
}

export interface InfoRequest {
  kind: 'info';
  source: Source;
}

export interface TrackedChangesRequest {
  kind: 'trackedChanges';
  document: Buffer;
}

export interface RemoveTrackedChangeRequest {
  kind: 'removeTrackedChange';
  document: Buffer;
  id: number;
  accept: boolean;
}

/** Proofing: misspelled and repeated words of a text. */
export interface SpellCheckRequest {
  kind: 'spellCheck';
  text: string;
  language: string;
}

/** Proofing: suggestions for a word. */
export interface SpellSuggestRequest {
  kind: 'spellSuggest';
  word: string;
  language: string;
  max: number;
}

/** The data checked against a template's fields and blocks, with no document made. */
export interface CheckDataRequest extends TemplateChoice {
  kind: 'checkData';
  records: JsonObject[];
}

/** A template about to be stored, read once so that no operation meets it broken. */
export interface ValidateTemplateRequest {
  kind: 'validateTemplate';
  bytes: Buffer;
  name: string;
}

export type DocumentRequest =
  | MergeRequest
  | PreviewRequest
  | FindAndReplaceRequest
  | AppendRequest
  | ConvertRequest
  | ThumbnailsRequest
  | PageImagesRequest
  | PageCountRequest
  | InfoRequest
  | TrackedChangesRequest
  | RemoveTrackedChangeRequest
  | SpellCheckRequest
  | SpellSuggestRequest
  | ValidateTemplateRequest
  | CheckDataRequest;

export type Kind = DocumentRequest['kind'];
export type RequestOf<K extends Kind> = Extract<DocumentRequest, { kind: K }>;

/** The requests a background job may hold (async=true). */
export type JobRequest = MergeRequest | AppendRequest | ConvertRequest;

/**
 * Documents as the API answers them (Base64 strings: a JSON array when `list`, else one string),
 * with headers beside them. Sent only once the work is done; counted once sent.
 */
export interface Answer {
  documents: Buffer[];
  list: boolean;
  headers: Record<string, string>;
}

/** What each kind answers. */
export interface Results {
  merge: Answer;
  preview: Answer;
  findAndReplace: Answer;
  append: Answer;
  convert: Answer;
  thumbnails: Answer;
  pageImages: Buffer[];
  pageCount: number;
  info: TemplateInfo;
  trackedChanges: TrackedChange[];
  removeTrackedChange: Buffer;
  spellCheck: JsonText<IncorrectWord[]>;
  spellSuggest: string[];
  validateTemplate: void;
  checkData: DataCheck;
}

/** What a row's `run` is handed: the operations, the work's signal and deadline, and its sources. */
export interface Work {
  operations: DocumentOperations;
  ctx: WorkContext;
  /** The template named or sent; 400 when both or neither. */
  template(choice: TemplateChoice): Promise<{ bytes: Buffer; what: string }>;
  /** A source's bytes, format and name (a stored template's). */
  source(source: Source): Promise<{ bytes: Buffer; format: DocumentFormat; name: string }>;
  /** Counts one proofing transaction of the account (403 when its quota is used up); nothing without an account. */
  countProofing(): Promise<void>;
}

export interface Policy {
  /** Counts one document against the quota (not when the request is a test run). */
  counted: boolean;
  /** Holds one of the account's concurrent-merge slots. */
  slot: boolean;
}

export interface Row<K extends Kind> extends Policy {
  run(request: RequestOf<K>, work: Work): Promise<Results[K]>;
}

const images = (documents: Buffer[]): Answer => ({ documents, list: true, headers: {} });

export const KINDS: { [K in Kind]: Row<K> } = {
  merge: {
    counted: true,
    slot: true,
    async run(request, { operations, ctx, template }) {
      const source = await template(request);
      // A long document laid out in parts says how many (X-Layout-Parts), for the operator. Progress
      // is asked for only when someone follows it: the office's page reports cost it time.
      let parts = 0;
      const laidOutInParts = (n: number) => (parts = n);
      const documents = await operations.merge({ ...request, template: source.bytes, what: source.what }, { ...ctx, laidOutInParts });
      const headers: Record<string, string> = parts ? { 'x-layout-parts': String(parts) } : {};
      return { documents, list: true, headers };
    },
  },
  preview: {
    counted: true,
    slot: true,
    async run(request, { operations, ctx, template }) {
      const source = await template(request);
      return images(await operations.preview({ ...request, template: source.bytes, what: source.what }, ctx));
    },
  },
  findAndReplace: {
    counted: true,
    slot: false,
    async run(request, { operations, ctx, template }) {
      const source = await template(request);
      const document = await operations.findAndReplace({ ...request, template: source.bytes, what: source.what }, ctx);
      return { documents: [document], list: false, headers: {} };
    },
  },
  append: {
    counted: true,
    slot: false,
    async run(request, { operations, ctx }) {
      return { documents: [await operations.append(request, ctx)], list: false, headers: {} };
    },
  },
  convert: {
    counted: true,
    slot: false,
    async run(request, { operations, ctx }) {
      const result = await operations.convert(request, ctx);
      return { documents: [result.data], list: false, headers: { 'x-office-ms': String(result.officeMs) } };
    },
  },
  thumbnails: {
    counted: true,
    slot: false,
    async run(request, { operations, ctx, source }) {
      const { bytes, format } = await source(request.source);
      return images(await operations.thumbnails({ document: bytes, from: format, view: request.view }, ctx));
    },
  },
  pageImages: {
    counted: false,
    slot: false,
    async run(request, { operations, ctx, source }) {
      const { bytes, format } = await source(request.source);
      return operations.thumbnails({ document: bytes, from: format, view: request.view }, ctx);
    },
  },
  pageCount: {
    counted: false,
    slot: false,
    async run(request, { operations, ctx, source }) {
      const { bytes, format } = await source(request.source);
      return operations.pageCount({ document: bytes, from: format }, ctx);
    },
  },
  info: {
    counted: false,
    slot: false,
    async run(request, { operations, ctx, source }) {
      const { bytes, name } = await source(request.source);
      return operations.info(bytes, name, ctx);
    },
  },
  trackedChanges: {
    counted: false,
    slot: false,
    run: (request, { operations, ctx }) => operations.trackedChanges(request.document, ctx),
  },
  removeTrackedChange: {
    counted: false,
    slot: false,
    run: (request, { operations, ctx }) => operations.removeTrackedChange(request.document, request.id, request.accept, ctx),
  },
  // A proofing call counts one proofing transaction, once its language is known to exist.
  spellCheck: {
    counted: false,
    slot: false,
    async run(request, { operations, ctx, countProofing }) {
      operations.dictionaryFor(request.language);
      await countProofing();
      return operations.spellCheck(request.text, request.language, ctx);
    },
  },
  spellSuggest: {
    counted: false,
    slot: false,
    async run(request, { operations, ctx, countProofing }) {
      operations.dictionaryFor(request.language);
      await countProofing();
      return operations.spellSuggest(request.word, request.language, request.max, ctx);
    },
  },
  validateTemplate: {
    counted: false,
    slot: false,
    run: (request, { operations, ctx }) => operations.validateTemplate(request.bytes, request.name, ctx),
  },
  checkData: {
    counted: false,
    slot: false,
    async run(request, { operations, ctx, template }) {
      const source = await template(request);
      return operations.checkData({ template: source.bytes, what: source.what, records: request.records }, ctx);
    },
  },
};
