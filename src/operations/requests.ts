/**
 * The document requests that run now (an HTTP request) or later (a background job): parsed once
 * into these types (api/requests/documents.ts), performed the same way under the usage guard,
 * and kept as bytes while a job waits.
 */
import type { Account } from '../store/types.js';
import type { Claimed, UsageGuard } from '../accounts/usage.js';
import { normalName } from '../templates/names.js';
import type { DocumentPipeline } from '../documents/pipeline.js';
import type { DocumentSettings } from '../documents/settings.js';
import type { DocumentProperties } from '../formats/properties.js';
import type { Divider } from '../compose/builder.js';
import type { DocumentFormat } from '../formats/detect.js';
import type { ReturnFormat } from '../formats/returnFormat.js';
import type { MergeOptions } from '../merge/engine.js';
import type { JsonObject } from '../merge/scope.js';
import type { DocumentOperations, WorkContext, WorkProgress } from './index.js';

export interface MergeRequest {
  kind: 'merge';
  format: ReturnFormat;
  append: boolean;
  test: boolean;
  templateName: string | undefined;
  /** The template as sent (Base64), checked when the work starts. */
  template: unknown;
  records: JsonObject[];
  options: MergeOptions;
  document: DocumentSettings;
}

export interface AppendRequest {
  kind: 'append';
  format: ReturnFormat;
  test: boolean;
  documents: { bytes: Buffer; divider: Divider }[];
  document: DocumentSettings;
}

export interface ConvertRequest {
  kind: 'convert';
  format: ReturnFormat;
  test: boolean;
  document: Buffer;
  from: DocumentFormat;
}

export type DocumentRequest = MergeRequest | AppendRequest | ConvertRequest;

/** What the synchronous endpoint answers: the documents (as a JSON array of Base64 strings when `list`, else one string), and headers beside them. */
export interface Answer {
  documents: Buffer[];
  list: boolean;
  headers: Record<string, string>;
}

export interface PerformOptions {
  /** The processing limit (background jobs have their own); default: the request limit. */
  timeLimitMs?: number;
  progress?: (progress: WorkProgress) => void;
  /** Stops the work (a cancelled job). */
  signal?: AbortSignal;
  /** A last check of the answer while the work still counts as running: throwing refunds the document. */
  accept?: (answer: Answer) => Promise<void>;
  /** Hands the answer over (sends it); the document is counted only when this resolves, and refunded when it throws. */
  deliver?: (answer: Answer) => Promise<void>;
  /** Names the work (a job's id): counted once however often it is taken up (see UsageGuard). */
  workKey?: string;
}

export class DocumentRequests {
  constructor(private readonly parts: { usage: UsageGuard; pipeline: DocumentPipeline; operations: DocumentOperations }) {}

  /** Runs the request for the account: counted, limited in time, merges holding a slot. */
  perform(account: Account, request: DocumentRequest, options: PerformOptions = {}): Promise<Answer> {
    const { usage } = this.parts;
    const guard = {
      test: request.test,
      merge: request.kind === 'merge',
      timeLimitMs: options.timeLimitMs,
      signal: options.signal,
      workKey: options.workKey,
      template: request.kind === 'merge' && request.templateName !== undefined ? normalName(request.templateName) : undefined,
    };
    return usage.run(
      account,
      guard,
      async (signal, deadline, claimed): Promise<Answer> => {
        const answer = await this.work(account, request, { signal, deadline, progress: options.progress }, claimed);
        await options.accept?.(answer);
        return answer;
      },
      options.deliver,
    );
  }

  private async work(account: Account, request: DocumentRequest, ctx: WorkContext, claimed: Claimed): Promise<Answer> {
    const { pipeline, operations } = this.parts;
    switch (request.kind) {
      case 'merge': {
        const source = await pipeline.templateSource(account, request.templateName, request.template, claimed.template);
        const documents = await operations.merge(
          {
            template: source.bytes,
            what: source.what,
            records: request.records,
            options: request.options,
            document: request.document,
            format: request.format,
            append: request.append,
            test: request.test,
          },
          ctx,
        );
        return { documents, list: true, headers: {} };
      }
      case 'append': {
        const document = await operations.append(
          { documents: request.documents, document: request.document, format: request.format, test: request.test },
          ctx,
        );
        return { documents: [document], list: false, headers: {} };
      }
      case 'convert': {
        const result = await operations.convert(
          { document: request.document, from: request.from, format: request.format, test: request.test },
          ctx,
        );
        return { documents: [result.data], list: false, headers: { 'x-office-ms': String(result.officeMs) } };
      }
    }
  }
}

type Stored<T> = Omit<T, 'document' | 'documents'> & Record<string, unknown>;

const storedSettings = (s: DocumentSettings) => ({
  password: s.password ?? null,
  properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
});

function settingsFrom(value: { password: string | null; properties: Record<string, string | undefined> }): DocumentSettings {
  const properties: DocumentProperties = { ...value.properties } as DocumentProperties;
  for (const key of ['creationDate', 'lastModificationDate'] as const) {
    const date = value.properties[key];
    if (date !== undefined) properties[key] = new Date(date);
  }
  return { password: value.password ?? undefined, properties };
}

/** A request as bytes, while its job waits (documents as Base64). */
export function serialiseRequest(request: DocumentRequest): Buffer {
  let stored: Stored<DocumentRequest>;
  switch (request.kind) {
    case 'merge':
      stored = { ...request, document: storedSettings(request.document) };
      break;
    case 'append':
      stored = {
        ...request,
        document: storedSettings(request.document),
        documents: request.documents.map((d) => ({ bytes: d.bytes.toString('base64'), divider: d.divider })),
      };
      break;
    case 'convert':
      stored = { ...request, document: request.document.toString('base64') };
      break;
  }
  return Buffer.from(JSON.stringify(stored));
}

export function deserialiseRequest(bytes: Buffer): DocumentRequest {
  const stored = JSON.parse(bytes.toString('utf8')) as Record<string, unknown> & { kind: DocumentRequest['kind'] };
  switch (stored.kind) {
    case 'merge':
      // JSON drops undefined: the optional fields come back explicitly.
      return {
        ...(stored as unknown as MergeRequest),
        templateName: stored.templateName as string | undefined,
        template: stored.template,
        document: settingsFrom(stored.document as never),
      };
    case 'append':
      return {
        ...(stored as unknown as AppendRequest),
        document: settingsFrom(stored.document as never),
        documents: (stored.documents as { bytes: string; divider: Divider }[]).map((d) => ({
          bytes: Buffer.from(d.bytes, 'base64'),
          divider: d.divider,
        })),
      };
    case 'convert':
      return { ...(stored as unknown as ConvertRequest), document: Buffer.from(stored.document as string, 'base64') };
  }
}
