import { parentPort } from 'node:worker_threads';
import * as mupdf from 'mupdf';
import { encodeBmp, encodeGif, type ImageFormat } from './encode.js';
import { openPdf } from '../formats/pdf.js';

/** One render job: pages of a PDF as images. Runs in a worker thread, off the event loop. */
export interface RenderJob {
  id: number;
  pdf: Uint8Array;
  /** 0-based page indexes. */
  pages: number[];
  scale: number;
  format: ImageFormat;
}

export type RenderReply = { id: number; images: Uint8Array[] } | { id: number; error: string };

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

parentPort?.on('message', (job: RenderJob) => {
  try {
    const images = render(job);
    parentPort!.postMessage({ id: job.id, images } satisfies RenderReply, images.map((i) => i.buffer as ArrayBuffer));
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: (error as Error).message } satisfies RenderReply);
  }
});
