import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { InputError } from '../../errors.js';
import { parseDivider, type Divider } from '../../compose/builder.js';
import { parseDocumentSettings } from '../../documents/settings.js';
import { parseReturnFormat } from '../../formats/returnFormat.js';
import { decodeBase64 } from '../../util/base64.js';
import { accountOf } from '../auth.js';
import { booleanQuerySchema, errorResponses } from '../schemas.js';
import { booleanQuery, jsonType, queryOf, sendJson } from '../wire.js';

const MAX_DOCUMENTS = 1000;

interface Entry {
  bytes: Buffer;
  divider: Divider;
}

function parseEntries(body: unknown): { entries: Entry[]; settings: unknown } {
  if (body === undefined || body === null) throw new InputError('The request body is empty; send a JSON object with "documents".');
  if (typeof body !== 'object' || Array.isArray(body)) throw new InputError(`The request body must be a JSON object with "documents", not a JSON ${jsonType(body)}.`);
  const { documents, documentSettings } = body as Record<string, unknown>;
  if (documents === undefined || documents === null) throw new InputError('"documents" is missing: send an array of {"document": "<Base64>", "documentDivider": 1|2|3}.');
  if (!Array.isArray(documents)) throw new InputError(`"documents" must be an array, not a JSON ${jsonType(documents)}.`);
  if (documents.length === 0) throw new InputError('"documents" is an empty array; send at least one document.');
  if (documents.length > MAX_DOCUMENTS) throw new InputError(`"documents" has ${documents.length} entries; at most ${MAX_DOCUMENTS} are allowed.`);
  const entries = documents.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new InputError(`documents[${i}] must be an object with "document" and "documentDivider".`);
    const { document, documentDivider } = entry as Record<string, unknown>;
    if (typeof document !== 'string' || document === '') throw new InputError(`documents[${i}].document must be the document as a Base64 string.`);
    return { bytes: decodeBase64(document, `documents[${i}].document`), divider: parseDivider(documentDivider, i) };
  });
  return { entries, settings: documentSettings };
}

export function appendRoutes(app: FastifyInstance, services: Services): void {
  app.post('/document/append', {
    schema: {
      tags: ['document'], summary: 'Join documents into one',
      description: 'Dividers: 1 None (continues the last paragraph), 2 NewParagraph, 3 NewSection (a new page with the appended document\'s own page setup, headers and footers). DOCX, DOC, RTF and HTML inputs.',
      querystring: { type: 'object', properties: { returnFormat: { type: 'string' }, test: booleanQuerySchema }, required: ['returnFormat'] },
      documentBody: {
        type: 'object',
        properties: {
          documents: { type: 'array', items: { type: 'object', properties: { document: { type: 'string' }, documentDivider: { description: '1, 2, 3 or None, NewParagraph, NewSection' } } } },
          documentSettings: { type: 'object' },
        },
        required: ['documents'],
      },
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
