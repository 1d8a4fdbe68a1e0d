import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { InputError } from '../../errors.js';
import { Converter } from '../../convert/converter.js';
import { listTrackedChanges, removeTrackedChange } from '../../review/trackedChanges.js';
import { decodeBase64 } from '../../util/base64.js';
import { base64Body, booleanQuerySchema, errorResponses } from '../schemas.js';
import { booleanQuery, requireQuery, sendJson, stringBody } from '../wire.js';

const trackedChange = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, changeKind: { type: 'integer', description: '4096 inserted text, 8192 deleted text, 16384 formatting, 32768 paragraph mark' },
    changeTime: { type: 'string' }, userName: { type: 'string' }, text: { type: 'string' }, start: { type: 'integer' }, length: { type: 'integer' },
    highlightMode: { type: 'integer' }, highlightColor: { type: 'string' }, defaultHighlightColor: { type: 'string' },
  },
} as const;

export function reviewRoutes(app: FastifyInstance, services: Services): void {
  /** The request's document as DOCX, and how to give a DOCX back in the document's own format. */
  async function asDocx(body: string): Promise<{ docx: Buffer; back(docx: Buffer): Promise<Buffer> }> {
    const bytes = decodeBase64(body, 'The document');
    const docx = await services.pipeline.asDocx(bytes, ['docx', 'doc', 'rtf'], 'The document');
    if (docx === bytes) return { docx, back: async (d) => d };
    // It was DOC or RTF, so the office is running; the answer goes back in that format.
    const kind = Converter.detect(bytes, ['doc', 'rtf']) as 'doc' | 'rtf';
    const converter = services.converter!;
    return { docx, back: async (d) => (await converter.convert(d, 'docx', kind)).data };
  }

  app.post('/processing/review/trackedchanges', {
    schema: {
      tags: ['review'], summary: 'The tracked changes of a document (DOCX, DOC, RTF), in document order',
      documentBody: base64Body, response: { 200: { type: 'array', items: trackedChange }, ...errorResponses },
    },
  }, async (request, reply) => {
    const { docx } = await asDocx(stringBody(request, 'the document as Base64'));
    return sendJson(reply, 200, listTrackedChanges(docx));
  });

  app.post('/processing/review/removetrackedchange', {
    schema: {
      tags: ['review'], summary: 'Accept or reject one tracked change',
      querystring: { type: 'object', properties: { id: { type: 'string' }, accept: booleanQuerySchema }, required: ['id', 'accept'] },
      documentBody: base64Body,
      response: { 200: { type: 'object', properties: { document: { type: 'string' }, removed: { type: 'boolean' } } }, ...errorResponses },
    },
  }, async (request, reply) => {
    const idText = requireQuery(request, 'id');
    if (!/^\d+$/.test(idText)) throw new InputError(`id must be the number of a tracked change, not "${idText}".`);
    const accept = booleanQuery(request, 'accept', true);
    const { docx, back } = await asDocx(stringBody(request, 'the document as Base64'));
    const changed = removeTrackedChange(docx, Number(idText), accept);
    return sendJson(reply, 200, { document: (await back(changed)).toString('base64'), removed: true });
  });
}
