import type { Services } from '../../services.js';
import { InputError } from '../../errors.js';
import { accountOf } from '../auth.js';
import { errorResponses, incorrectWordSchema } from '../schemas.js';
import { queryOf, requireQuery, sendJson, sendJsonText, type Api } from '../wire.js';

const MAX_TEXT = 1_000_000;

export function proofingRoutes(app: Api, services: Services): void {
  const { spelling, door } = services;

  app.get(
    '/proofing/availabledictionaries',
    {
      schema: {
        tags: ['proofing'],
        summary: 'The installed spelling dictionaries',
        response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses },
      },
    },
    async (_request, reply) => sendJson(reply, 200, spelling.available()),
  );

  app.get(
    '/proofing/check',
    {
      schema: {
        tags: ['proofing'],
        summary: 'Misspelled and repeated words of a text, with UTF-16 offsets',
        querystring: {
          type: 'object',
          properties: { text: { type: 'string' }, language: { type: 'string', description: 'e.g. en_US.dic' } },
          required: ['text', 'language'],
        },
        response: { 200: { type: 'array', items: incorrectWordSchema }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const text = requireQuery(request, 'text');
      if (text.length > MAX_TEXT) throw new InputError(`text is longer than ${MAX_TEXT} characters.`);
      const language = requireQuery(request, 'language');
      return sendJsonText(reply, 200, await door.perform(accountOf(request), { kind: 'spellCheck', text, language }));
    },
  );

  app.get(
    '/proofing/suggestions',
    {
      schema: {
        tags: ['proofing'],
        summary: 'Spelling suggestions for a word, best first',
        querystring: {
          type: 'object',
          properties: { word: { type: 'string' }, language: { type: 'string' }, max: { type: 'string' } },
          required: ['word', 'language'],
        },
        response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const word = requireQuery(request, 'word');
      if (word.length > 100) throw new InputError('word is longer than 100 characters.');
      const language = requireQuery(request, 'language');
      const maxText = queryOf(request).max ?? '10';
      if (!/^\d+$/.test(maxText) || Number(maxText) < 1 || Number(maxText) > 100)
        throw new InputError(`max must be a whole number from 1 to 100, not "${maxText}".`);
      return sendJson(reply, 200, await door.perform(accountOf(request), { kind: 'spellSuggest', word, language, max: Number(maxText) }));
    },
  );
}
