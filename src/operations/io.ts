import type { Account, TemplateMeta } from '../store/types.js';
import { BusyError, InputError } from '../errors.js';
import { Converter, type ConvertOptions } from '../convert/converter.js';
import type { DocumentProperties } from '../ooxml/properties.js';
import { type DocumentFormat, requireFormat } from '../formats/detect.js';
import type { Normaliser } from '../convert/normalise.js';
import type { OfficeFormat, ReturnFormat } from '../formats/returnFormat.js';
import type { TemplateLibrary } from '../templates/library.js';
import { hasProperties } from '../documents/settings.js';
import { OoxmlPackage } from '../ooxml/package.js';
import { asSyntax, type TemplateSyntax } from '../merge/syntax/index.js';
import { writeDocumentProperties } from '../ooxml/properties.js';
import { addWatermark, TEST_WATERMARK } from '../ooxml/watermark.js';

/**
 * What a request reads, the one shape for templates and documents: a stored template by name (an
 * earlier version when `templateVersion` is set), or bytes already read (sent as Base64 and decoded
 * by the request's parser, a file the CLI read); `format` where the parser already knows it.
 */
export type Source = ({ templateName: string; templateVersion?: number } | { bytes: Buffer; format?: DocumentFormat; name?: string }) & {
  /** The syntax the template's tags are typed in, when the request says (a stored template's own otherwise). */
  syntax?: TemplateSyntax;
};

/** A template read for work: its bytes, how messages name it, and the syntax of its tags. */
export interface TemplateInput {
  bytes: Buffer;
  what: string;
  syntax: TemplateSyntax;
  /** A stored template's content hash: what it becomes as DOCX may be kept by it. */
  sha256?: string;
}

/**
 * The ends of every document operation: where the template comes from (storage or the
 * request), turned into DOCX and compiled; and how a DOCX result leaves (as is, or through the
 * office for other formats, properties, passwords and the test watermark).
 */
export class DocumentPipeline {
  constructor(
    private readonly templates: TemplateLibrary,
    private readonly converter: Converter | null,
    private readonly normaliser: Normaliser | null,
    /** TX Text Control documents as DOCX (formats/tx/, in a worker thread); no office needed. */
    private readonly readTx: (bytes: Buffer, signal?: AbortSignal) => Promise<Buffer>,
    /**
     * A DOCX written as TX (formats/tx/, in a worker thread), a test run's mark as a header line;
     * `source`: the TX document it was made from, whose settings and style sheet it keeps.
     */
    private readonly writeTx: (docx: Buffer, test: boolean, signal?: AbortSignal, source?: Buffer) => Promise<Buffer> = () =>
      Promise.reject(new InputError('TX output is written by a docsmith server.')),
  ) {}

  /** Exactly one of a stored template's name and an uploaded template: its bytes, and how messages name it. */
  /** `current`: the stored template's version as the work's claim read it (see TemplateLibrary.require). */
  async templateSource(account: Account | null, source: Source, current?: TemplateMeta | null): Promise<TemplateInput> {
    if ('bytes' in source) return { bytes: source.bytes, what: 'The uploaded template', syntax: source.syntax ?? 'word' };
    const stored = await this.templates.resolve(account, source.templateName, { current, version: source.templateVersion });
    return { bytes: stored.data, what: stored.what, syntax: source.syntax ?? asSyntax(stored.syntax), sha256: stored.sha256 };
  }

  /** The same checks as templateSource without reading a stored template's bytes (a job, when it is queued). */
  async checkTemplateSource(account: Account, source: Source): Promise<void> {
    if ('bytes' in source) return;
    if (source.templateVersion !== undefined) await this.templates.requireVersion(account, source.templateName, source.templateVersion);
    else await this.templates.requireMeta(account, source.templateName);
  }

  /** The bytes as DOCX when they are one of `accepted`; other formats through the normaliser. */
  async asDocx(
    bytes: Buffer,
    accepted: readonly ('docx' | 'doc' | 'rtf' | 'tx' | 'html')[],
    what: string,
    signal?: AbortSignal,
    known?: DocumentFormat,
  ): Promise<Buffer> {
    const format = known ?? requireFormat(bytes, accepted, what);
    if (format === 'docx') return bytes;
    if (format === 'tx') return this.readTx(bytes, signal);
    if (!this.normaliser)
      throw new BusyError(`${what} is ${format.toUpperCase()}; reading it needs the office engine, which is not running.`, 30);
    return this.normaliser.toDocx(bytes, format as 'doc' | 'rtf' | 'html', signal);
  }

  /** False when DOC and RTF cannot be read here (no office engine): they are checked at first use. */
  get readsLegacyFormats(): boolean {
    return this.normaliser !== null;
  }

  /** A DOCX result in the requested format, with properties, password and test watermark. */
  async output(
    docx: Buffer,
    format: ReturnFormat,
    options: {
      properties: DocumentProperties;
      password?: string;
      test: boolean;
      signal?: AbortSignal;
      timeoutMs?: number;
      alreadyInert?: boolean;
      updateFields?: boolean;
      /** Per-section page totals to compute as the office lays out (merged records numbered on their own). */
      sectionPages?: boolean;
      /** Tagged PDF/UA; `accessibleTitle` for a document without a title. */
      accessible?: boolean;
      accessibleTitle?: string;
      /** PDF/A-3b (an e-invoice's carrier). */
      pdfa3?: boolean;
      /** The TX document the result was made from: TX output keeps its settings, style sheet and protection. */
      txSource?: Buffer;
    } & Pick<ConvertOptions, 'loaded' | 'pages'>,
  ): Promise<Buffer> {
    // TX is written from the DOCX here; it holds no password (ignored, as for RTF) and no document properties.
    if (format === 'tx') return this.writeTx(docx, options.test, options.signal, options.txSource);
    if (!outputNeedsOffice(format, options.password)) {
      // DOCX stays our own OOXML; properties and a test run's watermark are written into the package directly.
      if (!hasProperties(options.properties) && !options.test) return docx;
      const pkg = OoxmlPackage.read(docx);
      if (hasProperties(options.properties)) writeDocumentProperties(pkg, options.properties);
      if (options.test) addWatermark(pkg, TEST_WATERMARK);
      return pkg.toBuffer();
    }
    if (!this.converter) throw new BusyError('Producing this output needs the office engine, which is not running on this server.', 30);
    const { data } = await this.converter.convert(docx, 'docx', format as OfficeFormat, {
      properties: options.properties,
      password: options.password,
      test: options.test,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      alreadyInert: options.alreadyInert,
      ...(options.updateFields !== undefined ? { updateFields: options.updateFields } : {}),
      sectionPages: options.sectionPages,
      ...(options.accessible ? { accessible: { title: options.accessibleTitle ?? 'Document' } } : {}),
      ...(options.pdfa3 ? { pdfa3: true } : {}),
      ...(options.loaded ? { loaded: options.loaded } : {}),
      ...(options.pages ? { pages: options.pages } : {}),
    });
    return data;
  }
}

/** DOCX output stays our own OOXML (a test run's watermark too) unless a password needs the office. */
export function outputNeedsOffice(format: ReturnFormat, password: string | undefined): boolean {
  if (format === 'tx') return false;
  return format !== 'docx' || Boolean(password);
}
