import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { sendJson, type Api } from '../wire.js';

/** The built portal (`npm run build:portal`); the same path from src/ and from dist/. */
export const PORTAL_DIR = fileURLToPath(new URL('../../../dist/portal/', import.meta.url));

// The portal only talks to its own origin; styles may be inline (the editor injects its own).
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
}

/** The web portal: hashed assets cached for good, every other /portal path is the app's page. */
export async function portalRoutes(app: Api, root = PORTAL_DIR): Promise<void> {
  if (!existsSync(`${root}/index.html`)) {
    const missing = async (_request: unknown, reply: FastifyReply) =>
      sendJson(reply, 503, { message: 'The portal is not built on this server; run "npm run build:portal" (npm start does it).' });
    app.get('/portal', { schema: { hide: true } }, missing);
    app.get('/portal/*', { schema: { hide: true } }, missing);
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/portal/',
    index: false,
    wildcard: false,
    schemaHide: true,
    setHeaders: (response, path) => {
      response.setHeader('content-security-policy', CSP);
      response.setHeader('x-content-type-options', 'nosniff');
      response.setHeader('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  // Any app route gets the page; a missing asset (an old build's file name) is a plain 404.
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/portal/assets/')) return sendJson(reply, 404, { message: 'No such portal file; reload the portal.' });
    return secure(reply).header('cache-control', 'no-cache').sendFile('index.html', root);
  };
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/portal/', 302));
  app.get('/portal', { schema: { hide: true } }, page);
  app.get('/portal/*', { schema: { hide: true } }, page);
}
