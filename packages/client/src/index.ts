/**
 * A typed client for every endpoint of docsmith (and the ReportingCloud API it is compatible
 * with). Uses the platform's fetch; documents go in and come out as bytes (Uint8Array).
 */

export type ReturnFormat = 'PDF' | 'PDFA' | 'DOCX' | 'DOC' | 'RTF' | 'HTML' | 'TXT' | 'TX';
export type ImageFormat = 'PNG' | 'JPG' | 'GIF' | 'BMP';
export type Divider = 1 | 2 | 3 | 'None' | 'NewParagraph' | 'NewSection';
/** docsmith: how a PDF is signed with the server's certificate. */
export type Signature = 'none' | 'invisible' | 'visible';

import type {
  AccountSettings,
  ApiKey,
  ApiKeyDetails,
  AuditEvent,
  DataCheck,
  DocumentSettings,
  IncorrectWord,
  Job,
  MergeSettings,
  ShareLink,
  TemplateDiff,
  TemplateInfo,
  TemplateListEntry,
  TemplateVersion,
  TrackedChange,
} from './wire.js';

// The wire shapes are generated from the server's schemas (packages/client/src/wire.ts).
export type * from './wire.js';
export { MERGE_DEFAULTS } from './wire.js';
export { sampleRecord } from './sample.js';

export interface ThumbnailOptions {
  zoomFactor?: number;
  fromPage?: number;
  toPage?: number;
  imageFormat?: ImageFormat;
}

export type Credentials = { apiKey: string } | { username: string; password: string };

/** A non-2xx answer: the status, the server's message and the request id to quote. */
export class DocsmithApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'DocsmithApiError';
  }
}

/** A call that got no answer within the client's timeout (`ClientOptions.timeoutMs`). */
export class DocsmithTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`docsmith did not answer within ${timeoutMs} ms`);
    this.name = 'DocsmithTimeoutError';
  }
}

/**
 * A call that reached no server: the address is wrong, the server is down, or the network or TLS
 * failed. `url` is what was called; `cause` is what fetch said.
 */
export class DocsmithConnectionError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const reason = (cause as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    super(`docsmith could not be reached at ${url}${reason?.code ? ` (${reason.code})` : reason?.message ? ` (${reason.message})` : ''}`, {
      cause,
    });
    this.name = 'DocsmithConnectionError';
  }
}

export interface ClientOptions {
  /** Each call's time limit in milliseconds, the answer's body included (default: none). */
  timeoutMs?: number;
  /**
   * How often a call refused with 503 and a Retry-After header (the server busy or its database
   * away; nothing was done) is sent again after the time it asks for (default 2; 0: never).
   */
  retries?: number;
  /** A Retry-After longer than this is not waited for: the 503 is thrown (default 30 s). */
  maxRetryWaitMs?: number;
}

type Query = Record<string, string | number | boolean | undefined>;
type Bytes = Uint8Array;

// btoa/atob work in browsers and in Node 18+, so the client needs no Node-only Buffer.
function toBase64(bytes: Bytes): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Retry-After as milliseconds: seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function fromBase64(text: string): Bytes {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * docsmith: how a template marks its data. `word` (the default): merge fields and txmb_ bookmarks;
 * `docxtemplater`: tags typed as text, `{name}`, `{#items}`...`{/items}`, `{^items}`...`{/items}`;
 * `carbone`: `{d.name:formatN(2)}`, rows repeated by `{d.items[i].name}` and `{d.items[i+1].name}`.
 */
export type TemplateSyntax = 'word' | 'docxtemplater' | 'carbone';

/** What a merge sends (POST /document/merge), synchronously or as a job. */
export interface MergeRequest {
  returnFormat: ReturnFormat;
  mergeData: object[] | object;
  templateName?: string;
  /** docsmith: the syntax the template's tags are typed in; absent: a stored template's own, else Word's. */
  templateSyntax?: TemplateSyntax;
  /** docsmith: an earlier version of the stored template. */
  templateVersion?: number;
  template?: Bytes;
  mergeSettings?: MergeSettings;
  append?: boolean;
  test?: boolean;
  /** docsmith: sign the PDF with the server's certificate; absent: the account's default. */
  signature?: Signature;
  /** docsmith: tagged PDF/UA output (PDF, PDFA). */
  accessible?: boolean;
  /** docsmith: Factur-X e-invoices (PDF/A-3 with factur-x.xml), built from each record or `einvoiceXml`. */
  einvoice?: 'factur-x' | 'zugferd';
  /** docsmith: the invoice's Cross Industry Invoice XML, attached as sent (one record). */
  einvoiceXml?: string;
}

function mergeCall(request: MergeRequest) {
  const { returnFormat, templateName, templateVersion, append, test, template, mergeData, mergeSettings, signature, accessible } = request;
  const { einvoice, einvoiceXml, templateSyntax } = request;
  return {
    query: { returnFormat, templateName, templateVersion, templateSyntax, append, test, signature, accessible, einvoice },
    body: { mergeData, template: template ? toBase64(template) : undefined, mergeSettings, einvoiceXml },
  };
}

export class DocsmithClient {
  private readonly authorization: string;
  private readonly baseUrl: string;

  // The default calls fetch unbound from the client: browsers refuse `this.fetchImpl(...)` on window.fetch.
  constructor(
    baseUrl: string,
    private readonly credentials: Credentials,
    private readonly fetchImpl: typeof fetch = (input, init) => fetch(input, init),
    private readonly options: ClientOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.authorization =
      'apiKey' in credentials
        ? `ReportingCloud-APIKey ${credentials.apiKey}`
        : `Basic ${toBase64(new TextEncoder().encode(`${credentials.username}:${credentials.password}`))}`;
  }

  /** The same client with other options, for one call or a few: `client.with({ timeoutMs: 5000 }).merge(...)`. */
  with(options: ClientOptions): DocsmithClient {
    return new DocsmithClient(this.baseUrl, this.credentials, this.fetchImpl, { ...this.options, ...options });
  }

  /** The response of a successful call; a failed one throws DocsmithApiError with the server's message. */
  private async send(method: string, path: string, query: Query = {}, body?: unknown, accept?: string): Promise<Response> {
    const url = new URL(`${this.baseUrl}/v1${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const { timeoutMs, retries = 2, maxRetryWaitMs = 30_000 } = this.options;
    const payload = body !== undefined ? JSON.stringify(body) : undefined;
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetchOnce(url, method, payload, timeoutMs, accept);
      // 503 with Retry-After: refused before any work (busy, or the database away); worth the wait asked.
      const wait = retryAfterMs(response.headers.get('retry-after'));
      if (response.status === 503 && attempt < retries && wait !== undefined && wait <= maxRetryWaitMs) {
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      return this.checked(response);
    }
  }

  private async fetchOnce(
    url: URL,
    method: string,
    body: string | undefined,
    timeoutMs: number | undefined,
    accept: string | undefined,
  ): Promise<Response> {
    const init: RequestInit = {
      method,
      headers: {
        authorization: this.authorization,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(accept ? { accept } : {}),
      },
      body,
    };
    // fetch rejects with a bare TypeError ("fetch failed") when no server answers: say which URL.
    const where = `${url.origin}${url.pathname}`;
    if (timeoutMs === undefined) {
      try {
        return await this.fetchImpl(url, init);
      } catch (error) {
        throw new DocsmithConnectionError(where, error);
      }
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DocsmithTimeoutError(timeoutMs)), timeoutMs);
    try {
      const response = await this.fetchImpl(url, { ...init, signal: controller.signal });
      // The body too must come within the limit: read it here, under the same timer.
      const bytes = await response.arrayBuffer();
      return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      if (controller.signal.aborted) throw new DocsmithTimeoutError(timeoutMs);
      throw new DocsmithConnectionError(where, error);
    } finally {
      clearTimeout(timer);
    }
  }

  private async checked(response: Response): Promise<Response> {
    if (!response.ok) {
      const text = await response.text();
      let message = text || response.statusText;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // not JSON: keep the text
      }
      throw new DocsmithApiError(response.status, message, response.headers.get('x-request-id') ?? undefined);
    }
    return response;
  }

  /**
   * One document: asked for as the file itself (docsmith answers it without Base64 in JSON, a third
   * less to send and nothing to decode); a server that answers JSON anyway is read as before.
   */
  private async document(method: string, path: string, query: Query, body: unknown): Promise<Bytes> {
    const response = await this.send(method, path, query, body, 'application/octet-stream, application/json;q=0.5');
    if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return new Uint8Array(await response.arrayBuffer());
    const value = JSON.parse(await response.text()) as string | string[];
    return fromBase64(Array.isArray(value) ? value[0]! : value);
  }

  private async call<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const text = await (await this.send(method, path, query, body)).text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  // Account
  accountSettings(): Promise<AccountSettings> {
    return this.call('GET', '/account/settings');
  }
  apiKeys(): Promise<ApiKey[]> {
    return this.call('GET', '/account/apikeys');
  }
  /** A new key, shown in full this once; `name` labels it, `scope` limits it (docsmith; default full). */
  createApiKey(name?: string, scope?: 'full' | 'merge' | 'read'): Promise<string> {
    return this.call('PUT', '/account/apikey', { name: name || undefined, scope });
  }
  async deleteApiKey(key: string): Promise<void> {
    await this.call('DELETE', '/account/apikey', { key });
  }
  /** The keys masked, with names, creation and last use (docsmith). */
  apiKeyDetails(): Promise<ApiKeyDetails[]> {
    return this.call('GET', '/account/keys');
  }
  /** Names a key by its number from apiKeyDetails() (docsmith). */
  renameApiKey(id: number, name: string): Promise<ApiKeyDetails> {
    return this.call('PATCH', `/account/keys/${id}`, {}, { name });
  }
  /** The account's audit log, newest first; `before`: an event's id, for the page after it (docsmith). */
  auditLog(options: { limit?: number; before?: number } = {}): Promise<AuditEvent[]> {
    return this.call('GET', '/account/audit', options);
  }
  /** Revokes a key by its number from apiKeyDetails() (docsmith). */
  async revokeApiKey(id: number): Promise<void> {
    await this.call('DELETE', `/account/keys/${id}`);
  }

  // Templates
  listTemplates(): Promise<TemplateListEntry[]> {
    return this.call('GET', '/templates/list');
  }
  countTemplates(): Promise<number> {
    return this.call('GET', '/templates/count');
  }
  templateExists(templateName: string): Promise<boolean> {
    return this.call('GET', '/templates/exists', { templateName });
  }
  /** The stored bytes; `templateVersion` (docsmith): an earlier version, from templateVersions(). */
  async downloadTemplate(templateName: string, templateVersion?: number): Promise<Bytes> {
    return fromBase64(await this.call<string>('GET', '/templates/download', { templateName, templateVersion }));
  }
  /** The current version and the earlier ones kept, newest first (docsmith). */
  templateVersions(templateName: string): Promise<TemplateVersion[]> {
    return this.call('GET', '/templates/versions', { templateName });
  }
  /** Makes an earlier version current again as a new version; the new number (docsmith). */
  async rollbackTemplate(templateName: string, version: number): Promise<number> {
    return (await this.call<{ version: number }>('POST', '/templates/rollback', { templateName, version })).version;
  }
  /** Fields and blocks added and removed from version `from` to `to` (default: the current one) (docsmith). */
  diffTemplateVersions(templateName: string, from: number, to?: number): Promise<TemplateDiff> {
    return this.call('GET', '/templates/diff', { templateName, from, to });
  }
  /** `templateSyntax` (docsmith): the syntax its tags are typed in, kept with it. */
  async uploadTemplate(templateName: string, template: Bytes, options: { templateSyntax?: TemplateSyntax } = {}): Promise<void> {
    await this.call('POST', '/templates/upload', { templateName, templateSyntax: options.templateSyntax }, toBase64(template));
  }
  async deleteTemplate(templateName: string): Promise<void> {
    await this.call('DELETE', '/templates/delete', { templateName });
  }
  templateInfo(templateName: string, templateVersion?: number): Promise<TemplateInfo> {
    return this.call('GET', '/templates/info', { templateName, templateVersion });
  }
  templatePageCount(templateName: string): Promise<number> {
    return this.call('GET', '/templates/pagecount', { templateName });
  }
  /** One page as PNG for previews (docsmith extension; not counted). */
  async templatePageImage(templateName: string, page = 1, zoom: 25 | 50 | 100 | 150 = 100): Promise<Bytes> {
    return new Uint8Array(await (await this.send('GET', '/templates/pageimage', { templateName, page, zoom })).arrayBuffer());
  }
  async templateThumbnails(templateName: string, options: ThumbnailOptions = {}): Promise<Bytes[]> {
    return (await this.call<string[]>('GET', '/templates/thumbnails', { templateName, ...options })).map(fromBase64);
  }

  // Documents
  async merge(request: MergeRequest): Promise<Bytes[]> {
    const { query, body } = mergeCall(request);
    // All records appended (the default) make one document: sent as the file itself.
    if (query.append !== false) return [await this.document('POST', '/document/merge', query, body)];
    return (await this.call<string[]>('POST', '/document/merge', query, body)).map(fromBase64);
  }

  /** docsmith extension: the merged result's pages as images; all records appended; counts one document. */
  async preview(
    request: {
      mergeData: object[] | object;
      templateName?: string;
      template?: Bytes;
      templateSyntax?: TemplateSyntax;
      mergeSettings?: MergeSettings;
      test?: boolean;
    } & ThumbnailOptions,
  ): Promise<Bytes[]> {
    const { templateName, templateSyntax, test, template, mergeData, mergeSettings, ...view } = request;
    const body = { mergeData, template: template ? toBase64(template) : undefined, mergeSettings };
    return (await this.call<string[]>('POST', '/document/preview', { templateName, templateSyntax, test, ...view }, body)).map(fromBase64);
  }

  /** docsmith extension: the fields and blocks the data leaves empty and the keys the template never reads; makes no document. */
  checkData(request: {
    mergeData: object[] | object;
    templateName?: string;
    template?: Bytes;
    templateSyntax?: TemplateSyntax;
  }): Promise<DataCheck> {
    const { templateName, template, mergeData, templateSyntax } = request;
    return this.call(
      'POST',
      '/document/checkdata',
      { templateName, templateSyntax },
      { mergeData, template: template ? toBase64(template) : undefined },
    );
  }

  async findAndReplace(request: {
    returnFormat: ReturnFormat;
    findAndReplaceData: [string, string][];
    templateName?: string;
    template?: Bytes;
    mergeSettings?: MergeSettings;
    test?: boolean;
    signature?: Signature;
  }): Promise<Bytes> {
    const { returnFormat, templateName, test, template, findAndReplaceData, mergeSettings, signature } = request;
    const body = { findAndReplaceData, template: template ? toBase64(template) : undefined, mergeSettings };
    return this.document('POST', '/document/findandreplace', { returnFormat, templateName, test, signature }, body);
  }

  async append(request: {
    returnFormat: ReturnFormat;
    documents: { document: Bytes; documentDivider?: Divider }[];
    documentSettings?: DocumentSettings;
    test?: boolean;
    signature?: Signature;
  }): Promise<Bytes> {
    const body = {
      documents: request.documents.map((d) => ({ document: toBase64(d.document), documentDivider: d.documentDivider ?? 3 })),
      documentSettings: request.documentSettings,
    };
    const query = { returnFormat: request.returnFormat, test: request.test, signature: request.signature };
    return this.document('POST', '/document/append', query, body);
  }

  async convert(
    document: Bytes,
    returnFormat: ReturnFormat,
    options: { test?: boolean; signature?: Signature; accessible?: boolean } = {},
  ): Promise<Bytes> {
    const query = { returnFormat, test: options.test, signature: options.signature, accessible: options.accessible };
    return this.document('POST', '/document/convert', query, toBase64(document));
  }

  // Background jobs (docsmith extension): the same work, answered at once with a job to follow.
  /** Queues a merge; `callbackUrl` is POSTed a signed notice when it ends. */
  mergeJob(request: MergeRequest & { callbackUrl?: string }): Promise<Job> {
    const { query, body } = mergeCall(request);
    return this.call('POST', '/document/merge', { ...query, async: true, callbackUrl: request.callbackUrl }, body);
  }

  appendJob(request: Parameters<DocsmithClient['append']>[0] & { callbackUrl?: string }): Promise<Job> {
    const body = {
      documents: request.documents.map((d) => ({ document: toBase64(d.document), documentDivider: d.documentDivider ?? 3 })),
      documentSettings: request.documentSettings,
    };
    return this.call(
      'POST',
      '/document/append',
      {
        returnFormat: request.returnFormat,
        test: request.test,
        signature: request.signature,
        async: true,
        callbackUrl: request.callbackUrl,
      },
      body,
    );
  }

  convertJob(
    document: Bytes,
    returnFormat: ReturnFormat,
    options: { test?: boolean; signature?: Signature; callbackUrl?: string } = {},
  ): Promise<Job> {
    return this.call(
      'POST',
      '/document/convert',
      { returnFormat, test: options.test, signature: options.signature, async: true, callbackUrl: options.callbackUrl },
      toBase64(document),
    );
  }

  job(id: string): Promise<Job> {
    return this.call('GET', `/jobs/${encodeURIComponent(id)}`);
  }
  /** The newest page of the account's jobs (100); `jobsPage` goes further. */
  jobs(): Promise<Job[]> {
    return this.call('GET', '/jobs');
  }
  /** A page of the account's jobs, newest first, and the cursor of the next page (null: none). */
  async jobsPage(options: { limit?: number; after?: string } = {}): Promise<{ jobs: Job[]; next: string | null }> {
    const response = await this.send('GET', '/jobs', options);
    return { jobs: JSON.parse(await response.text()) as Job[], next: response.headers.get('x-next-cursor') };
  }
  async deleteJob(id: string): Promise<void> {
    await this.call('DELETE', `/jobs/${encodeURIComponent(id)}`);
  }
  /** The secret callbacks are signed with: X-Docsmith-Signature is t=<s>,v1=<hex HMAC-SHA256 of "<t>.<body>">. */
  callbackSecret(): Promise<string> {
    return this.call('GET', '/jobs/callbacksecret');
  }

  /** A done job's documents (a merge gives one per record, or one; append and convert give one). */
  async jobResult(id: string): Promise<Bytes[]> {
    const value = await this.call<string | string[]>('GET', `/jobs/${encodeURIComponent(id)}/result`);
    return (Array.isArray(value) ? value : [value]).map(fromBase64);
  }

  /**
   * Polls until the job ends; `onProgress` hears each state seen. A failed job throws
   * DocsmithApiError with the status and message the request would have had.
   */
  async waitForJob(id: string, options: { intervalMs?: number; onProgress?: (job: Job) => void; signal?: AbortSignal } = {}): Promise<Job> {
    for (;;) {
      const job = await this.job(id);
      options.onProgress?.(job);
      if (job.state === 'done') return job;
      if (job.state === 'failed') throw new DocsmithApiError(job.error?.status ?? 500, job.error?.message ?? 'The job failed.', undefined);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, options.intervalMs ?? 500);
        options.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(options.signal!.reason as Error);
          },
          { once: true },
        );
      });
    }
  }

  async thumbnails(document: Bytes, options: ThumbnailOptions = {}): Promise<Bytes[]> {
    return (await this.call<string[]>('POST', '/document/thumbnails', { ...options }, toBase64(document))).map(fromBase64);
  }

  /** A read-only preview link's token (open /share/<token>); it expires after `expiresInDays` (server default when absent). */
  shareToken(templateName: string, expiresInDays?: number): Promise<string> {
    return this.call('GET', '/document/share', { templateName, expiresInDays });
  }
  shareLinks(): Promise<ShareLink[]> {
    return this.call('GET', '/document/share/list');
  }
  async revokeShareLink(id: string): Promise<void> {
    await this.call('DELETE', '/document/share', { id });
  }
  fonts(): Promise<string[]> {
    return this.call('GET', '/fonts/list');
  }

  // Proofing
  availableDictionaries(): Promise<string[]> {
    return this.call('GET', '/proofing/availabledictionaries');
  }
  checkSpelling(text: string, language: string): Promise<IncorrectWord[]> {
    return this.call('GET', '/proofing/check', { text, language });
  }
  suggestions(word: string, language: string, max = 10): Promise<string[]> {
    return this.call('GET', '/proofing/suggestions', { word, language, max });
  }

  // Review
  trackedChanges(document: Bytes): Promise<TrackedChange[]> {
    return this.call('POST', '/processing/review/trackedchanges', {}, toBase64(document));
  }
  async removeTrackedChange(document: Bytes, id: number, accept: boolean): Promise<{ document: Bytes; removed: boolean }> {
    const result = await this.call<{ document: string; removed: boolean }>(
      'POST',
      '/processing/review/removetrackedchange',
      { id, accept },
      toBase64(document),
    );
    return { document: fromBase64(result.document), removed: result.removed };
  }
}
