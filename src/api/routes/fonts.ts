import type { Services } from '../../services.js';
import { errorResponses } from '../schemas.js';
import { sendJson, type Api } from '../wire.js';

export function fontRoutes(app: Api, services: Services): void {
  app.get(
    '/fonts/list',
    {
      schema: {
        tags: ['fonts'],
        summary: 'Font families installed for rendering',
        description:
          "Includes the Office names (Arial, Times New Roman, Courier New, Calibri, Cambria) answered by their metric-compatible substitutes, and the fonts in the operator's fonts folder (DOCSMITH_FONTS_DIR).",
        response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses },
      },
    },
    async (_request, reply) => sendJson(reply, 200, await services.fonts.list()),
  );
}
