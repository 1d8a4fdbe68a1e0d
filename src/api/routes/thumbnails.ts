import type { Services } from '../../services.js';
import { parsePageCountRequest, parseTemplateThumbnailsRequest, parseThumbnailsRequest } from '../requests/documents.js';
import { accountOf } from '../auth.js';
import { base64BodySchema } from '../requests/schemas.js';
import { errorResponses } from '../schemas.js';
import { answerDocuments, imageFiles, queryOf, sendJson, type Api } from '../wire.js';

const thumbnailQuery = {
  zoomFactor: { type: 'string', description: 'Percent, 1 to 400 (100 = 96 dpi); default 100' },
  fromPage: { type: 'string', description: 'First page, 1-based; default 1' },
  toPage: { type: 'string', description: 'Last page, inclusive; default (or 0) the last page' },
  imageFormat: { type: 'string', description: 'PNG (default), JPG, GIF or BMP' },
} as const;

const imagesResponse = { type: 'array', items: { type: 'string', description: 'An image as Base64' } } as const;

export function thumbnailRoutes(app: Api, services: Services): void {
  const { door } = services;

  app.post(
    '/document/thumbnails',
    {
      schema: {
        tags: ['document'],
        summary: 'Page images of a document (DOCX, DOC, RTF, TX, HTML, PDF, XLSX)',
        querystring: { type: 'object', properties: thumbnailQuery },
        body: base64BodySchema,
        response: { 200: imagesResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const work = parseThumbnailsRequest(queryOf(request), request.body);
      return answerDocuments(
        reply,
        (options) => door.perform(accountOf(request), work, options),
        imageFiles(services.workers, work.view.format),
      );
    },
  );

  app.get(
    '/templates/thumbnails',
    {
      schema: {
        tags: ['templates'],
        summary: 'Page images of a stored template',
        querystring: { type: 'object', properties: { templateName: { type: 'string' }, ...thumbnailQuery }, required: ['templateName'] },
        response: { 200: imagesResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const work = parseTemplateThumbnailsRequest(queryOf(request));
      return answerDocuments(
        reply,
        (options) => door.perform(accountOf(request), work, options),
        imageFiles(services.workers, work.view.format),
      );
    },
  );

  app.get(
    '/templates/pagecount',
    {
      schema: {
        tags: ['templates'],
        summary: 'How many pages a stored template has',
        querystring: { type: 'object', properties: { templateName: { type: 'string' } }, required: ['templateName'] },
        response: { 200: { type: 'integer' }, ...errorResponses },
      },
    },
    async (request, reply) => sendJson(reply, 200, await door.perform(accountOf(request), parsePageCountRequest(queryOf(request)))),
  );
}
