import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../../services.js';
import type { DocumentFormat } from '../../formats/detect.js';
import { accountOf } from '../auth.js';
import { errorResponses, templateNameQuery } from '../schemas.js';
import { requireQuery, sendJson } from '../wire.js';

/** The authenticated API part: a share token for one stored template. */
export function shareTokenRoute(app: FastifyInstance, services: Services): void {
  app.get('/document/share', {
    schema: {
      tags: ['document'], summary: 'A share token: a read-only preview link to a stored template, without credentials',
      description: 'Open /share/<token> in a browser. The link stops working when the template is deleted or replaced.',
      querystring: templateNameQuery, response: { 200: { type: 'string' }, ...errorResponses },
    },
  }, async (request, reply) => {
    const account = accountOf(request);
    const name = requireQuery(request, 'templateName');
    const template = await services.templates.require(account, name);
    return sendJson(reply, 200, services.shareTokens.sign({ a: account.id, n: name, h: template.sha256 }));
  });
}

const SHARE_ZOOMS = new Set([25, 50, 100, 150]);

function gone(reply: FastifyReply): FastifyReply {
  return reply.code(404).type('text/html; charset=utf-8')
    .send('<!doctype html><meta charset="utf-8"><title>Link not valid</title><p>This preview link is not valid, or the template was changed or deleted.</p>');
}

/** The open part: the preview page and its page images, for whoever holds the token. */
export function sharePreviewRoutes(app: FastifyInstance, services: Services): void {
  const resolve = async (token: string) => {
    const payload = services.shareTokens.verify(token);
    if (!payload) return null;
    const template = await services.store.templates.get(payload.a, payload.n);
    return template && template.sha256 === payload.h ? template : null;
  };

  // The page itself is the portal's share view; here only its data.
  app.get<{ Params: { token: string } }>('/share/:token', { schema: { hide: true } }, async (request, reply) => {
    const template = await resolve(request.params.token);
    if (!template) return gone(reply);
    return reply.redirect(`/portal/share/${encodeURIComponent(request.params.token)}`, 302);
  });

  app.get<{ Params: { token: string } }>('/share/:token/info', { schema: { hide: true } }, async (request, reply) => {
    const template = await resolve(request.params.token);
    if (!template) return sendJson(reply.header('cache-control', 'no-store'), 404, { message: 'This preview link is not valid, or the template was changed or deleted.' });
    const pages = await services.thumbnails.pageCount(template.data, template.format as DocumentFormat);
    return sendJson(reply.header('cache-control', 'no-store'), 200, { templateName: template.name, pages });
  });

  app.get<{ Params: { token: string; page: string } }>('/share/:token/pages/:page', { schema: { hide: true } }, async (request, reply) => {
    const template = await resolve(request.params.token);
    const page = Number(/^(\d+)\.png$/.exec(request.params.page)?.[1]);
    // A few fixed sizes (list thumbnails, previews), so that the image cache stays small.
    const zoom = Number((request.query as { zoom?: string }).zoom ?? 100);
    if (!template || !Number.isInteger(page) || page < 1 || !SHARE_ZOOMS.has(zoom)) return gone(reply);
    const [image] = await services.thumbnails.render(template.data, template.format as DocumentFormat, { zoom, fromPage: page, toPage: page, format: 'png' })
      .catch(() => [undefined]);
    if (!image) return gone(reply);
    return reply.type('image/png').header('cache-control', 'private, max-age=300').send(image);
  });
}
