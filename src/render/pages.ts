import { encodeBmp, encodeGif, type ImageFormat } from './encode.js';
import { mupdf, openPdf } from '../formats/pdf.js';

/** Pages of a PDF as images: 0-based page indexes at a scale (1 = 72 dpi). */
export interface RenderPages {
  pdf: Uint8Array;
  pages: number[];
  scale: number;
  format: ImageFormat;
}

/**
 * The page count, and the sizes of pages `from`..`to` (1-based; `to` 0: the last), read only
 * when there are at most `maxPages` of them: a 100,000-page PDF costs one count, not 100,000 loads.
 */
export interface InspectPages {
  pdf: Uint8Array;
  from: number;
  to: number;
  maxPages: number;
}

export interface PageSize {
  width: number;
  height: number;
}

export interface Inspection {
  count: number;
  /** Sizes of the asked pages, in order; undefined when the range is outside the document or too long. */
  sizes?: PageSize[];
}

/** How pages are read and drawn: in the document worker threads (workers/pool.ts), off the event loop. */
export interface PageRendering {
  renderPages(job: RenderPages, signal?: AbortSignal): Promise<Uint8Array[]>;
  inspectPages(job: InspectPages, signal?: AbortSignal): Promise<Inspection>;
}

export async function inspectPages(job: InspectPages): Promise<Inspection> {
  const doc = openPdf(await mupdf(), job.pdf, job.maxPages);
  const count = doc.countPages();
  const to = job.to === 0 ? count : job.to;
  if (job.from < 1 || job.from > to || to > count || to - job.from + 1 > job.maxPages) return { count };
  const sizes: PageSize[] = [];
  for (let page = job.from; page <= to; page++) {
    const [x0, y0, x1, y1] = doc.loadPage(page - 1).getBounds();
    sizes.push({ width: x1 - x0, height: y1 - y0 });
  }
  return { count, sizes };
}

export async function renderPages(job: RenderPages): Promise<Uint8Array[]> {
  const lib = await mupdf();
  const doc = openPdf(lib, job.pdf);
  return job.pages.map((index): Uint8Array => {
    const pixmap = doc.loadPage(index).toPixmap(lib.Matrix.scale(job.scale, job.scale), lib.ColorSpace.DeviceRGB, false, true);
    try {
      if (job.format === 'png') return pixmap.asPNG().slice();
      if (job.format === 'jpg') return pixmap.asJPEG(85).slice();
      const width = pixmap.getWidth();
      const height = pixmap.getHeight();
      const stride = pixmap.getStride();
      const raw = pixmap.getPixels();
      const pixels = new Uint8Array(width * height * 3);
      for (let y = 0; y < height; y++) pixels.set(raw.subarray(y * stride, y * stride + width * 3), y * width * 3);
      return job.format === 'gif' ? encodeGif({ width, height, pixels }) : encodeBmp({ width, height, pixels });
    } finally {
      pixmap.destroy();
    }
  });
}
