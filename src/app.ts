import Fastify, { type FastifyInstance } from 'fastify';
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { documented, withComponents } from './api/openapi.js';
import type { Services } from './services.js';
import { registerWire, requestIdFor } from './api/wire.js';
import { requireAuthentication } from './api/auth.js';
import { accountRoutes } from './api/routes/account.js';
import { templateRoutes } from './api/routes/templates.js';
import { healthRoutes } from './api/routes/health.js';
import { testingGateRoutes, testingRoutes } from './api/routes/testing.js';
import { documentRoutes } from './api/routes/document.js';
import { fontRoutes } from './api/routes/fonts.js';
import { mergeRoutes } from './api/routes/merge.js';
import { appendRoutes } from './api/routes/append.js';
import { thumbnailRoutes } from './api/routes/thumbnails.js';
import { reviewRoutes } from './api/routes/review.js';
import { proofingRoutes } from './api/routes/proofing.js';
import { sharePreviewRoutes, shareTokenRoute } from './api/routes/share.js';
import { portalRoutes } from './api/routes/portal.js';
import { jobRoutes } from './api/routes/jobs.js';
import { operatorRoutes } from './api/routes/operator.js';
import { renderReference, type OpenApiLike } from './api/reference.js';
import { AJV_OPTIONS, describeSchemaFailure, type SchemaFailure } from './api/requests/validation.js';
import { Metrics } from './metrics.js';
import { ForbiddenError } from './errors.js';
import { sendJson } from './api/wire.js';

export { VERSION } from './version.js';
import { VERSION } from './version.js';

/** The trace and parent span of a valid W3C `traceparent` header, for the request's logs. */
export function traceOf(header: string | string[] | undefined): { traceId: string; parentSpanId: string } | undefined {
  const match = typeof header === 'string' ? /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(header.trim()) : null;
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return { traceId: match[1]!, parentSpanId: match[2]! };
}

/** A request URL as logged: share tokens (credentials) replaced. */
export function logSafeUrl(url: string): string {
  return url.replace(/^\/share\/[^/?#]+/, '/share/[token]');
}

/** The HTTP service: wire rules, open operational routes, and the authenticated /v1 API. */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization'],
      // A share token in a path is a credential: never written to the log.
      serializers: {
        req: (request: { method: string; url: string; ip?: string }) => ({
          method: request.method,
          url: logSafeUrl(request.url),
          remoteAddress: request.ip,
        }),
      },
    },
    bodyLimit: config.bodyLimitBytes,
    genReqId: requestIdFor,
    // A W3C trace context (traceparent) joins every log line of its request, Fastify's own
    // "incoming request" and "request completed" too.
    childLoggerFactory: (logger, bindings, options, raw) => logger.child({ ...bindings, ...traceOf(raw.headers.traceparent) }, options),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // A client that sends its request slowly (a byte now and then) is cut off with 408 once the
    // whole request has taken this long; Node checks open connections every second for it.
    requestTimeout: config.requestTimeoutMs,
    // Proofing texts travel in the query string; allow long ones.
    http: { maxHeaderSize: 1024 * 1024, headersTimeout: Math.min(60_000, config.requestTimeoutMs), connectionsCheckingInterval: 1000 },
    // The same options checkBody uses for bodies that come another way (the CLI's files).
    ajv: { customOptions: { ...AJV_OPTIONS } },
    schemaErrorFormatter: (errors, dataVar) => new Error(describeSchemaFailure(errors[0] as SchemaFailure | undefined, dataVar)),
  });

  registerWire(app, { bodyLimitBytes: config.bodyLimitBytes, parseLarge: (body) => services.workers.parseJson(body) });

  // Requests in flight, for a stop that lets them finish (src/lifecycle.ts); a valid trace
  // context is echoed.
  app.addHook('onRequest', async (request, reply) => {
    services.lifecycle.started();
    reply.raw.once('close', () => services.lifecycle.finished());
    if (traceOf(request.headers.traceparent)) reply.header('traceparent', request.headers.traceparent as string);
  });
  const metrics = new Metrics({ office: services.office, workers: services.workers, jobs: services.jobRunner, store: services.store });
  app.addHook('onResponse', async (request, reply) => {
    metrics.answered(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.addHook('onError', async (_request, _reply, error) => {
    if (error instanceof ForbiddenError) metrics.refused(error.refusal);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'docsmith',
        version: VERSION,
        description: 'Self-hosted document generation: merge JSON into Word templates. Wire-compatible with the ReportingCloud API.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'ReportingCloud-APIKey <key>' },
          basic: { type: 'http', scheme: 'basic' },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'DOCSMITH_OPERATOR_TOKEN: the operator API only' },
        },
      },
      security: [{ apiKey: [] }, { basic: [] }],
      // This server, wherever it is reached: the description is served by the server it describes.
      servers: [{ url: '/', description: 'this docsmith server' }],
    },
    // What generated clients and readers need, on top of the validating schemas (api/openapi.ts).
    transform: ({ schema, url, route }) => {
      if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
      const method = (Array.isArray(route.method) ? route.method : [route.method])[0]!;
      return { schema: documented(schema as Parameters<typeof documented>[0], method, url) as typeof schema, url };
    },
    // Named shapes as components.schemas, by $ref.
    transformObject: (document) => withComponents('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });

  // The interactive reference (Swagger UI, served from the package: nothing from a CDN).
  // With the portal's framing and content rules: its own origin only, never inside another site's frame.
  await app.register(swaggerUi, {
    routePrefix: '/docs/try',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true, validatorUrl: null },
    staticCSP: true,
    transformStaticCSP: (header) =>
      `${header.replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(/ upgrade-insecure-requests;| validator\.swagger\.io| https:/g, '')} connect-src 'self'; form-action 'self'`,
  });

  // Routes get bodies and query strings typed from their schemas: the schema is the one source.
  const api = app.withTypeProvider<JsonSchemaToTsProvider>();
  healthRoutes(api, services);
  app.get('/metrics', { logLevel: 'warn', schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.contentType).send(await metrics.text()),
  );
  // Anyone may ask: the runtime's version (a hint for attackers) is for /metrics, on the internal network.
  app.get(
    '/version',
    { logLevel: 'warn', schema: { tags: ['operations'], summary: 'The version of docsmith and its kind of storage' } },
    async (_request, reply) => sendJson(reply, 200, { version: VERSION, storage: services.store.kind }),
  );
  sharePreviewRoutes(api, services);
  if (config.testRoutes) testingGateRoutes(api);
  await portalRoutes(api);

  await app.register(
    async (plain) => {
      requireAuthentication(plain, services.authenticator);
      const v1 = plain.withTypeProvider<JsonSchemaToTsProvider>();
      accountRoutes(v1, services);
      templateRoutes(v1, services);
      documentRoutes(v1, services);
      fontRoutes(v1, services);
      mergeRoutes(v1, services);
      appendRoutes(v1, services);
      thumbnailRoutes(v1, services);
      reviewRoutes(v1, services);
      proofingRoutes(v1, services);
      shareTokenRoute(v1, services);
      jobRoutes(v1, services);
      if (config.testRoutes) testingRoutes(v1, services);
    },
    { prefix: '/v1' },
  );

  await app.register(async (operator) => operatorRoutes(operator.withTypeProvider<JsonSchemaToTsProvider>(), services), {
    prefix: '/v1/operator',
  });

  let reference: string | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
    reference ??= renderReference(app.swagger() as unknown as OpenApiLike);
    return reply.type('text/html; charset=utf-8').send(reference);
  });

  return app;
}
