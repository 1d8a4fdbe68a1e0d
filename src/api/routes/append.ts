import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { parseEntries } from '../requests/append.js';
import { appendBodySchema } from '../requests/schemas.js';
import { parseDocumentSettings } from '../requests/settings.js';
import { parseReturnFormat } from '../requests/returnFormat.js';
import { accountOf } from '../auth.js';
import { booleanQuerySchema, errorResponses } from '../schemas.js';
import { booleanQuery, queryOf, sendJson } from '../wire.js';

export function appendRoutes(app: FastifyInstance, services: Services): void {
  app.post('/document/append', {
    schema: {
      tags: ['document'], summary: 'Join documents into one',
      description: 'Dividers: 1 None (continues the last paragraph), 2 NewParagraph, 3 NewSection (a new page with the appended document\'s own page setup, headers and footers). DOCX, DOC, RTF and HTML inputs.',
      querystring: { type: 'object', properties: { returnFormat: { type: 'string' }, test: booleanQuerySchema }, required: ['returnFormat'] },
      body: appendBodySchema,
      response: { 200: { type: 'string', description: 'The document as Base64' }, ...errorResponses },
    },
  }, async (request, reply) => {
    const format = parseReturnFormat(queryOf(request).returnFormat);
    const test = booleanQuery(request, 'test', false);
    const { entries, settings: rawSettings } = parseEntries(request.body);
    const settings = parseDocumentSettings(rawSettings, 'documentSettings');
    const document = await services.usage.run(accountOf(request), { test, merge: false }, (signal, deadline) =>
      services.operations.append({ documents: entries, document: settings, format, test }, { signal, deadline }));
    return sendJson(reply, 200, document.toString('base64'));
  });
}
