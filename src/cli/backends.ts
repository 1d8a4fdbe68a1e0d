import fs from 'node:fs/promises';
import { DOCUMENT_FORMATS, requireFormat, TEMPLATE_FORMATS } from '../formats/detect.js';
import type { Services } from '../services.js';
import type { Divider } from '../compose/builder.js';
import { DocumentOperations } from '../operations/index.js';
import { Door } from '../operations/door/door.js';
import type { MergeRequest } from '../operations/kinds/index.js';
import type { Answer } from '../operations/work.js';
import { parseMergeRequest } from '../api/requests/documents.js';
import { mergeBodySchema } from '../api/requests/schemas.js';
import { checkBody } from '../api/requests/validation.js';
import { parseReturnFormat } from '../api/requests/returnFormat.js';
import { parseThumbnailRequest } from '../api/requests/thumbnails.js';
import type { JsonObject } from '../merge/scope.js';
import type { TemplateInfo } from '../merge/info.js';
import type { TemplateSyntax } from '../merge/syntax/index.js';

/** How a merge is asked for: the return format, appended or not, the settings file's content, an e-invoice. */
export interface MergeHow {
  format: string;
  append: boolean;
  settings: unknown;
  einvoice?: string;
  einvoiceXml?: string;
  /** The syntax the template's tags are typed in; absent: Word's merge fields. */
  syntax?: TemplateSyntax;
}

/** What the CLI's document commands need, done in this process or by a server. */
export interface Backend {
  /** `merged`: told how many of `records` are merged so far, where the backend can say (in this process). */
  merge(template: Buffer, records: JsonObject[], how: MergeHow, merged?: (done: number) => void): Promise<Buffer[]>;
  convert(document: Buffer, format: string): Promise<Buffer>;
  append(documents: { bytes: Buffer; divider: Divider }[], format: string): Promise<Buffer>;
  thumbnails(document: Buffer, options: { zoom?: number; from?: number; to?: number; imageFormat?: string }): Promise<Buffer[]>;
  info(template: Buffer, name: string, syntax?: TemplateSyntax): Promise<TemplateInfo>;
  close(): Promise<void>;
}

/**
 * In-process: the same door and operations the server runs, with no account (nothing counted),
 * no time limit, and an office pool started when first needed.
 */
export class LocalBackend implements Backend {
  private officeStarted: Promise<void> | undefined;
  private readonly door: Door;

  constructor(private readonly services: Services) {
    const operations = new DocumentOperations(services, () => this.office());
    this.door = new Door({ ...services, operations, processingLimitMs: null });
  }

  private async office(): Promise<void> {
    if (!this.services.office) return;
    this.officeStarted ??= this.services.office.start();
    await this.officeStarted;
  }

  async merge(template: Buffer, records: JsonObject[], how: MergeHow, merged?: (done: number) => void): Promise<Buffer[]> {
    // The files are checked by the schemas and parser the HTTP API uses, with the same messages.
    const body = checkBody(mergeBodySchema, {
      mergeData: records,
      mergeSettings: how.settings ?? null,
      ...(how.einvoiceXml !== undefined ? { einvoiceXml: how.einvoiceXml } : {}),
    });
    const query = {
      returnFormat: how.format,
      append: String(how.append),
      ...(how.einvoice ? { einvoice: how.einvoice } : {}),
      ...(how.syntax ? { templateSyntax: how.syntax } : {}),
    };
    const source = { bytes: template, ...(how.syntax ? { syntax: how.syntax } : {}) };
    const request: MergeRequest = parseMergeRequest(query, body, Number.MAX_SAFE_INTEGER, source);
    const answer = await this.door.perform(null, request, {
      progress: (p) => p.stage === 'merging' && p.done !== undefined && merged?.(p.done),
    });
    return answer.documents;
  }

  async convert(document: Buffer, format: string): Promise<Buffer> {
    const from = requireFormat(document, DOCUMENT_FORMATS);
    return only(await this.door.perform(null, { kind: 'convert', document, from, format: parseReturnFormat(format), test: false }));
  }

  async append(documents: { bytes: Buffer; divider: Divider }[], format: string): Promise<Buffer> {
    const document = { properties: {}, password: undefined };
    return only(await this.door.perform(null, { kind: 'append', documents, document, format: parseReturnFormat(format), test: false }));
  }

  async thumbnails(document: Buffer, options: { zoom?: number; from?: number; to?: number; imageFormat?: string }): Promise<Buffer[]> {
    const view = parseThumbnailRequest({
      zoomFactor: options.zoom?.toString(),
      fromPage: options.from?.toString(),
      toPage: options.to?.toString(),
      imageFormat: options.imageFormat,
    });
    const format = requireFormat(document, [...DOCUMENT_FORMATS, 'xlsx']);
    return (await this.door.perform(null, { kind: 'thumbnails', source: { bytes: document, format }, view })).documents;
  }

  info(template: Buffer, name: string, syntax: TemplateSyntax = 'word'): Promise<TemplateInfo> {
    const format = requireFormat(template, TEMPLATE_FORMATS, `The template "${name}"`);
    return this.door.perform(null, { kind: 'info', source: { bytes: template, format, name, syntax } });
  }

  /** Refuses a template no operation could use, as uploads do. */
  validateTemplate(template: Buffer, name: string): Promise<void> {
    return this.door.perform(null, { kind: 'validateTemplate', bytes: template, name });
  }

  async close(): Promise<void> {
    await this.services.office?.close();
    await fs.rm(this.services.scratchDir, { recursive: true, force: true });
    await this.services.workers.close();
  }
}

const only = (answer: Answer): Buffer => answer.documents[0]!;

type Bytes = Uint8Array;
type ClientFormat = string;

/** The part of the TypeScript client (packages/client) the CLI uses. */
export interface ClientLike {
  merge(request: {
    returnFormat: ClientFormat;
    template?: Bytes;
    mergeData: object;
    append?: boolean;
    mergeSettings?: never;
    einvoice?: string;
    einvoiceXml?: string;
    templateSyntax?: TemplateSyntax;
  }): Promise<Bytes[]>;
  convert(document: Bytes, returnFormat: ClientFormat): Promise<Bytes>;
  append(request: { returnFormat: ClientFormat; documents: { document: Bytes; documentDivider?: 1 | 2 | 3 }[] }): Promise<Bytes>;
  thumbnails(document: Bytes, options: { zoomFactor?: number; fromPage?: number; toPage?: number; imageFormat?: never }): Promise<Bytes[]>;
  uploadTemplate(name: string, template: Bytes, options?: { templateSyntax?: TemplateSyntax }): Promise<void>;
  templateInfo(name: string): Promise<TemplateInfo>;
  listTemplates(): Promise<{ templateName: string }[]>;
  downloadTemplate(name: string): Promise<Bytes>;
  deleteTemplate(name: string): Promise<void>;
  mergeJob(request: {
    returnFormat: ClientFormat;
    template?: Bytes;
    mergeData: object;
    append?: boolean;
    mergeSettings?: never;
    templateSyntax?: TemplateSyntax;
  }): Promise<JobLike>;
  convertJob(document: Bytes, returnFormat: ClientFormat): Promise<JobLike>;
  appendJob(request: { returnFormat: ClientFormat; documents: { document: Bytes; documentDivider?: 1 | 2 | 3 }[] }): Promise<JobLike>;
  waitForJob(id: string, options: { onProgress?: (job: JobLike) => void }): Promise<JobLike>;
  jobResult(id: string): Promise<Bytes[]>;
}

export interface JobLike {
  id: string;
  state: string;
  progress: { stage: string; done?: number; total?: number } | null;
}

/** One line per change of a job's state or progress: `job 3f2c…: running, converting 2 of 5`. */
export function describeJob(job: JobLike): string {
  const progress = job.progress
    ? `, ${job.progress.stage}${job.progress.total !== undefined ? ` ${job.progress.done ?? 0} of ${job.progress.total}` : ''}`
    : '';
  return `job ${job.id}: ${job.state}${progress}`;
}

/** The published client package, loaded when the CLI talks to a server. */
export async function loadClient(
  url: string,
  credentials: { apiKey: string } | { username: string; password: string },
  fetchImpl?: typeof fetch,
): Promise<ClientLike> {
  // The client is its own package (packages/client), built beside the service.
  const specifier = new URL('../../packages/client/dist/index.js', import.meta.url).href;
  const module = (await import(specifier)) as {
    DocsmithClient: new (url: string, credentials: unknown, fetchImpl?: typeof fetch) => ClientLike;
  };
  return fetchImpl ? new module.DocsmithClient(url, credentials, fetchImpl) : new module.DocsmithClient(url, credentials);
}

/** Against a running server, through the TypeScript client. */
export class RemoteBackend implements Backend {
  /**
   * @param jobs merge, convert and append run as background jobs (--async): no request time
   *   limit; `progress` hears each change of the job's state.
   */
  constructor(
    private readonly client: ClientLike,
    private readonly jobs?: { progress: (line: string) => void },
  ) {}

  /** Queues the work as a job, follows it to the end, and fetches its documents. */
  private async viaJob(queued: Promise<JobLike>): Promise<Buffer[]> {
    const job = await queued;
    let last = '';
    await this.client.waitForJob(job.id, {
      onProgress: (seen) => {
        const line = describeJob(seen);
        if (line !== last) this.jobs!.progress((last = line));
      },
    });
    return (await this.client.jobResult(job.id)).map((d) => Buffer.from(d));
  }

  async merge(template: Buffer, records: JsonObject[], how: MergeHow): Promise<Buffer[]> {
    const request = {
      returnFormat: how.format.toUpperCase() as ClientFormat,
      template,
      mergeData: records,
      append: how.append,
      mergeSettings: how.settings as never,
      ...(how.einvoice ? { einvoice: how.einvoice } : {}),
      ...(how.einvoiceXml !== undefined ? { einvoiceXml: how.einvoiceXml } : {}),
      ...(how.syntax && how.syntax !== 'word' ? { templateSyntax: how.syntax } : {}),
    };
    if (this.jobs) return this.viaJob(this.client.mergeJob(request));
    const docs = await this.client.merge(request);
    return docs.map((d) => Buffer.from(d));
  }

  async convert(document: Buffer, format: string): Promise<Buffer> {
    if (this.jobs) return (await this.viaJob(this.client.convertJob(document, format.toUpperCase() as ClientFormat)))[0]!;
    return Buffer.from(await this.client.convert(document, format.toUpperCase() as ClientFormat));
  }

  async append(documents: { bytes: Buffer; divider: Divider }[], format: string): Promise<Buffer> {
    const divider = { none: 1, paragraph: 2, section: 3 } as const;
    const request = {
      returnFormat: format.toUpperCase() as ClientFormat,
      documents: documents.map((d) => ({ document: d.bytes, documentDivider: divider[d.divider] })),
    };
    if (this.jobs) return (await this.viaJob(this.client.appendJob(request)))[0]!;
    return Buffer.from(await this.client.append(request));
  }

  async thumbnails(document: Buffer, options: { zoom?: number; from?: number; to?: number; imageFormat?: string }): Promise<Buffer[]> {
    const images = await this.client.thumbnails(document, {
      zoomFactor: options.zoom,
      fromPage: options.from,
      toPage: options.to,
      imageFormat: options.imageFormat?.toUpperCase() as never,
    });
    return images.map((i) => Buffer.from(i));
  }

  async info(template: Buffer, name: string, syntax: TemplateSyntax = 'word'): Promise<TemplateInfo> {
    // The API describes stored templates: store it under a scratch name, read, remove.
    const scratch = `cli-info-${Date.now()}${name.match(/\.(docx|doc|rtf)$/i)?.[0] ?? '.docx'}`;
    await this.client.uploadTemplate(scratch, template, syntax !== 'word' ? { templateSyntax: syntax } : {});
    try {
      return { ...(await this.client.templateInfo(scratch)), templateName: name };
    } finally {
      await this.client.deleteTemplate(scratch).catch(() => undefined);
    }
  }

  async close(): Promise<void> {}
}
