import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { InputError } from '../../errors.js';
import { decodeBase64 } from '../../util/base64.js';
import { base64BodySchema } from '../requests/schemas.js';
import { booleanQuerySchema, errorResponses, trackedChangeSchema } from '../schemas.js';
import { booleanQuery, requireQuery, sendJson, stringBody } from '../wire.js';

export function reviewRoutes(app: FastifyInstance, services: Services): void {
  app.post(
    '/processing/review/trackedchanges',
    {
      schema: {
        tags: ['review'],
        summary: 'The tracked changes of a document (DOCX, DOC, RTF), in document order',
        body: base64BodySchema,
        response: { 200: { type: 'array', items: trackedChangeSchema }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const document = decodeBase64(stringBody(request, 'the document as Base64'), 'The document');
      return sendJson(reply, 200, await services.operations.trackedChanges(document));
    },
  );

  app.post(
    '/processing/review/removetrackedchange',
    {
      schema: {
        tags: ['review'],
        summary: 'Accept or reject one tracked change',
        querystring: { type: 'object', properties: { id: { type: 'string' }, accept: booleanQuerySchema }, required: ['id', 'accept'] },
        body: base64BodySchema,
        response: {
          200: { type: 'object', properties: { document: { type: 'string' }, removed: { type: 'boolean' } } },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const idText = requireQuery(request, 'id');
      if (!/^\d+$/.test(idText)) throw new InputError(`id must be the number of a tracked change, not "${idText}".`);
      const accept = booleanQuery(request, 'accept', true);
      const document = decodeBase64(stringBody(request, 'the document as Base64'), 'The document');
      const changed = await services.operations.removeTrackedChange(document, Number(idText), accept);
      return sendJson(reply, 200, { document: changed.toString('base64'), removed: true });
    },
  );
}
