import type { Services } from '../../services.js';
import { parseRemoveTrackedChangeRequest, parseTrackedChangesRequest } from '../requests/documents.js';
import { accountOf } from '../auth.js';
import { base64BodySchema } from '../requests/schemas.js';
import { booleanQuerySchema, errorResponses, trackedChangeSchema } from '../schemas.js';
import { queryOf, sendJson, type Api } from '../wire.js';

export function reviewRoutes(app: Api, services: Services): void {
  app.post(
    '/processing/review/trackedchanges',
    {
      schema: {
        tags: ['review'],
        summary: 'The tracked changes of a document (DOCX, DOC, RTF, TX), in document order',
        body: base64BodySchema,
        response: { 200: { type: 'array', items: trackedChangeSchema }, ...errorResponses },
      },
    },
    async (request, reply) =>
      sendJson(reply, 200, await services.door.perform(accountOf(request), parseTrackedChangesRequest(request.body))),
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
      const changed = await services.door.perform(accountOf(request), parseRemoveTrackedChangeRequest(queryOf(request), request.body));
      return sendJson(reply, 200, { document: changed.toString('base64'), removed: true });
    },
  );
}
