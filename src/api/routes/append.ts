import type { Services } from '../../services.js';
import { appendBodySchema } from '../requests/schemas.js';
import { parseAppendRequest } from '../requests/documents.js';
import { accountOf } from '../auth.js';
import { asyncQueryProperties, booleanQuerySchema, errorResponses, jobSchema, pdfOutputQueryProperties } from '../schemas.js';
import { answerAsJob, wantsJob } from './jobs.js';
import { queryOf, answerDocuments, returnFiles, type Api } from '../wire.js';

export function appendRoutes(app: Api, services: Services): void {
  app.post(
    '/document/append',
    {
      schema: {
        tags: ['document'],
        summary: 'Join documents into one',
        description:
          "Dividers: 1 None (continues the last paragraph), 2 NewParagraph, 3 NewSection (a new page with the appended document's own page setup, headers and footers). DOCX, DOC, RTF, TX and HTML inputs.",
        querystring: {
          type: 'object',
          properties: { returnFormat: { type: 'string' }, test: booleanQuerySchema, ...pdfOutputQueryProperties, ...asyncQueryProperties },
          required: ['returnFormat'],
        },
        body: appendBodySchema,
        response: { 200: { type: 'string', description: 'The document as Base64' }, 202: jobSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = queryOf(request);
      const work = parseAppendRequest(query, request.body);
      const account = accountOf(request);
      if (wantsJob(query)) return answerAsJob(services, reply, account, work, query);
      return answerDocuments(reply, (options) => services.door.perform(account, work, options), returnFiles(services.workers, work.format));
    },
  );
}
