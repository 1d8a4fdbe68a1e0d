/** Pages: images of a document's or a stored template's pages (counted as documents or not), and page counts. */
import type { ThumbnailRequest } from '../../render/thumbnails.js';
import type { Answer, Row, Source } from '../work.js';

/** Page images that count as a document (the thumbnail endpoints). */
export interface ThumbnailsRequest {
  kind: 'thumbnails';
  source: Source;
  view: ThumbnailRequest;
}

/** Page images that do not count (the portal's own views, share links). */
export interface PageImagesRequest {
  kind: 'pageImages';
  source: Source;
  view: ThumbnailRequest;
}

export interface PageCountRequest {
  kind: 'pageCount';
  source: Source;
}

export const thumbnails = {
  counted: true,
  slot: false,
  async run(request, { operations, ctx, source }) {
    const { bytes, format } = await source(request.source);
    const documents = await operations.thumbnails({ document: bytes, from: format, view: request.view }, ctx);
    return { documents, list: true, headers: {} };
  },
} satisfies Row<ThumbnailsRequest, Answer>;

export const pageImages = {
  counted: false,
  slot: false,
  async run(request, { operations, ctx, source }) {
    const { bytes, format } = await source(request.source);
    return operations.thumbnails({ document: bytes, from: format, view: request.view }, ctx);
  },
} satisfies Row<PageImagesRequest, Buffer[]>;

export const pageCount = {
  counted: false,
  slot: false,
  async run(request, { operations, ctx, source }) {
    const { bytes, format } = await source(request.source);
    return operations.pageCount({ document: bytes, from: format }, ctx);
  },
} satisfies Row<PageCountRequest, number>;
