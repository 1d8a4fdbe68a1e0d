import type { FastifyInstance } from 'fastify';
import { listFonts } from '../../office/fonts.js';
import { errorResponses } from '../schemas.js';
import { sendJson } from '../wire.js';

export function fontRoutes(app: FastifyInstance): void {
  app.get('/fonts/list', {
    schema: {
      tags: ['fonts'], summary: 'Font families installed for rendering',
      description: 'Includes the Office names (Arial, Times New Roman, Courier New, Calibri, Cambria) answered by their metric-compatible substitutes.',
      response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses },
    },
  }, async (_request, reply) => sendJson(reply, 200, await listFonts()));
}
