import fs from 'node:fs/promises';
import type { Services } from '../services.js';
import { Converter } from '../convert/converter.js';
import { DocumentBuilder, type Divider } from '../compose/builder.js';
import { parseMergeSettings } from '../documents/settings.js';
import { parseReturnFormat } from '../formats/returnFormat.js';
import { parseThumbnailRequest } from '../render/thumbnails.js';
import type { JsonObject } from '../merge/scope.js';
import type { TemplateInfo } from '../merge/info.js';
import type { DocumentFormat } from '../formats/detect.js';

/** What the CLI's document commands need, done in this process or by a server. */
export interface Backend {
  merge(template: Buffer, records: JsonObject[], format: string, append: boolean, settings: unknown): Promise<Buffer[]>;
  convert(document: Buffer, format: string): Promise<Buffer>;
  append(documents: { bytes: Buffer; divider: Divider }[], format: string): Promise<Buffer>;
  thumbnails(document: Buffer, options: { zoom?: number; from?: number; to?: number; imageFormat?: string }): Promise<Buffer[]>;
  info(template: Buffer, name: string): Promise<TemplateInfo>;
  close(): Promise<void>;
}

/** In-process: the same engines the server uses, with an office pool started when needed. */
export class LocalBackend implements Backend {
  private officeStarted: Promise<void> | undefined;

  constructor(private readonly services: Services) {}

  private async office(): Promise<void> {
    if (!this.services.office) return;
    this.officeStarted ??= this.services.office.start();
    await this.officeStarted;
  }

  private async docx(bytes: Buffer, what: string): Promise<Buffer> {
    // Only DOC, RTF and HTML need the office; start it before the pipeline converts them.
    if (Converter.detect(bytes, ['docx', 'doc', 'rtf', 'html'], what) !== 'docx') await this.office();
    return this.services.pipeline.documentDocx(bytes, what);
  }

  async merge(template: Buffer, records: JsonObject[], format: string, append: boolean, settings: unknown): Promise<Buffer[]> {
    const to = parseReturnFormat(format);
    const parsed = parseMergeSettings(settings);
    const docs = this.services.pipeline.compile(await this.docx(template, 'The template')).merge(records, parsed.options, append);
    if (to !== 'docx' || parsed.document.password) await this.office();
    return Promise.all(docs.map((d) => this.services.pipeline.output(d, to, { ...parsed.document, test: false })));
  }

  async convert(document: Buffer, format: string): Promise<Buffer> {
    const to = parseReturnFormat(format);
    const from = Converter.detect(document, ['docx', 'doc', 'rtf', 'html', 'pdf']);
    await this.office();
    return (await this.services.converter!.convert(document, from, to)).data;
  }

  async append(documents: { bytes: Buffer; divider: Divider }[], format: string): Promise<Buffer> {
    const to = parseReturnFormat(format);
    const docx: Buffer[] = [];
    for (const [i, d] of documents.entries()) docx.push(await this.docx(d.bytes, `document ${i + 1}`));
    const builder = new DocumentBuilder(docx[0]!);
    docx.slice(1).forEach((d, i) => builder.append(d, documents[i + 1]!.divider));
    if (to !== 'docx') await this.office();
    return this.services.pipeline.output(builder.toBuffer(), to, { properties: {}, test: false });
  }

  async thumbnails(document: Buffer, options: { zoom?: number; from?: number; to?: number; imageFormat?: string }): Promise<Buffer[]> {
    const request = parseThumbnailRequest({ zoomFactor: options.zoom?.toString(), fromPage: options.from?.toString(), toPage: options.to?.toString(), imageFormat: options.imageFormat });
    const format = Converter.detect(document, ['docx', 'doc', 'rtf', 'html', 'pdf', 'xlsx']);
    if (format !== 'pdf') await this.office();
    return this.services.thumbnails.render(document, format as DocumentFormat, request);
  }

  async info(template: Buffer, name: string): Promise<TemplateInfo> {
    return { templateName: name, ...this.services.pipeline.compile(await this.docx(template, 'The template')).info };
  }

  async close(): Promise<void> {
    await this.services.office?.close();
    await this.services.converter?.close();
    await fs.rm(this.services.scratchDir, { recursive: true, force: true });
    await this.services.renderer.close();
    await this.services.workers.close();
  }
}

type Bytes = Uint8Array;
type ClientFormat = string;

/** The part of the TypeScript client (packages/client) the CLI uses. */
export interface ClientLike {
  merge(request: { returnFormat: ClientFormat; template?: Bytes; mergeData: object; append?: boolean; mergeSettings?: never }): Promise<Bytes[]>;
  convert(document: Bytes, returnFormat: ClientFormat): Promise<Bytes>;
  append(request: { returnFormat: ClientFormat; documents: { document: Bytes; documentDivider?: 1 | 2 | 3 }[] }): Promise<Bytes>;
  thumbnails(document: Bytes, options: { zoomFactor?: number; fromPage?: number; toPage?: number; imageFormat?: never }): Promise<Bytes[]>;
  uploadTemplate(name: string, template: Bytes): Promise<void>;
  templateInfo(name: string): Promise<TemplateInfo>;
  deleteTemplate(name: string): Promise<void>;
}

/** The published client package, loaded when the CLI talks to a server. */
export async function loadClient(url: string, credentials: { apiKey: string } | { username: string; password: string }): Promise<ClientLike> {
  // The client is its own package (packages/client), built beside the service.
  const specifier = new URL('../../packages/client/dist/index.js', import.meta.url).href;
  const module = (await import(specifier)) as { DocsmithClient: new (url: string, credentials: unknown) => ClientLike };
  return new module.DocsmithClient(url, credentials);
}

/** Against a running server, through the TypeScript client. */
export class RemoteBackend implements Backend {
  constructor(private readonly client: ClientLike) {}

  async merge(template: Buffer, records: JsonObject[], format: string, append: boolean, settings: unknown): Promise<Buffer[]> {
    const docs = await this.client.merge({ returnFormat: format.toUpperCase() as ClientFormat, template, mergeData: records, append, mergeSettings: settings as never });
    return docs.map((d) => Buffer.from(d));
  }

  async convert(document: Buffer, format: string): Promise<Buffer> {
    return Buffer.from(await this.client.convert(document, format.toUpperCase() as ClientFormat));
  }

  async append(documents: { bytes: Buffer; divider: Divider }[], format: string): Promise<Buffer> {
    const divider = { none: 1, paragraph: 2, section: 3 } as const;
    return Buffer.from(await this.client.append({ returnFormat: format.toUpperCase() as ClientFormat, documents: documents.map((d) => ({ document: d.bytes, documentDivider: divider[d.divider] })) }));
  }

  async thumbnails(document: Buffer, options: { zoom?: number; from?: number; to?: number; imageFormat?: string }): Promise<Buffer[]> {
    const images = await this.client.thumbnails(document, { zoomFactor: options.zoom, fromPage: options.from, toPage: options.to, imageFormat: options.imageFormat?.toUpperCase() as never });
    return images.map((i) => Buffer.from(i));
  }

  async info(template: Buffer, name: string): Promise<TemplateInfo> {
    // The API describes stored templates: store it under a scratch name, read, remove.
    const scratch = `cli-info-${Date.now()}${name.match(/\.(docx|doc|rtf)$/i)?.[0] ?? '.docx'}`;
    await this.client.uploadTemplate(scratch, template);
    try {
      return { ...(await this.client.templateInfo(scratch)), templateName: name };
    } finally {
      await this.client.deleteTemplate(scratch).catch(() => undefined);
    }
  }

  async close(): Promise<void> {}
}
