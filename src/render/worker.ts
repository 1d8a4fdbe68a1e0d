import { parentPort } from 'node:worker_threads';
import * as mupdf from 'mupdf';
import { encodeBmp, encodeGif, type ImageFormat } from './encode.js';
import { openPdf } from '../formats/pdf.js';
import { InputError } from '../errors.js';

/** One render job: pages of a PDF as images. Runs in a worker thread, off the event loop. */
export interface RenderJob {
  id: number;
  kind: 'render';
  pdf: Uint8Array;
  /** 0-based page indexes. */
  pages: number[];
  scale: number;
  format: ImageFormat;
}

/**
 * The page count, and the sizes of pages `from`..`to` (1-based; `to` 0: the last), read only
 * when there are at most `maxPages` of them: a 100,000-page PDF costs one count, not 100,000 loads.
 */
export interface InspectJob {
  id: number;
  kind: 'inspect';
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

export type WorkerJob = RenderJob | InspectJob;
/** `input`: the document was at fault (a 400), not the renderer. */
export type RenderReply = { id: number; images: Uint8Array[] } | { id: number; inspection: Inspection } | { id: number; error: string; input: boolean };

function inspect(job: InspectJob): Inspection {
  const doc = openPdf(mupdf, job.pdf, job.maxPages);
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

function render(job: RenderJob): Uint8Array[] {
  const doc = openPdf(mupdf, job.pdf);
  return job.pages.map((index): Uint8Array => {
    const pixmap = doc.loadPage(index).toPixmap(mupdf.Matrix.scale(job.scale, job.scale), mupdf.ColorSpace.DeviceRGB, false, true);
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

parentPort?.on('message', (job: WorkerJob) => {
  try {
    if (job.kind === 'inspect') {
      parentPort!.postMessage({ id: job.id, inspection: inspect(job) } satisfies RenderReply);
      return;
    }
    const images = render(job);
    parentPort!.postMessage({ id: job.id, images } satisfies RenderReply, images.map((i) => i.buffer as ArrayBuffer));
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: (error as Error).message, input: error instanceof InputError } satisfies RenderReply);
  }
});
