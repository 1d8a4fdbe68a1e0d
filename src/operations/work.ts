/**
 * The contract of a kind of document work (kinds/): its request's sources, what it answers, and
 * its row, which says everything the door, the jobs and the CLI need, so none of them names a kind.
 */
import type { SignatureMode } from '../documents/signing.js';
import type { EInvoiceRequest } from '../documents/einvoice.js';
import type { DocumentFormat } from '../formats/detect.js';
import type { ReturnFormat } from '../formats/returnFormat.js';
import type { Records } from '../merge/records.js';
import type { JobSummary } from '../store/types.js';
import type { DocumentOperations, WorkContext } from './index.js';
import type { Source, TemplateInput } from './io.js';
import type { TemplateSyntax } from '../merge/syntax/index.js';

export type { Source } from './io.js';

/**
 * Documents as the API answers them (Base64 strings: a JSON array when `list`, else one string),
 * with headers beside them. Sent only once the work is done; counted once sent.
 */
export interface Answer {
  documents: Buffer[];
  list: boolean;
  headers: Record<string, string>;
}

/** What a row's `run` is handed: the operations, the work's signal and deadline, and its sources. */
export interface Work {
  operations: DocumentOperations;
  ctx: WorkContext;
  /** A template's bytes, how messages name it ("The uploaded template", or the stored one's name), and its tags' syntax. */
  template(source: Source): Promise<TemplateInput>;
  /** A source's bytes, format and name (a stored template's), and its tags' syntax. */
  source(source: Source): Promise<{ bytes: Buffer; format: DocumentFormat; name: string; syntax: TemplateSyntax }>;
  /** Counts one proofing transaction of the account (403 when its quota is used up); nothing without an account. */
  countProofing(): Promise<void>;
}

/** What the door does to a kind's documents (an Answer's) as the request asks: signing, with the password in mind, and e-invoices. */
export interface PdfFinish {
  format: ReturnFormat;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
  /** The document is encrypted with a password (signing must come before, so it is refused). */
  password: boolean;
  /** Factur-X e-invoices attached to merged PDFs, with the records they are built from. */
  einvoice?: { asked: EInvoiceRequest; records: Records };
}

/** How a kind's request waits as a background job: its stored form (JSON), its summary, what is checked when it is submitted. */
export interface JobHooks<R> {
  store(request: R): Record<string, unknown>;
  restore(stored: Record<string, unknown>): R;
  summary(request: R): JobSummary;
  /** The template it reads, checked at submission (a name that does not exist is a 400 then, not a failed job later). */
  template?(request: R): Source;
}

/** A kind's row: how the door guards it, what it finishes, how it waits as a job, and its steps. */
export interface Row<R, T> {
  /** Counts one document against the quota (not when the request is a test run). */
  counted: boolean;
  /** Holds one of the account's concurrent-merge slots. */
  slot: boolean;
  pdf?(request: R): PdfFinish;
  /** Present: the kind may run as a background job (async=true). */
  job?: JobHooks<R>;
  run(request: R, work: Work): Promise<T>;
}
