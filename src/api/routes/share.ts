import type { FastifyReply } from 'fastify';
import type { Services } from '../../services.js';
import type { DocumentFormat } from '../../formats/detect.js';
import { accountOf } from '../auth.js';
import { errorResponses, shareLinkSchema, templateNameQuery } from '../schemas.js';
import { queryOf, requireQuery, sendEmpty, sendJson, type Api } from '../wire.js';
import type { ShareLinkRecord } from '../../store/types.js';
import { formatWireDate } from '../../util/dates.js';
import { InputError } from '../../errors.js';
import { PAGE_IMAGE_ZOOMS, parsePageImageRequest } from '../requests/documents.js';

const formatLink = (link: ShareLinkRecord) => ({
  id: link.id,
  templateName: link.templateName,
  created: formatWireDate(link.createdAt),
  expires: formatWireDate(link.expiresAt),
});

/** The authenticated API part: share links to stored templates, listed and revoked by their owner. */
export function shareTokenRoute(app: Api, services: Services): void {
  app.get(
    '/document/share',
    {
      schema: {
        tags: ['document'],
        summary: 'A share token: a read-only preview link to a stored template, without credentials',
        description: `Open /share/<token> in a browser. The token is opaque. The link ends when it expires (expiresInDays, default ${services.config.share.defaultDays}, at most ${services.config.share.maxDays}), when it is revoked, or when the template is replaced or deleted.`,
        querystring: {
          type: 'object',
          required: ['templateName'],
          properties: {
            templateName: templateNameQuery.properties.templateName,
            expiresInDays: { type: 'string', description: 'Lifetime in days' },
          },
        },
        response: { 200: { type: 'string' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const template = await services.templates.require(account, requireQuery(request, 'templateName'));
      const daysText = queryOf(request).expiresInDays;
      const days = daysText === undefined ? undefined : /^\d{1,6}$/.test(daysText) ? Number(daysText) : NaN;
      const { token } = await services.shareLinks.create(account, template.name, days);
      return sendJson(reply, 200, token);
    },
  );

  app.get(
    '/document/share/list',
    {
      schema: {
        tags: ['document'],
        summary: "The account's live share links (not their tokens)",
        response: {
          200: { type: 'array', items: shareLinkSchema },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => sendJson(reply, 200, (await services.shareLinks.list(accountOf(request))).map(formatLink)),
  );

  app.delete(
    '/document/share',
    {
      schema: {
        tags: ['document'],
        summary: 'Revoke a share link by its id',
        querystring: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        response: { 204: { type: 'null', description: 'Empty body' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await services.shareLinks.revoke(accountOf(request), requireQuery(request, 'id'));
      return sendEmpty(reply, 204);
    },
  );

  // The portal's own page images: with the user's credentials, uncounted like a share preview.
  app.get(
    '/templates/pageimage',
    {
      schema: {
        tags: ['templates'],
        summary: 'One page of a stored template as PNG, for previews (not counted)',
        querystring: {
          type: 'object',
          required: ['templateName'],
          properties: {
            templateName: templateNameQuery.properties.templateName,
            page: { type: 'string' },
            zoom: { type: 'string', enum: ['25', '50', '100', '150'] },
          },
        },
      },
    },
    async (request, reply) => {
      const work = parsePageImageRequest(queryOf(request));
      const [image] = await services.door.perform(accountOf(request), work);
      if (!image) throw new InputError(`The template has no page ${work.view.fromPage}.`);
      return reply.type('image/png').header('cache-control', 'private, max-age=300').send(image);
    },
  );
}

function gone(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .send(
      '<!doctype html><meta charset="utf-8"><title>Link not valid</title><p>This preview link is not valid: it expired, was revoked, or its template was changed or deleted.</p>',
    );
}

/** The open part: the preview page and its page images, for whoever holds the token. */
export function sharePreviewRoutes(app: Api, services: Services): void {
  const resolve = async (token: string) => {
    const link = await services.shareLinks.resolve(token);
    return link ? services.store.templates.get(link.accountId, link.templateName) : null;
  };

  // The page itself is the portal's share view; here only its data.
  app.get<{ Params: { token: string } }>('/share/:token', { schema: { hide: true } }, async (request, reply) => {
    const template = await resolve(request.params.token);
    if (!template) return gone(reply);
    return reply.redirect(`/portal/share/${encodeURIComponent(request.params.token)}`, 302);
  });

  app.get<{ Params: { token: string } }>('/share/:token/info', { schema: { hide: true } }, async (request, reply) => {
    const template = await resolve(request.params.token);
    if (!template)
      return sendJson(reply.header('cache-control', 'no-store'), 404, {
        message: 'This preview link is not valid: it expired, was revoked, or its template was changed or deleted.',
      });
    const source = { bytes: template.data, format: template.format as DocumentFormat, name: template.name };
    const pages = await services.door.perform(null, { kind: 'pageCount', source });
    return sendJson(reply.header('cache-control', 'no-store'), 200, { templateName: template.name, pages });
  });

  app.get<{ Params: { token: string; page: string } }>('/share/:token/pages/:page', { schema: { hide: true } }, async (request, reply) => {
    const template = await resolve(request.params.token);
    const page = Number(/^(\d+)\.png$/.exec(request.params.page)?.[1]);
    // A few fixed sizes (list thumbnails, previews), so that the image cache stays small.
    const zoom = Number((request.query as { zoom?: string }).zoom ?? 100);
    if (!template || !Number.isInteger(page) || page < 1 || !PAGE_IMAGE_ZOOMS.has(zoom)) return gone(reply);
    const source = { bytes: template.data, format: template.format as DocumentFormat, name: template.name };
    const [image] = await services.door
      .perform(null, { kind: 'pageImages', source, view: { zoom, fromPage: page, toPage: page, format: 'png' } })
      .catch(() => [undefined]);
    if (!image) return gone(reply);
    return reply.type('image/png').header('cache-control', 'private, max-age=300').send(image);
  });
}
