import { randomBytes } from 'node:crypto';
import Negotiator from 'negotiator';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import { asStorageUnavailable } from '../store/errors.js';
import { parseJsonBody, type JsonText } from '../util/json.js';
import { forgetDecoded, keepDecoded, type ParsedBody } from '../util/base64.js';
import { ClientGoneError, DocsmithError, InputError } from '../errors.js';
import { documentsJsonLength, documentsJsonBody } from '../operations/answer.js';
import type { Answer } from '../operations/work.js';
import type { PerformOptions } from '../operations/door/door.js';
import { whoMade } from './auth.js';
import { RETURN_EXTENSIONS, RETURN_MEDIA_TYPES, type ReturnFormat } from '../formats/returnFormat.js';
import type { ImageFormat } from '../render/encode.js';
import { IMAGE_MEDIA_TYPES } from '../ooxml/newPackage.js';
import type { DocumentWorkers } from '../workers/pool.js';

/**
 * The wire rules every endpoint shares (api.md, "Wire rules"): JSON bodies whatever the
 * Content-Type says, empty query values mean absent, compact JSON out, `{"message"}` errors
 * with a request id.
 */

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
// Request ids only need to be unique, not secret: a random prefix per process and a count (asking
// the system for random bytes per request cost 1.5% of a small merge's CPU).
const ID_PREFIX = randomBytes(4).toString('hex');
let requestCount = 0;

/** The app as routes see it: bodies and query strings typed from their route schemas. */
export type Api = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, JsonSchemaToTsProvider>;

export function requestIdFor(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : `${ID_PREFIX}${(++requestCount).toString(16).padStart(8, '0')}`;
}

/** Bodies from this size on are parsed in a worker thread: scanning and parsing them took about 6 ms a megabyte of the event loop. */
export const LARGE_BODY_BYTES = 2 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A top-level key of the JSON body whose array of objects is kept as text (util/json.ts JsonArrayText): a merge's records, parsed by the thread that merges them. */
    keepAsText?: string;
  }
}

export interface WireOptions {
  bodyLimitBytes: number;
  /** Parses a large body off the event loop, its documents decoded from Base64 too (workers/pool.ts parseJson); absent: here. */
  parseLarge?: (body: Buffer) => Promise<ParsedBody>;
}

/** The documents decoded with a request's body (util/base64.ts), forgotten when it is answered. */
const decodedFor = new WeakMap<IncomingMessage, string[]>();

export function registerWire(app: FastifyInstance, options: WireOptions): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.bodyLimitBytes }, (request, body, done) => {
    const bytes = body as Buffer;
    if (options.parseLarge && bytes.length >= LARGE_BODY_BYTES) {
      options.parseLarge(bytes).then(
        (parsed) => {
          // The decoded documents wait for the request's parser, and go with the request.
          const kept = keepDecoded(parsed);
          if (kept.length) decodedFor.set(request.raw, kept);
          done(null, parsed.value);
        },
        (error: Error) => done(error, undefined),
      );
      return;
    }
    try {
      done(null, parseJsonBody(bytes, request.routeOptions.config.keepAsText));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.addHook('onResponse', async (request) => {
    const kept = decodedFor.get(request.raw);
    if (kept) forgetDecoded(kept);
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Clients send any Content-Type, or none, with their JSON; the body is JSON whatever it says.
    const hasBody =
      request.headers['transfer-encoding'] !== undefined ||
      (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');
    if (hasBody) request.headers['content-type'] = 'application/json';
  });

  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object') {
      for (const [name, value] of Object.entries(query)) if (value === '') delete query[name];
    }
  });

  app.setNotFoundHandler((request, reply) => {
    sendJson(reply, 404, { message: `There is no endpoint ${request.method} ${request.url.split('?')[0]}.` });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // The client went away while sending: nobody to answer, and nothing wrong on this side.
    if (request.raw.readableAborted || (error.code === 'ECONNRESET' && error.message === 'aborted')) {
      request.log.info('the client closed the connection before its request arrived in full');
      reply.raw.destroy();
      return;
    }
    const { status, message, headers } = describeError(error, options.bodyLimitBytes);
    if (status === 503)
      request.log.warn({ status, message, detail: (error as { detail?: string }).detail ?? error.message }, 'request refused: unavailable');
    else if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status, message }, 'request refused');
    reply.headers(headers);
    sendJson(reply, status, {
      message: status >= 500 && status !== 503 && status !== 504 ? `${message} (request id ${request.id})` : message,
    });
  });
}

function describeError(error: FastifyError, bodyLimitBytes: number): { status: number; message: string; headers: Record<string, string> } {
  if (error instanceof DocsmithError) return { status: error.status, message: error.message, headers: error.headers };
  const storage = asStorageUnavailable(error);
  if (storage) return { status: storage.status, message: storage.message, headers: storage.headers };
  if (error.validation) return { status: 400, message: error.message, headers: {} };
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, message: `The request body is larger than the limit of ${formatBytes(bodyLimitBytes)}.`, headers: {} };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, message: error.message, headers: {} };
  return { status: 500, message: 'Internal error; the operator can find the details in the log', headers: {} };
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** Documents as the JSON the API answers (Base64 strings), streamed with their length known. */
export function sendDocuments(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.headers(answer.headers);
  reply.header('content-length', String(documentsJsonLength(answer.documents, answer.list)));
  return reply.code(200).type('application/json; charset=utf-8').send(documentsJsonBody(answer.documents, answer.list));
}

/** The files a document answer may be sent as instead of JSON (docsmith): their media type and extension, and how several become one ZIP. */
export interface AnswerFiles {
  type: string;
  extension: string;
  zip(documents: Buffer[], extension: string, signal?: AbortSignal): Promise<Buffer>;
}

type Zipper = Pick<DocumentWorkers, 'zipDocuments'>;
const answerFiles = (workers: Zipper, type: string, extension: string): AnswerFiles => ({
  type,
  extension,
  zip: (documents, ext, signal) => workers.zipDocuments(documents, ext, signal),
});

/** The files of a document in a return format. */
export const returnFiles = (workers: Zipper, format: ReturnFormat) =>
  answerFiles(workers, RETURN_MEDIA_TYPES[format], RETURN_EXTENSIONS[format]);

/** The files of page images. */
export const imageFiles = (workers: Zipper, format: ImageFormat) => answerFiles(workers, IMAGE_MEDIA_TYPES[format]!, format);

/**
 * How an answer is sent, by the Accept header: JSON (the default), a ZIP of its documents, the one
 * document itself, or none asked for. Files only for a header that names its types without a
 * wildcard: Java's default header (`text/html, image/gif, image/jpeg, *; q=.2, *\/*; q=.2`, sent
 * by the vendor's Java SDK) and browsers' name image and HTML types beside `*\/*`, and get JSON.
 */
export function answerForm(accept: string | undefined, fileType: string): 'json' | 'zip' | 'file' | null {
  if (!accept || accept.includes('*')) return 'json';
  const file = fileType.replace(/;.*/, '');
  const available = ['application/json', 'application/zip', file, 'application/octet-stream'];
  const best = new Negotiator({ headers: { accept } }).mediaType(available);
  if (best === undefined) return null;
  return best === 'application/json' ? 'json' : best === 'application/zip' ? 'zip' : 'file';
}

/**
 * Performs a document request and sends its answer; the document counts once the answer is sent
 * (a client that leaves first gets nothing and is not counted). With `files`, an Accept header may
 * ask for the documents as files: checked before any work, so a form that cannot be sent costs none.
 */
export function answerDocuments(
  reply: FastifyReply,
  perform: (options: PerformOptions<Answer>) => Promise<Answer>,
  files?: AnswerFiles,
): Promise<FastifyReply> {
  const who = reply.request.account ? whoMade(reply.request) : undefined;
  const form = files ? answerForm(reply.request.headers.accept, files.type) : 'json';
  if (form === null)
    throw new DocsmithError(
      406,
      `This answer can be sent as application/json, application/zip or ${files!.type.replace(/;.*/, '')}; the Accept header asks for none of them.`,
    );
  const deliver =
    form === 'json' || !files
      ? (answer: Answer) => delivered(reply, () => sendDocuments(reply, answer))
      : async (answer: Answer) => {
          if (form === 'file' && answer.documents.length !== 1)
            throw new DocsmithError(
              406,
              `The request made ${answer.documents.length} documents: ask for them as one ZIP (Accept: application/zip) or as JSON (Accept: application/json).`,
            );
          const zipped = form === 'zip' ? await files.zip(answer.documents, files.extension) : undefined;
          const name = zipped ? 'documents.zip' : `document.${files.extension}`;
          reply.headers(answer.headers);
          reply.header('content-disposition', `attachment; filename="${name}"`);
          await delivered(reply, () =>
            reply
              .code(200)
              .type(zipped ? 'application/zip' : files.type)
              .send(zipped ?? answer.documents[0]),
          );
        };
  return whenDelivered(reply, perform({ deliver, who }));
}

/** Awaits a request's work and the delivery of its answer; a client that left is logged, not answered. */
export async function whenDelivered(reply: FastifyReply, work: Promise<unknown>): Promise<FastifyReply> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof ClientGoneError)) throw error;
    reply.log.info('the client left before its answer was sent; the document is not counted');
  }
  return reply;
}

/**
 * Sends the answer (`send`) and resolves once all of it is handed to the network; rejects with
 * ClientGoneError when the client went away first.
 */
export function delivered(reply: FastifyReply, send: () => void): Promise<void> {
  const response = reply.raw;
  const gone = () => new ClientGoneError('The client closed the connection before the answer was sent.');
  if (response.destroyed) return Promise.reject(gone());
  const sent = new Promise<void>((resolve, reject) => {
    response.once('finish', resolve);
    response.once('close', () => {
      if (!response.writableFinished) reject(gone());
    });
  });
  send();
  return sent;
}

/**
 * Compact JSON with an explicit type, serialised by the route's response schema for the status
 * (what is not in the contract is not sent); bare strings are quoted (never sent raw).
 */
export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  reply.code(status).type('application/json; charset=utf-8');
  return reply.send(reply.serialize(value));
}

/** JSON written elsewhere (a worker thread), sent as it is. */
export function sendJsonText(reply: FastifyReply, status: number, value: JsonText<unknown>): FastifyReply {
  reply.code(status).type('application/json; charset=utf-8');
  return reply.send(value.json);
}

/** A success with no body (201 upload, 200 key revoke, 204 delete). */
export function sendEmpty(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).send();
}

export type Query = Record<string, string | undefined>;

export function queryOf(request: FastifyRequest): Query {
  return (request.query ?? {}) as Query;
}

export function requireQuery(request: FastifyRequest, name: string): string {
  const value = queryOf(request)[name];
  if (value === undefined) throw new InputError(`The query parameter "${name}" is required.`);
  return value;
}

const TRUE = new Set(['true', '1']);
const FALSE = new Set(['false', '0']);

/** `true|false|True|False|1|0`; absent gives the default. */
export function booleanQuery(request: FastifyRequest, name: string, fallback: boolean): boolean {
  return booleanParam(queryOf(request), name, fallback);
}

export function booleanParam(query: Query, name: string, fallback: boolean): boolean {
  const value = query[name];
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new InputError(`The query parameter "${name}" must be true or false, got "${value}".`);
}
