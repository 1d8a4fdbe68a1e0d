import { countLookup } from '../util/cacheStats.js';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { BusyError, InputError, PayloadTooLargeError } from '../errors.js';
import type { Converter } from '../convert/converter.js';
import type { DocumentFormat } from '../formats/detect.js';
import type { ImageFormat } from './encode.js';
import { DEFAULT_MAX_PAGES } from '../formats/pdf.js';
import type { PageRendering, PageSize } from './pages.js';

export interface ThumbnailRequest {
  zoom: number;
  fromPage: number;
  /** 0: the last page. */
  toPage: number;
  format: ImageFormat;
}

/** An LRU of buffers bounded by the bytes it holds. */
function byteCache(budget: number): LRUCache<string, Buffer> {
  return new LRUCache<string, Buffer>({ maxSize: budget, maxEntrySize: budget, sizeCalculation: (value) => Math.max(1, value.length) });
}

export interface ThumbnailLimits {
  /** Pixels of all requested pages together. */
  maxTotalPixels: number;
  maxPagePixels: number;
  /** Pages of one PDF read, and rendered in one request, at most (DOCSMITH_MAX_PAGES). */
  maxPages: number;
}

/**
 * Page images and page counts of documents: the office makes the PDF (cached by content), MuPDF
 * counts, measures and renders its pages in worker threads (images cached by content, page, zoom
 * and format), under the request's time limit; only the asked pages are ever loaded.
 */
export const DEFAULT_THUMBNAIL_LIMITS: ThumbnailLimits = {
  maxTotalPixels: 200_000_000,
  maxPagePixels: 50_000_000,
  maxPages: DEFAULT_MAX_PAGES,
};

export class Thumbnails {
  private readonly pdfs = byteCache(128 * 1024 * 1024);
  private readonly images = byteCache(128 * 1024 * 1024);
  /** Page counts by PDF content, and page sizes by content and page: a cached page image then needs no MuPDF at all. */
  private readonly counts = new LRUCache<string, number>({ max: 1024 });
  private readonly sizes = new LRUCache<string, PageSize>({ max: 100_000 });

  constructor(
    private readonly renderer: PageRendering,
    private readonly converter: Converter | null,
    private readonly limits: ThumbnailLimits = DEFAULT_THUMBNAIL_LIMITS,
  ) {}

  private async pdfOf(bytes: Buffer, format: DocumentFormat, signal?: AbortSignal): Promise<{ pdf: Buffer; key: string }> {
    const key = createHash('sha256').update(bytes).digest('hex');
    if (format === 'pdf') return { pdf: bytes, key };
    const cached = this.pdfs.get(key);
    countLookup('pdfs', cached !== undefined);
    if (cached) return { pdf: cached, key };
    if (!this.converter) throw new BusyError('Rendering this document needs the office engine, which is not running on this server.', 30);
    const { data } = await this.converter.convert(bytes, format, 'pdf', { signal });
    this.pdfs.set(key, data);
    return { pdf: data, key };
  }

  /** The page count and the asked pages' sizes, read in a worker thread; none when both are cached. */
  private async measure(
    pdf: Buffer,
    key: string,
    range: { from: number; to: number },
    signal?: AbortSignal,
  ): Promise<{ count: number; sizes?: PageSize[] }> {
    const count = this.counts.get(key);
    if (count !== undefined && range.to <= count) {
      const to = range.to === 0 ? count : range.to;
      const sizes = Array.from({ length: Math.max(0, to - range.from + 1) }, (_, i) => this.sizes.get(`${key}:${range.from + i}`));
      if (sizes.every((size) => size !== undefined)) return { count, sizes };
    }
    const inspection = await this.renderer.inspectPages({ pdf, ...range, maxPages: this.limits.maxPages }, signal);
    this.counts.set(key, inspection.count);
    inspection.sizes?.forEach((size, i) => this.sizes.set(`${key}:${range.from + i}`, size));
    return inspection;
  }

  async pageCount(bytes: Buffer, format: DocumentFormat, signal?: AbortSignal): Promise<number> {
    const { pdf, key } = await this.pdfOf(bytes, format, signal);
    return (await this.measure(pdf, key, { from: 1, to: 0 }, signal)).count;
  }

  async render(bytes: Buffer, format: DocumentFormat, request: ThumbnailRequest, signal?: AbortSignal): Promise<Buffer[]> {
    const { pdf, key } = await this.pdfOf(bytes, format, signal);
    const { count: last, sizes } = await this.measure(pdf, key, { from: request.fromPage, to: request.toPage }, signal);
    const to = request.toPage === 0 ? last : request.toPage;
    if (last === 0)
      throw new InputError('The document has no page that can be read (a PDF whose page tree is damaged, or an empty document).');
    if (request.fromPage > last || to > last)
      throw new InputError(`The document has ${last} page${last === 1 ? '' : 's'}; the range ${request.fromPage}-${to} is outside it.`);
    if (request.fromPage > to) throw new InputError(`fromPage (${request.fromPage}) is after toPage (${to}).`);
    const maxPages = this.limits.maxPages;
    if (to - request.fromPage + 1 > maxPages) {
      throw new PayloadTooLargeError(
        `Pages ${request.fromPage}-${to} are ${to - request.fromPage + 1} pages; at most ${maxPages} can be rendered at once (DOCSMITH_MAX_PAGES). Ask for a smaller range with fromPage and toPage.`,
      );
    }
    if (!sizes) throw new InputError(`The range ${request.fromPage}-${to} is outside the document.`);
    const scale = (request.zoom / 100) * (96 / 72);
    const pages = Array.from({ length: to - request.fromPage + 1 }, (_, i) => request.fromPage - 1 + i);
    let total = 0;
    for (const index of pages) {
      const size = sizes[index - (request.fromPage - 1)]!;
      const pixels = Math.ceil(size.width * scale) * Math.ceil(size.height * scale);
      if (pixels > this.limits.maxPagePixels)
        throw new InputError(
          `Page ${index + 1} at zoom ${request.zoom} would be ${Math.round(pixels / 1e6)} megapixels; the limit is ${this.limits.maxPagePixels / 1e6}. Use a smaller zoomFactor.`,
        );
      total += pixels;
    }
    if (total > this.limits.maxTotalPixels) {
      throw new InputError(
        `These ${pages.length} pages at zoom ${request.zoom} would be ${Math.round(total / 1e6)} megapixels; the limit is ${this.limits.maxTotalPixels / 1e6}. Ask for fewer pages or a smaller zoomFactor.`,
      );
    }
    const cacheKey = (page: number) => `${key}:${page}:${request.zoom}:${request.format}`;
    const found = new Map(pages.map((page) => [page, this.images.get(cacheKey(page))] as const));
    const missing = pages.filter((page) => !found.get(page));
    if (missing.length > 0) {
      const rendered = await this.renderer.renderPages({ pdf, pages: missing, scale, format: request.format }, signal);
      missing.forEach((page, i) => {
        const image = Buffer.from(rendered[i]!);
        found.set(page, image);
        this.images.set(cacheKey(page), image);
      });
    }
    return pages.map((page) => found.get(page)!);
  }
}
