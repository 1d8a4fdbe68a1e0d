import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';
import { parseArgs } from 'node:util';
import { VERSION } from '../version.js';
import { sqliteFile } from '../store/index.js';
import { BackupError } from '../store/errors.js';
import { ConfigError, loadConfig } from '../config.js';
import { openServices, type Services } from '../services.js';
import { DocsmithError, InputError } from '../errors.js';
import type { Account } from '../store/types.js';
import { formatWireDate, parseWireDate } from '../util/dates.js';
import { keyScope, type AccountInput } from '../accounts/accounts.js';
import { OPERATOR } from '../accounts/audit.js';
import { isSignatureMode, SIGNATURE_MODES } from '../documents/signing.js';
import type { DocumentFormat } from '../formats/detect.js';
import type { TemplateDiff } from '../templates/diff.js';

const USAGE = `docsmith: operate a docsmith service's accounts (same database as the server; set
DOCSMITH_DATA_DIR or DOCSMITH_DATABASE_URL as for the server).

  docsmith account create --user NAME --password PW [--licence FREE|TRIAL|SERIAL]
                          [--max-documents N] [--max-templates N] [--max-proofing N]
                          [--valid-until YYYY-MM-DD|never]
  docsmith account list [--json]
  docsmith account update --user NAME [--password PW] [--licence ...] [--max-documents N]
                          [--max-templates N] [--max-proofing N] [--valid-until ...]
                          [--reset-usage] [--signing grant|revoke]
                          [--pdf-signature none|invisible|visible]   (the default; needs the grant)
  docsmith account delete --user NAME
  docsmith apikey create --user NAME [--name LABEL] [--scope full|merge|read]
  docsmith apikey list --user NAME [--json]      keys by their ends, with names and dates
  docsmith apikey rename --user NAME --id N --name LABEL
  docsmith apikey revoke --user NAME (--key KEY | --id N)
  docsmith signing import --p12 FILE (--password PW | --password-stdin) [--user NAME]
      the certificate PDFs are signed with: the server's, or with --user that account's own
      (accounts sign only once granted: account update --signing grant)
  docsmith signing show [--user NAME]
  docsmith signing remove [--user NAME]
  docsmith audit --user NAME [--json]      the account's audit log, newest first
  docsmith template versions --user NAME --template T [--json]   a stored template's versions
  docsmith template diff --user NAME --template T --from N [--to M]  fields added and removed
  docsmith template rollback --user NAME --template T --to N      version N current again
  docsmith import reportingcloud --user NAME [--replace] [--vendor-url URL] [--json]
      with the ReportingCloud API key in REPORTINGCLOUD_API_KEY (or --api-key-stdin)
      the templates of a ReportingCloud account stored here (TX read here, else converted to DOCX
      by ReportingCloud); with --url URL and --user/--password, into a docsmith server instead
  docsmith backup --out FILE      a consistent copy of the SQLite database, taken while it runs
  docsmith --version

  --password-stdin reads the password from standard input instead of --password.

Documents (in this process by default; against a server with --url and --api-key or --user/--password):
  docsmith merge --template t.docx --data d.json [--format pdf] [-o out.pdf] [--separate] [--settings s.json]
                 [--einvoice factur-x [--einvoice-xml invoice.xml]]   PDF/A-3 e-invoices (docs/einvoice.md)
                 [--syntax word|docxtemplater|carbone]   how the template marks its data (docs/authoring.md)
  docsmith convert --input in.docx [--format pdf] [-o out.pdf]
  docsmith convert --input folder/ --format pdf --out-dir out/
  docsmith append a.docx b.rtf c.doc [--divider None|NewParagraph|NewSection] [--format pdf] [-o out.pdf]
  docsmith thumbnails --input in.pdf [--zoom 100] [--from 1] [--to 0] [--image-format png] [--out-dir dir]
  docsmith info --template t.docx [--syntax word|docxtemplater|carbone]

  With --url, --async runs merge, convert and append as background jobs on the server (no request
  time limit; the job's progress is printed to standard error).
`;

import { runDocumentCommand } from './documents.js';
import { runImport } from './import.js';

const DOCUMENT_COMMANDS = ['merge', 'convert', 'append', 'thumbnails', 'info'];

/**
 * The usage lines of one command ("merge", "account", "account create"): each entry of USAGE that
 * starts with "docsmith <command>", with its continuation lines.
 */
export function usageOf(command: string): string {
  const blocks: string[][] = [];
  for (const line of USAGE.split('\n')) {
    if (line.startsWith('  docsmith ')) blocks.push([line]);
    else if (line.startsWith('      ') && blocks.length) blocks.at(-1)!.push(line);
    else blocks.push([]);
  }
  const mine = blocks.filter((b) => b[0]?.startsWith(`  docsmith ${command} `) || b[0] === `  docsmith ${command}`);
  if (!mine.length) return USAGE;
  const remote = DOCUMENT_COMMANDS.includes(command)
    ? '\n  In this process by default; on a server with --url URL and --api-key KEY (or --user and --password),\n  as a background job with --async (merge, convert, append).\n'
    : '';
  return `${mine.map((b) => b.join('\n')).join('\n')}\n${remote}`;
}

/** AccountAdmin's messages start with the field they are about: in the CLI, the option that set it (a usage error). */
const OPTION_OF: [string, string][] = [
  ['password ', '--password '],
  ['user name ', '--user '],
  ['licence ', '--licence '],
  ['maxDocuments ', '--max-documents '],
  ['maxTemplates ', '--max-templates '],
  ['maxProofingTransactions ', '--max-proofing '],
  ["An API key's name ", '--name '],
  ["An API key's scope ", '--scope '],
];

function asUsage(error: unknown): unknown {
  if (!(error instanceof InputError)) return error;
  const field = OPTION_OF.find(([name]) => error.message.startsWith(name));
  return field ? new UsageError(field[1] + error.message.slice(field[0].length)) : error;
}

/** "fetch failed" says nothing: which server could not be reached, and why. */
function describeFailure(failure: unknown, url: string | undefined): string {
  // The client names the URL it could not reach; the CLI says why in words, from what fetch said.
  const error = failure instanceof Error && failure.name === 'DocsmithConnectionError' ? failure.cause : failure;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof TypeError && error.message === 'fetch failed' && url) {
    const reasons: Record<string, string> = {
      ECONNREFUSED: 'nothing listens there (connection refused)',
      ENOTFOUND: 'the host name is not known',
      EAI_AGAIN: 'the host name could not be looked up',
      ECONNRESET: 'the connection was reset',
      ETIMEDOUT: 'the connection timed out',
      UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
      CERT_HAS_EXPIRED: 'its TLS certificate has expired',
      DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed and not trusted',
    };
    const reason = (cause?.code && reasons[cause.code]) ?? cause?.message ?? 'the request did not reach it';
    return `cannot reach the server at ${url}: ${reason}`;
  }
  return (error as Error).message;
}

const OPTIONS = {
  user: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  licence: { type: 'string' },
  license: { type: 'string' },
  'max-documents': { type: 'string' },
  'max-templates': { type: 'string' },
  'max-proofing': { type: 'string' },
  'valid-until': { type: 'string' },
  'reset-usage': { type: 'boolean' },
  key: { type: 'string' },
  id: { type: 'string' },
  name: { type: 'string' },
  scope: { type: 'string' },
  p12: { type: 'string' },
  'pdf-signature': { type: 'string' },
  signing: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  template: { type: 'string' },
  data: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string', short: 'o' },
  'out-dir': { type: 'string' },
  input: { type: 'string' },
  settings: { type: 'string' },
  separate: { type: 'boolean' },
  divider: { type: 'string' },
  zoom: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'image-format': { type: 'string' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-stdin': { type: 'boolean' },
  async: { type: 'boolean' },
  einvoice: { type: 'string' },
  'vendor-url': { type: 'string' },
  replace: { type: 'boolean' },
  'einvoice-xml': { type: 'string' },
  syntax: { type: 'string' },
  out: { type: 'string' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function count(values: Values, name: 'max-documents' | 'max-templates' | 'max-proofing'): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return value;
}

function validUntil(values: Values): Date | null | undefined {
  const raw = values['valid-until'];
  if (raw === undefined) return undefined;
  if (raw.toLowerCase() === 'never') return null;
  const date = parseWireDate(raw);
  if (!date) throw new UsageError(`--valid-until must be a date like 2027-12-31 or "never", got "${raw}"`);
  return date;
}

async function password(values: Values): Promise<string | undefined> {
  if (values['password-stdin']) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  return values.password;
}

function requireUser(values: Values): string {
  if (!values.user) throw new UsageError('--user is required');
  return values.user;
}

async function accountInput(values: Values): Promise<AccountInput> {
  return {
    password: await password(values),
    licence: values.licence ?? values.license,
    maxDocuments: count(values, 'max-documents'),
    maxTemplates: count(values, 'max-templates'),
    maxProofingTransactions: count(values, 'max-proofing'),
    validUntil: validUntil(values),
  };
}

function describe(account: Account): Record<string, unknown> {
  return {
    user: account.username,
    licence: account.licence,
    createdDocuments: account.createdDocuments,
    maxDocuments: account.maxDocuments,
    maxTemplates: account.maxTemplates,
    maxProofingTransactions: account.maxProofingTransactions,
    validUntil: account.validUntil ? formatWireDate(account.validUntil) : 'never',
    signing: account.signingGrant ? 'granted' : 'none',
    pdfSignature: account.pdfSignature,
  };
}

function print(rows: Record<string, unknown>[], json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(rows) + '\n');
    return;
  }
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd() + '\n';
  process.stdout.write(line(columns));
  for (const row of rows) process.stdout.write(line(columns.map((c) => String(row[c]))));
}

const STORE_COMMANDS = [
  'account create',
  'account list',
  'account update',
  'account delete',
  'apikey create',
  'apikey list',
  'apikey rename',
  'apikey revoke',
  'audit',
  'signing import',
  'signing show',
  'signing remove',
  'template versions',
  'template diff',
  'template rollback',
  'import reportingcloud',
  'backup',
];

/** Where the commands' data lives, said in one line (no password). */
function describeDatabase(services: Services): string {
  const url = services.config.databaseUrl;
  if (url) return `PostgreSQL at ${url.replace(/\/\/([^:@/]+)(:[^@/]*)?@/, '//$1@')}`;
  return `SQLite at ${sqliteFile(services.config.dataDir)}`;
}

/** --from, --to: a template's version number, as "template versions" shows it. */
function versionOption(values: Values, name: 'from' | 'to'): number {
  const text = values[name];
  if (!text || !/^[1-9][0-9]{0,8}$/.test(text)) throw new UsageError(`--${name} is a version number from "docsmith template versions"`);
  return Number(text);
}

/** --id: a key's number, as "apikey list" shows it. */
function keyId(values: Values): number {
  if (!values.id || !/^[1-9][0-9]{0,14}$/.test(values.id)) throw new UsageError('--id is the key\'s number from "docsmith apikey list"');
  return Number(values.id);
}

async function run(services: Services, command: string, values: Values): Promise<void> {
  const json = Boolean(values.json);
  switch (command) {
    case 'backup': {
      if (!values.out) throw new UsageError('--out FILE is required');
      const out = path.resolve(values.out);
      try {
        await services.store.backup(out);
      } catch (error) {
        if (error instanceof BackupError) throw new UsageError(error.message);
        throw error;
      }
      process.stdout.write(`backed up ${describeDatabase(services)} to ${out}\n`);
      return;
    }
    case 'account create': {
      const input = await accountInput(values);
      if (!input.password) throw new UsageError('--password (or --password-stdin) is required');
      const account = await services.accounts.create(requireUser(values), { ...input, password: input.password }).catch((e: unknown) => {
        throw asUsage(e);
      });
      await services.audit.record(account.id, 'account created', OPERATOR, `licence ${account.licence}`);
      print([describe(account)], json);
      return;
    }
    case 'account list':
      process.stderr.write(`docsmith: accounts in ${describeDatabase(services)}\n`);
      print((await services.store.accounts.list()).map(describe), json);
      return;
    case 'account update': {
      const user = requireUser(values);
      let account = await services.accounts.update(user, await accountInput(values)).catch((e: unknown) => {
        throw asUsage(e);
      });
      if (values['reset-usage']) account = (await services.store.accounts.update(account.id, { createdDocuments: 0 }))!;
      const grant = values.signing;
      if (grant !== undefined) {
        if (grant !== 'grant' && grant !== 'revoke') throw new UsageError(`--signing is grant or revoke, not "${grant}"`);
        account = await services.accounts.setSigningGrant(user, grant === 'grant');
      }
      const signature = values['pdf-signature'];
      if (signature !== undefined) {
        if (!isSignatureMode(signature))
          throw new UsageError(`--pdf-signature is one of ${SIGNATURE_MODES.join(', ')}, not "${signature}"`);
        if (signature !== 'none' && !account.signingGrant)
          throw new UsageError(`account "${account.username}" may not sign PDFs: grant it first (--signing grant)`);
        account = (await services.store.accounts.update(account.id, { pdfSignature: signature }))!;
      }
      const changed = Object.keys(values).filter(
        (k) => !['user', 'json', 'password-stdin'].includes(k) && values[k as keyof Values] !== undefined,
      );
      await services.audit.record(
        account.id,
        'account changed',
        OPERATOR,
        changed.map((k) => (k === 'password' ? 'password' : `--${k}`)).join(', '),
      );
      print([describe(account)], json);
      return;
    }
    case 'account delete': {
      const account = await services.accounts.require(requireUser(values));
      await services.signing.remove(account.id);
      await services.accounts.delete(requireUser(values));
      process.stdout.write(`deleted account "${values.user}" with its keys and templates\n`);
      return;
    }
    case 'apikey create': {
      const account = await services.accounts.require(requireUser(values));
      const scope = (() => {
        try {
          return keyScope(values.scope);
        } catch (e) {
          throw asUsage(e);
        }
      })();
      const key = await services.apiKeys.create(account.id, values.name ?? '', scope).catch((e: unknown) => {
        throw asUsage(e);
      });
      if (!key)
        throw new DocsmithError(
          400,
          `account "${account.username}" has ${services.config.maxApiKeys} keys, the most allowed; revoke one first`,
        );
      await services.audit.record(account.id, 'key created', OPERATOR, `${key.slice(0, 4)}…${key.slice(-4)}, scope ${scope}`);
      process.stdout.write(json ? JSON.stringify({ key }) + '\n' : key + '\n');
      return;
    }
    case 'apikey list': {
      const account = await services.accounts.require(requireUser(values));
      const keys = await services.apiKeys.details(account.id);
      print(
        keys.map((k) => ({
          id: k.id,
          name: k.name,
          key: k.masked,
          scope: k.scope,
          active: k.active,
          created: k.createdAt.toISOString(),
          lastUsed: k.lastUsedAt?.toISOString() ?? (json ? null : 'never'),
        })),
        json,
      );
      return;
    }
    case 'apikey rename': {
      const account = await services.accounts.require(requireUser(values));
      if (values.name === undefined) throw new UsageError('--name is required');
      const renamed = await services.apiKeys.rename(account.id, keyId(values), values.name).catch((e: unknown) => {
        throw asUsage(e);
      });
      if (!renamed) {
        throw new DocsmithError(400, `account "${account.username}" has no key number ${values.id}; "docsmith apikey list" shows them`);
      }
      await services.audit.record(account.id, 'key renamed', OPERATOR, `key ${values.id} is now "${values.name.trim()}"`);
      process.stdout.write('renamed\n');
      return;
    }
    case 'signing import': {
      if (!values.p12) throw new UsageError('--p12 is required: the PKCS#12 (.p12 or .pfx) file with the certificate and its key');
      let file: Buffer;
      try {
        file = fs.readFileSync(values.p12);
      } catch (error) {
        throw new UsageError(`cannot read --p12 "${values.p12}": ${(error as Error).message}`);
      }
      const account = values.user === undefined ? undefined : await services.accounts.require(values.user);
      const facts = await services.signing.import(file, (await password(values)) ?? '', account?.id);
      if (account) await services.audit.record(account.id, 'account changed', OPERATOR, `signing certificate "${facts.subject}" imported`);
      process.stdout.write(
        `${account ? `"${account.username}" signs` : 'PDFs are signed'} as "${facts.subject}" (certificate valid until ${facts.notAfter.toISOString().slice(0, 10)})` +
          (account && !account.signingGrant
            ? `; the account signs once granted (account update --user ${account.username} --signing grant)`
            : '') +
          '\n',
      );
      return;
    }
    case 'signing show': {
      const account = values.user === undefined ? undefined : await services.accounts.require(values.user);
      const own = account ? await services.signing.certificate(account.id) : null;
      const certificate = own ?? (await services.signing.certificate());
      const who = account
        ? `"${account.username}" ${account.signingGrant ? 'signs' : 'may not sign (no grant); would sign'}`
        : 'PDFs are signed';
      process.stdout.write(
        certificate
          ? `${who} as "${certificate.subject}" (${account && !own ? "the server's certificate, " : ''}valid until ${certificate.notAfter.toISOString().slice(0, 10)})\n`
          : 'no signing certificate: "docsmith signing import" keeps one\n',
      );
      return;
    }
    case 'signing remove': {
      const account = values.user === undefined ? undefined : await services.accounts.require(values.user);
      const removed = await services.signing.remove(account?.id);
      if (account && removed) await services.audit.record(account.id, 'account changed', OPERATOR, 'signing certificate removed');
      process.stdout.write(removed ? 'removed the signing certificate\n' : 'there was no signing certificate\n');
      return;
    }
    case 'audit': {
      const account = await services.accounts.require(requireUser(values));
      const events = await services.audit.list(account.id, 500);
      print(
        events.map((e) => ({ at: e.at.toISOString(), action: e.action, actor: e.actor, address: e.address ?? '', detail: e.detail })),
        json,
      );
      return;
    }
    case 'template versions': {
      const account = await services.accounts.require(requireUser(values));
      if (!values.template) throw new UsageError('--template is required');
      const versions = await services.templates.versions(account, values.template);
      print(
        versions.map((v) => ({ version: v.version, current: v.current, modified: v.modifiedAt.toISOString(), size: v.size })),
        json,
      );
      return;
    }
    case 'template diff': {
      const account = await services.accounts.require(requireUser(values));
      if (!values.template) throw new UsageError('--template is required');
      const templateName = values.template;
      const to = values.to === undefined ? undefined : versionOption(values, 'to');
      const diff = await services.templates.diff(account, templateName, versionOption(values, 'from'), to, (record) =>
        services.door.perform(null, {
          kind: 'info',
          source: { bytes: record.data, format: record.format as DocumentFormat, name: templateName },
        }),
      );
      process.stdout.write(json ? `${JSON.stringify(diff)}\n` : describeDiff(diff.from, diff.to, diff));
      return;
    }
    case 'import reportingcloud':
      await runImport(values, services, (rows) => print(rows as unknown as Record<string, unknown>[], json));
      return;
    case 'template rollback': {
      const account = await services.accounts.require(requireUser(values));
      if (!values.template) throw new UsageError('--template is required');
      const now = await services.templates.rollback(account, values.template, versionOption(values, 'to'));
      await services.audit.record(
        account.id,
        'template rolled back',
        OPERATOR,
        `${values.template}: version ${values.to} is version ${now}`,
      );
      process.stdout.write(`version ${values.to} of "${values.template}" is current again, as version ${now}\n`);
      return;
    }
    case 'apikey revoke': {
      const account = await services.accounts.require(requireUser(values));
      if (!values.key && !values.id) throw new UsageError('--key or --id is required');
      const revoked = values.key
        ? await services.apiKeys.revoke(account.id, values.key)
        : await services.apiKeys.revokeById(account.id, keyId(values));
      if (!revoked) throw new DocsmithError(400, `account "${account.username}" has no such key`);
      await services.audit.record(
        account.id,
        'key revoked',
        OPERATOR,
        values.key ? `${values.key.slice(0, 4)}…${values.key.slice(-4)}` : `key ${values.id}`,
      );
      process.stdout.write('revoked\n');
      return;
    }
    default:
      throw new UsageError(command.trim() ? `unknown command "${command.trim()}"` : 'no command given');
  }
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`docsmith: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.version) {
    process.stdout.write(`docsmith ${VERSION}\n`);
    return 0;
  }
  const first = parsed.positionals[0];
  if (parsed.values.help || first === undefined) {
    // Help for one command when one is named (docsmith merge --help, docsmith account create --help).
    process.stdout.write(first === undefined ? USAGE : usageOf(parsed.positionals.slice(0, 2).join(' ')));
    return parsed.values.help ? 0 : 2;
  }
  /** A command that opens no database here (document work, or an import into a server): its exit code. */
  const withoutStore = async (label: string, usage: string, work: () => Promise<void>): Promise<number> => {
    try {
      await work();
      return 0;
    } catch (error) {
      if (error instanceof UsageError) {
        process.stderr.write(`${label}: ${error.message}\n\n${usageOf(usage)}`);
        return 2;
      }
      process.stderr.write(`${label}: ${describeFailure(error, parsed.values.url)}\n`);
      return 1;
    }
  };
  if (DOCUMENT_COMMANDS.includes(first))
    return withoutStore(`docsmith ${first}`, first, () => runDocumentCommand(first, parsed.values, parsed.positionals.slice(1)));
  const command = first === 'backup' || first === 'audit' ? first : parsed.positionals.slice(0, 2).join(' ');
  if (command === 'import reportingcloud' && parsed.values.url)
    return withoutStore('docsmith', command, () =>
      runImport(parsed.values, undefined, (rows) => print(rows as unknown as Record<string, unknown>[], Boolean(parsed.values.json))),
    );
  if (['account', 'apikey', 'template', 'signing', 'import'].includes(first) && parsed.positionals.length === 1) {
    const subcommands = STORE_COMMANDS.filter((c) => c.startsWith(`${first} `)).map((c) => c.slice(first.length + 1));
    process.stderr.write(`docsmith: ${first} needs a subcommand: ${subcommands.join(', ')}\n\n${usageOf(first)}`);
    return 2;
  }
  if (!STORE_COMMANDS.includes(command)) {
    // Checked before the database is opened: a typo creates nothing.
    process.stderr.write(`docsmith: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  let services: Services | undefined;
  try {
    const config = loadConfig();
    // Only a command that makes an account may start a new database; the others say where they looked.
    if (!config.databaseUrl && command !== 'account create' && !fs.existsSync(sqliteFile(config.dataDir))) {
      process.stderr.write(
        `docsmith: there is no database at ${sqliteFile(config.dataDir)}; set DOCSMITH_DATA_DIR (or DOCSMITH_DATABASE_URL) as for the server\n`,
      );
      return 1;
    }
    services = await openServices(config);
    await run(services, command, parsed.values);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`docsmith: ${error.message}\n\n${usageOf(command)}`);
      return 2;
    }
    if (error instanceof DocsmithError || error instanceof ConfigError) {
      process.stderr.write(`docsmith: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`docsmith: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  } finally {
    await services?.store.close();
  }
}

/** "from version 1 to 3: fields added: total; removed: name". */
function describeDiff(from: number, to: number, diff: TemplateDiff): string {
  const list = (names: string[]) => (names.length ? names.join(', ') : 'none');
  return (
    `from version ${from} to ${to}:\n` +
    `  fields added: ${list(diff.fields.added)}\n  fields removed: ${list(diff.fields.removed)}\n` +
    `  blocks added: ${list(diff.blocks.added)}\n  blocks removed: ${list(diff.blocks.removed)}\n`
  );
}
