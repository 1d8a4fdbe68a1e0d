import type { FastifyReply } from 'fastify';
import type { Services } from '../../services.js';
import type { JobCursor, JobRecord } from '../../store/types.js';
import type { JobRequest } from '../../operations/kinds/index.js';
import type { Account } from '../../store/types.js';
import { DocsmithError, InputError } from '../../errors.js';
import { RETURN_EXTENSIONS, RETURN_FORMATS, RETURN_MEDIA_TYPES } from '../../formats/returnFormat.js';
import { accountOf } from '../auth.js';
import { errorResponses, errorSchema, jobSchema } from '../schemas.js';
import { answerForm, booleanParam, sendEmpty, sendJson, type Query, type Api } from '../wire.js';

/** A job as its owner sees it. */
export function jobView(job: JobRecord) {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    expiresAt: job.expiresAt?.toISOString() ?? null,
    attempts: job.attempts,
    progress: job.progress,
    summary: job.summary,
    resultBytes: job.resultBytes,
    error: job.error,
    callback: job.callback,
    links: { self: `/v1/jobs/${job.id}`, result: `/v1/jobs/${job.id}/result` },
  };
}

/** `async=true` on merge, append or convert: the request becomes a job; 202 with the job and its address. */
export async function answerAsJob(
  services: Services,
  reply: FastifyReply,
  account: Account,
  request: JobRequest,
  query: Query,
): Promise<FastifyReply> {
  const job = await services.jobs.submit(account, request, query.callbackUrl, idempotencyKey(reply.request.headers['idempotency-key']));
  reply.header('location', `/v1/jobs/${job.id}`);
  return sendJson(reply, 202, jobView(job));
}

/**
 * The `Idempotency-Key` header of an async submission: a client that retries after a lost answer
 * sends the same key and gets the job it made, not a second one.
 */
function idempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (!/^[\x21-\x7e]{1,200}$/.test(key))
    throw new InputError('The Idempotency-Key header must be 1 to 200 visible ASCII characters (a UUID, say).');
  return key;
}

const MAX_PAGE = 500;

/** A page's end as an opaque cursor: the last job's creation time and id. */
function cursorOf(job: JobRecord): string {
  return Buffer.from(`${job.createdAt.getTime()}.${job.id}`).toString('base64url');
}

function cursorFrom(text: string): JobCursor {
  const match = /^(\d{1,15})\.([\w-]{1,64})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match)
    throw new InputError(
      'The query parameter "after" is not a cursor this server gave out; take it from the X-Next-Cursor header of the page before.',
    );
  return { createdAt: new Date(Number(match[1])), id: match[2]! };
}

const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] } as const;
const notFound = { 404: { ...errorSchema, description: 'No such job (or it was removed after its retention time)' } };

export function jobRoutes(app: Api, services: Services): void {
  const { store, config } = services;
  const job = async (accountId: number, id: string) => {
    const found = await store.jobs.get(accountId, id);
    if (!found)
      throw new DocsmithError(
        404,
        `There is no job "${id}"; finished jobs are removed ${Math.round(config.jobs.retentionMs / 3_600_000)} hours after they end.`,
      );
    return found;
  };

  app.get(
    '/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary: "The account's background jobs, newest first (docsmith extension)",
        description:
          'A page of at most `limit` jobs. When there are more, the answer has a `Link: <...>; rel="next"` header (and `X-Next-Cursor`): ' +
          "the address of the next page, which continues after this page's last job however many jobs were added meanwhile.",
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: `Jobs per page, 1-${MAX_PAGE} (default 100)` },
            after: { type: 'string', maxLength: 200, description: 'The cursor of the page before (from X-Next-Cursor)' },
          },
        },
        response: { 200: { type: 'array', items: jobSchema }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = request.query as { limit?: string; after?: string };
      const limit = Number(query.limit ?? 100);
      if (limit < 1 || limit > MAX_PAGE)
        throw new InputError(`The query parameter "limit" must be between 1 and ${MAX_PAGE}, got ${query.limit}.`);
      const page = await store.jobs.list(accountOf(request).id, limit + 1, query.after === undefined ? undefined : cursorFrom(query.after));
      if (page.length > limit) {
        page.length = limit;
        const next = cursorOf(page[page.length - 1]!);
        reply.header('x-next-cursor', next).header('link', `</v1/jobs?limit=${limit}&after=${next}>; rel="next"`);
      }
      return sendJson(reply, 200, page.map(jobView));
    },
  );

  app.get(
    '/jobs/callbacksecret',
    {
      schema: {
        tags: ['jobs'],
        summary: 'The secret job callbacks are signed with (docsmith extension)',
        description: 'Each callback carries X-Docsmith-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with this secret>.',
        response: { 200: { type: 'string' }, ...errorResponses },
      },
    },
    async (request, reply) => sendJson(reply, 200, services.callbacks.secretFor(accountOf(request).id)),
  );

  app.get(
    '/jobs/:id',
    {
      schema: {
        tags: ['jobs'],
        summary: 'A background job: its state and progress (docsmith extension)',
        params: idParams,
        response: { 200: jobSchema, ...errorResponses, ...notFound },
      },
    },
    async (request, reply) => sendJson(reply, 200, jobView(await job(accountOf(request).id, (request.params as { id: string }).id))),
  );

  app.get(
    '/jobs/:id/result',
    {
      schema: {
        tags: ['jobs'],
        summary: 'The result of a finished job: what the request would have answered (docsmith extension)',
        params: idParams,
        response: {
          200: {
            description:
              "merge: an array of Base64 documents; append and convert: one Base64 document (JSON, the default). With Accept: application/zip, the documents in a ZIP; with the document's own type (application/pdf, ...) or application/octet-stream, the one document itself (docsmith)",
          },
          406: {
            ...errorSchema,
            description: 'The Accept header asks for a form the result has not: several documents as one file, or another type',
          },
          409: { ...errorSchema, description: 'The job has not finished, or failed' },
          ...errorResponses,
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const account = accountOf(request);
      const result = await store.jobs.result(account.id, id);
      if (result) {
        // JSON unless the client asks for the files: the vendor's wire stays the default.
        if (!request.headers.accept) return reply.code(200).type('application/json; charset=utf-8').send(result);
        const found = await job(account.id, id);
        const format = RETURN_FORMATS.find((f) => f === found.summary?.format.toLowerCase());
        const fileType = format ? RETURN_MEDIA_TYPES[format] : 'application/octet-stream';
        const form = answerForm(request.headers.accept, fileType);
        if (form === 'json') return reply.code(200).type('application/json; charset=utf-8').send(result);
        if (form === null)
          throw new DocsmithError(
            406,
            `The job's result can be sent as application/json, application/zip or ${fileType.replace(/;.*/, '')}; the Accept header asks for none of them.`,
          );
        const extension = format ? RETURN_EXTENSIONS[format] : 'bin';
        const files = await services.workers.jobResultFiles(
          result,
          form === 'zip' ? extension : null,
          AbortSignal.timeout(config.processingLimitMs),
        );
        if (form === 'zip')
          return reply
            .code(200)
            .type('application/zip')
            .header('content-disposition', `attachment; filename="job-${id}.zip"`)
            .send(files[0]);
        if (files.length !== 1)
          throw new DocsmithError(
            406,
            `The job made ${files.length} documents: ask for them as one ZIP (Accept: application/zip) or as JSON (Accept: application/json).`,
          );
        return reply.code(200).type(fileType).header('content-disposition', `attachment; filename="job-${id}.${extension}"`).send(files[0]);
      }
      const found = await job(account.id, id);
      if (found.state === 'failed')
        throw new DocsmithError(
          409,
          `The job failed, so it has no result: ${found.error?.message ?? 'no reason recorded'} (status ${found.error?.status ?? 500}).`,
        );
      throw new DocsmithError(409, `The job is ${found.state}; its result is ready when its state is "done" (GET /v1/jobs/${id}).`, {
        'retry-after': '1',
      });
    },
  );

  app.delete(
    '/jobs/:id',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Cancels a job that has not finished, or removes a finished one with its result (docsmith extension)',
        params: idParams,
        response: { 204: { type: 'null' }, ...errorResponses, ...notFound },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      if (!(await store.jobs.delete(accountOf(request).id, id))) await job(accountOf(request).id, id);
      return sendEmpty(reply, 204);
    },
  );
}

/** `async` and `callbackUrl` read together: a callback without async is a mistake worth saying. */
export function wantsJob(query: Query): boolean {
  const asyncFlag = booleanParam(query, 'async', false);
  if (!asyncFlag && query.callbackUrl !== undefined)
    throw new InputError('callbackUrl is only used with async=true; add async=true or drop callbackUrl.');
  return asyncFlag;
}
