import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { parseThumbnailRequest } from '../requests/thumbnails.js';
import { decodeBase64 } from '../../util/base64.js';
import { type DocumentFormat, requireFormat } from '../../formats/detect.js';
import { accountOf } from '../auth.js';
import { base64BodySchema } from '../requests/schemas.js';
import { errorResponses } from '../schemas.js';
import { queryOf, requireQuery, sendJson, stringBody } from '../wire.js';

const thumbnailQuery = {
  zoomFactor: { type: 'string', description: 'Percent, 1 to 400 (100 = 96 dpi); default 100' },
  fromPage: { type: 'string', description: 'First page, 1-based; default 1' },
  toPage: { type: 'string', description: 'Last page, inclusive; default (or 0) the last page' },
  imageFormat: { type: 'string', description: 'PNG (default), JPG, GIF or BMP' },
} as const;

const imagesResponse = { type: 'array', items: { type: 'string', description: 'An image as Base64' } } as const;

export function thumbnailRoutes(app: FastifyInstance, services: Services): void {
  const { operations, usage, templates } = services;

  app.post(
    '/document/thumbnails',
    {
      schema: {
        tags: ['document'],
        summary: 'Page images of a document (DOCX, DOC, RTF, HTML, PDF, XLSX)',
        querystring: { type: 'object', properties: thumbnailQuery },
        body: base64BodySchema,
        response: { 200: imagesResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const options = parseThumbnailRequest(queryOf(request));
      const bytes = decodeBase64(stringBody(request, 'the document as Base64'), 'The document');
      const format = requireFormat(bytes, ['docx', 'doc', 'rtf', 'html', 'pdf', 'xlsx']);
      const images = await usage.run(accountOf(request), { test: false, merge: false }, (signal) =>
        operations.thumbnails({ document: bytes, from: format, view: options }, { signal }),
      );
      return sendJson(
        reply,
        200,
        images.map((i) => i.toString('base64')),
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
      const options = parseThumbnailRequest(queryOf(request));
      const account = accountOf(request);
      const template = await templates.require(account, requireQuery(request, 'templateName'));
      const images = await usage.run(account, { test: false, merge: false }, (signal) =>
        operations.thumbnails({ document: template.data, from: template.format as DocumentFormat, view: options }, { signal }),
      );
      return sendJson(
        reply,
        200,
        images.map((i) => i.toString('base64')),
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
    async (request, reply) => {
      const template = await templates.require(accountOf(request), requireQuery(request, 'templateName'));
      return sendJson(reply, 200, await operations.pageCount({ document: template.data, from: template.format as DocumentFormat }));
    },
  );
}
