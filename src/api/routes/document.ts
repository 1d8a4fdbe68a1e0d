import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { BusyError } from '../../errors.js';
import { Converter } from '../../convert/converter.js';
import { RETURN_FORMATS } from '../../formats/returnFormat.js';
import { parseReturnFormat } from '../requests/returnFormat.js';
import { decodeBase64 } from '../../util/base64.js';
import { accountOf } from '../auth.js';
import { base64BodySchema } from '../requests/schemas.js';
import { base64Body, booleanQuerySchema, errorResponses } from '../schemas.js';
import { booleanQuery, queryOf, sendJson, stringBody } from '../wire.js';

const returnFormatSchema = {
  type: 'string',
  description: `Output format, any case: ${RETURN_FORMATS.map((f) => f.toUpperCase()).join(', ')}`,
} as const;

/** The office-backed converter, or 503 when the engine is off. */
export function requireConverter(services: Services): Converter {
  if (!services.converter) throw new BusyError('The office engine is not running on this server; document operations are unavailable.', 30);
  return services.converter;
}

export function documentRoutes(app: FastifyInstance, services: Services): void {
  app.post('/document/convert', {
    schema: {
      tags: ['document'], summary: 'Convert a document (DOCX, DOC, RTF, HTML, PDF) to another format',
      description: 'Counts one document against the quota unless test=true, which stamps TEST MODE on every page. PDF input converts to TXT (its text) or PDF.',
      querystring: {
        type: 'object',
        properties: { returnFormat: returnFormatSchema, test: booleanQuerySchema },
        required: ['returnFormat'],
      },
      body: base64BodySchema,
      response: { 200: base64Body, ...errorResponses },
    },
  }, async (request, reply) => {
    requireConverter(services);
    const to = parseReturnFormat(queryOf(request).returnFormat);
    const test = booleanQuery(request, 'test', false);
    const input = decodeBase64(stringBody(request, 'the document as Base64'), 'The document');
    const from = Converter.detect(input, ['docx', 'doc', 'rtf', 'html', 'pdf']);
    const result = await services.usage.run(accountOf(request), { test, merge: false },
      (signal) => services.operations.convert({ document: input, from, format: to, test }, { signal }));
    reply.header('x-office-ms', String(result.officeMs));
    return sendJson(reply, 200, result.data.toString('base64'));
  });
}
