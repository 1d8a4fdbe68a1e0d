import http from 'node:http';
import net from 'node:net';
import { noteSentDocuments, repliedDocumentProblems } from './word-rules.js';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body as it came (a document sent as a file). */
  bytes: Buffer;
  json(): unknown;
}

export type Auth = { basic: [string, string] } | { key: string; scheme?: string } | { header: string } | null;

export function authHeader(auth: Auth): Record<string, string> {
  if (!auth) return {};
  if ('header' in auth) return { authorization: auth.header };
  if ('basic' in auth) return { authorization: `Basic ${Buffer.from(auth.basic.join(':')).toString('base64')}` };
  return { authorization: `${auth.scheme ?? 'ReportingCloud-APIKey'} ${auth.key}` };
}

/**
 * One request over node:http, so tests control the exact bytes: bodies on GET, missing
 * Content-Type, chunked encoding.
 */
export function request(
  base: string,
  method: string,
  path: string,
  options: { auth?: Auth; body?: string | Buffer; json?: unknown; headers?: Record<string, string>; chunked?: boolean } = {},
): Promise<Reply> {
  const url = new URL(path, base);
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
  const headers: Record<string, string> = { ...authHeader(options.auth ?? null), ...options.headers };
  if (body !== undefined && options.json !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  if (body !== undefined && !options.chunked) headers['content-length'] = String(Buffer.byteLength(body));
  if (options.chunked) headers['transfer-encoding'] = 'chunked';
  if (options.json !== undefined) noteSentDocuments(options.json);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        // The second oracle: every DOCX a test gets back keeps the rules Word applies (test/helpers/word-rules.ts).
        if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('application/json') && text.includes('"UEsDB')) {
          const problems = repliedDocumentProblems(JSON.parse(text));
          if (problems.length) {
            reject(new Error(`${method} ${path} answered a DOCX that breaks rules Word applies:\n  ${problems.slice(0, 10).join('\n  ')}`));
            return;
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The `message` of a JSON error reply. */
export function errorMessage(reply: { json(): unknown }): string {
  return (reply.json() as { message: string }).message;
}

/** A client bound to one server and one set of credentials. */
export function client(base: string, auth: Auth) {
  return {
    get: (path: string, extra: Parameters<typeof request>[3] = {}) => request(base, 'GET', path, { auth, ...extra }),
    post: (path: string, extra: Parameters<typeof request>[3] = {}) => request(base, 'POST', path, { auth, ...extra }),
    put: (path: string, extra: Parameters<typeof request>[3] = {}) => request(base, 'PUT', path, { auth, ...extra }),
    patch: (path: string, extra: Parameters<typeof request>[3] = {}) => request(base, 'PATCH', path, { auth, ...extra }),
    delete: (path: string, extra: Parameters<typeof request>[3] = {}) => request(base, 'DELETE', path, { auth, ...extra }),
    upload: (name: string, data: Buffer) =>
      request(base, 'POST', `/v1/templates/upload?templateName=${encodeURIComponent(name)}`, { auth, json: data.toString('base64') }),
  };
}

export type Client = ReturnType<typeof client>;

/**
 * Sends the head and only the first part of a body over a raw socket, then waits for the answer.
 * For limits the server must enforce before the client has finished sending (413), where a
 * full write would race the server's early answer.
 */
export function partialRequest(base: string, head: string, bodyPart: Buffer): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(head.replace(/\n/g, '\r\n') + '\r\n');
      socket.write(bodyPart, () => undefined);
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(received.slice(0, end))?.[1] ?? 0);
      if (received.length >= end + 4 + length) {
        socket.destroy();
        resolve({ status: Number(received.slice(9, 12)), text: received.slice(end + 4, end + 4 + length) });
      }
    });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error(`no answer; received so far: ${received.slice(0, 200)}`));
    });
  });
}
