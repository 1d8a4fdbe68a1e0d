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

export interface ImportOptions {
  'api-key'?: string;
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
  if (!options['api-key']) throw new UsageError('--api-key (the ReportingCloud API key whose templates come over) is required');
  const vendorUrl = options['vendor-url'] ?? VENDOR_URL;
  const client = (await loadClient(vendorUrl, { apiKey: options['api-key'] })) as ClientLike & VendorTemplates;
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
