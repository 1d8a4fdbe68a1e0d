import type { Services } from '../../services.js';
import { BusyError } from '../../errors.js';
import { Converter } from '../../convert/converter.js';
import { RETURN_FORMATS } from '../../formats/returnFormat.js';
import { accountOf } from '../auth.js';
import { base64BodySchema } from '../requests/schemas.js';
import { asyncQueryProperties, base64Body, booleanQuerySchema, errorResponses, jobSchema, pdfOutputQueryProperties } from '../schemas.js';
import { parseConvertRequest } from '../requests/documents.js';
import { answerAsJob, wantsJob } from './jobs.js';
import { queryOf, answerDocuments, returnFiles, type Api } from '../wire.js';

const returnFormatSchema = {
  type: 'string',
  description: `Output format, any case: ${RETURN_FORMATS.map((f) => f.toUpperCase()).join(', ')}`,
} as const;

/** The office-backed converter, or 503 when the engine is off. */
export function requireConverter(services: Services): Converter {
  if (!services.converter) throw new BusyError('The office engine is not running on this server; document operations are unavailable.', 30);
  return services.converter;
}

export function documentRoutes(app: Api, services: Services): void {
  app.post(
    '/document/convert',
    {
      schema: {
        tags: ['document'],
        summary: 'Convert a document (DOCX, DOC, RTF, TX, HTML, PDF) to another format',
        description:
          'Counts one document against the quota unless test=true, which stamps TEST MODE on every page. PDF input converts to TXT (its text) or PDF. ' +
          'A template (DOCX, DOC, RTF, TX) converted to DOCX keeps its merge fields with their switches and its blocks (docsmith): the result has the same template info.',
        querystring: {
          type: 'object',
          properties: { returnFormat: returnFormatSchema, test: booleanQuerySchema, ...pdfOutputQueryProperties, ...asyncQueryProperties },
          required: ['returnFormat'],
        },
        body: base64BodySchema,
        response: { 200: base64Body, 202: jobSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = queryOf(request);
      const work = parseConvertRequest(query, request.body);
      const account = accountOf(request);
      // A job may wait for an instance with the office; a request needs this one's.
      if (wantsJob(query)) return answerAsJob(services, reply, account, work, query);
      requireConverter(services);
      return answerDocuments(reply, (options) => services.door.perform(account, work, options), returnFiles(services.workers, work.format));
    },
  );
}
