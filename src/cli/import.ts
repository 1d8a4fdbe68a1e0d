/**
 * `docsmith import reportingcloud`: an account's templates brought over from ReportingCloud
 * (templates/import.ts), into this installation's store (--user NAME, as the operator) or into a
 * docsmith server (--url with --user and --password).
 */
import { importTemplates, type ImportRow, type ImportTarget, type VendorTemplates } from '../templates/import.js';
import { OPERATOR } from '../accounts/audit.js';
import { DocsmithError } from '../errors.js';
import type { Services } from '../services.js';
import { UsageError } from './errors.js';
import { LocalBackend, loadClient, type ClientLike } from './backends.js';
import { backendFor } from './documents.js';

export const VENDOR_URL = 'https://api.reporting.cloud';

/** The most one answer of ReportingCloud may hold: a template as Base64 in JSON, with room. */
export const MAX_VENDOR_ANSWER_BYTES = 256 * 1024 * 1024;

/**
 * fetch for calls to ReportingCloud: only to its own origin (an address it answers with is not
 * followed: a redirect is an error), and no answer larger than `maxBytes` is read whole.
 */
export function vendorFetch(vendorUrl: string, maxBytes = MAX_VENDOR_ANSWER_BYTES): typeof fetch {
  const origin = new URL(vendorUrl).origin;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) throw new DocsmithError(502, `docsmith calls ReportingCloud at ${origin} only, not ${url.origin}`);
    const answer = await fetch(input, { ...init, redirect: 'manual' });
    if (answer.status >= 300 && answer.status < 400) {
      await answer.body?.cancel();
      throw new DocsmithError(
        502,
        `ReportingCloud at ${origin} answered with a redirect (${answer.status} to ${answer.headers.get('location') ?? 'nowhere'}); docsmith follows none`,
      );
    }
    const declared = Number(answer.headers.get('content-length') ?? 0);
    const tooLarge = () =>
      new DocsmithError(502, `ReportingCloud at ${origin} sent an answer larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    if (declared > maxBytes) {
      await answer.body?.cancel();
      throw tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = answer.body?.getReader();
    for (;;) {
      const piece = await reader?.read();
      if (!piece || piece.done) break;
      total += piece.value.byteLength;
      if (total > maxBytes) {
        await reader!.cancel();
        throw tooLarge();
      }
      chunks.push(piece.value);
    }
    return new Response(answer.body ? Buffer.concat(chunks) : null, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  };
}

/** The ReportingCloud key: from the environment or standard input; on the command line only with a warning (others on the machine see it). */
export async function vendorApiKey(
  options: ImportOptions,
  env = process.env,
  stdin: AsyncIterable<Buffer | string> = process.stdin,
): Promise<string> {
  if (options['api-key-stdin']) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8').trim();
  }
  if (env.REPORTINGCLOUD_API_KEY) return env.REPORTINGCLOUD_API_KEY;
  if (options['api-key']) {
    process.stderr.write(
      'docsmith: --api-key is visible to other users of this machine; prefer REPORTINGCLOUD_API_KEY or --api-key-stdin\n',
    );
    return options['api-key'];
  }
  return '';
}

export interface ImportOptions {
  'api-key'?: string;
  'api-key-stdin'?: boolean;
  'vendor-url'?: string;
  user?: string;
  password?: string;
  url?: string;
  replace?: boolean;
}

/** A failed call's reason, with the network's code when the call never reached the server. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ? `${(error as Error).message} (${cause.code})` : (error as Error).message;
}

const counts = (info: { mergeFields: unknown[]; mergeBlocks: unknown[] }) => ({
  fields: info.mergeFields.length,
  blocks: info.mergeBlocks.length,
});

/** Into this installation's store, as the operator: checked as uploads are (the office reads DOC and RTF), audited. */
async function localTarget(services: Services, username: string): Promise<{ target: ImportTarget; close(): Promise<void> }> {
  const account = await services.accounts.require(username);
  const documents = (await backendFor({})) as LocalBackend;
  const target: ImportTarget = {
    exists: (name) => services.templates.exists(account, name),
    async store(name, bytes) {
      const result = await services.templates.upload(account, name, bytes, (normal) => documents.validateTemplate(bytes, normal));
      await services.audit.record(
        account.id,
        result === 'created' ? 'template uploaded' : 'template replaced',
        OPERATOR,
        `${name} (imported from ReportingCloud)`,
      );
    },
    info: async (name, bytes) => counts(await documents.info(bytes, name)),
  };
  return { target, close: () => documents.close() };
}

/** Into a docsmith server, over its API (its templates listed once). */
function remoteTarget(client: ClientLike): ImportTarget {
  let names: Promise<Set<string>> | undefined;
  return {
    async exists(name) {
      names ??= client.listTemplates().then((list) => new Set(list.map((t) => t.templateName.toLowerCase())));
      return (await names).has(name.toLowerCase());
    },
    store: (name, bytes) => client.uploadTemplate(name, bytes),
    info: async (name) => counts(await client.templateInfo(name)),
  };
}

export async function runImport(options: ImportOptions, services: Services | undefined, print: (rows: ImportRow[]) => void): Promise<void> {
  const apiKey = await vendorApiKey(options);
  if (!apiKey)
    throw new UsageError(
      'the ReportingCloud API key whose templates come over is required: REPORTINGCLOUD_API_KEY, or --api-key-stdin to read it from standard input',
    );
  const vendorUrl = options['vendor-url'] ?? VENDOR_URL;
  const client = (await loadClient(vendorUrl, { apiKey }, vendorFetch(vendorUrl))) as ClientLike & VendorTemplates;
  const vendor: VendorTemplates = {
    listTemplates: () =>
      client.listTemplates().catch((error: unknown) => {
        throw new DocsmithError(502, `ReportingCloud at ${vendorUrl} did not list the templates: ${reasonOf(error)}`);
      }),
    downloadTemplate: (name) => client.downloadTemplate(name),
    convert: (document, format) => client.convert(document, format),
  };
  let opened: { target: ImportTarget; close(): Promise<void> };
  if (options.url) {
    if (!options.user || !options.password)
      throw new UsageError('--url needs --user and --password (the docsmith account the templates go to)');
    opened = {
      target: remoteTarget(await loadClient(options.url, { username: options.user, password: options.password })),
      close: async () => {},
    };
  } else {
    if (!services) throw new Error('the store is not open');
    if (!options.user) throw new UsageError('--user (the account the templates go to) is required');
    opened = await localTarget(services, options.user);
  }
  try {
    const rows = await importTemplates(vendor, opened.target, { replace: Boolean(options.replace) });
    print(rows);
    const failed = rows.filter((r) => r.result === 'failed').length;
    if (failed) throw new DocsmithError(400, `${failed} of ${rows.length} templates did not come over (see "problem")`);
  } finally {
    await opened.close();
  }
}
