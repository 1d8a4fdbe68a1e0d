import { UsageError } from './errors.js';
import { TEMPLATE_SYNTAXES, type TemplateSyntax } from '../merge/syntax/index.js';
import { RETURN_EXTENSIONS, RETURN_FORMATS } from '../formats/returnFormat.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { openServices } from '../services.js';
import { parseDivider } from '../api/requests/append.js';
import type { JsonObject } from '../merge/scope.js';
import { LocalBackend, RemoteBackend, loadClient, type Backend } from './backends.js';

/** The file extension of a --format as given (checked elsewhere). */
const extensionOf = (format: string): string => (RETURN_EXTENSIONS as Record<string, string>)[format] ?? format;

export interface DocumentOptions {
  template?: string;
  data?: string;
  format?: string;
  output?: string;
  'out-dir'?: string;
  input?: string;
  settings?: string;
  separate?: boolean;
  divider?: string;
  zoom?: string;
  from?: string;
  to?: string;
  'image-format'?: string;
  url?: string;
  user?: string;
  password?: string;
  'api-key'?: string;
  async?: boolean;
  einvoice?: string;
  'einvoice-xml'?: string;
  syntax?: string;
}

function read(file: string | undefined, what: string): Buffer {
  if (!file) throw new UsageError(`${what} is required`);
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} "${file}": ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
}

function readJson(file: string, what: string): unknown {
  const text = read(file, what).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} "${file}" is not valid JSON: ${(error as Error).message}`);
  }
}

/** A progress bar on standard error, shown only on a terminal. */
class Progress {
  private readonly live = process.stderr.isTTY === true;
  constructor(
    private readonly total: number,
    private readonly label: string,
  ) {}
  tick(done: number): void {
    if (!this.live || this.total < 2) return;
    const width = 30;
    const filled = Math.round((done / this.total) * width);
    process.stderr.write(`\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.total}`);
    if (done === this.total) process.stderr.write('\n');
  }
}

function outputNames(output: string, count: number): string[] {
  if (count === 1) return [output];
  const ext = path.extname(output);
  return Array.from({ length: count }, (_, i) => `${output.slice(0, output.length - ext.length)}-${i + 1}${ext}`);
}

export async function backendFor(options: DocumentOptions): Promise<Backend> {
  if (options.url) {
    const credentials = options['api-key']
      ? { apiKey: options['api-key'] }
      : options.user && options.password
        ? { username: options.user, password: options.password }
        : undefined;
    if (!credentials) throw new UsageError('--url needs --api-key, or --user and --password');
    const jobs = options.async ? { progress: (line: string) => process.stderr.write(`${line}\n`) } : undefined;
    return new RemoteBackend(await loadClient(options.url, credentials), jobs);
  }
  if (options.async) throw new UsageError('--async runs the work as a job on a server: add --url and credentials');
  // In-process: no server, no stored data; a scratch folder for the office's caches.
  const env = { ...process.env };
  env.DOCSMITH_DATA_DIR ??= path.join(os.tmpdir(), 'docsmith-cli');
  env.DOCSMITH_OFFICE_PROCESSES ??= env.DOCSMITH_OFFICE_PROCESSES ?? '1';
  delete env.DOCSMITH_DATABASE_URL;
  return new LocalBackend(await openServices(loadConfig(env), { withOffice: true, officeStartAttempts: 3 }));
}

const IMAGE_FORMATS = ['png', 'jpg', 'gif', 'bmp'];

/** Option values are checked before any work, so a mistyped one is a usage error (exit 2). */
function checkOptions(command: string, options: DocumentOptions): void {
  if (
    options.format !== undefined &&
    command !== 'thumbnails' &&
    command !== 'info' &&
    !(RETURN_FORMATS as readonly string[]).includes(options.format.toLowerCase())
  ) {
    throw new UsageError(`--format must be one of ${RETURN_FORMATS.join(', ')}, not "${options.format}"`);
  }
  if (options.syntax !== undefined && !(TEMPLATE_SYNTAXES as readonly string[]).includes(options.syntax.toLowerCase()))
    throw new UsageError(`--syntax must be one of ${TEMPLATE_SYNTAXES.join(', ')}, not "${options.syntax}"`);
  if (command === 'thumbnails') {
    for (const [name, min, max] of [
      ['zoom', 1, 400],
      ['from', 1, 1_000_000],
      ['to', 0, 1_000_000],
    ] as const) {
      const value = options[name];
      if (value === undefined) continue;
      if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
        throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${value}"`);
    }
    if (options['image-format'] !== undefined && !IMAGE_FORMATS.includes(options['image-format'].toLowerCase())) {
      throw new UsageError(`--image-format must be one of ${IMAGE_FORMATS.join(', ')}, not "${options['image-format']}"`);
    }
  }
}

/** Output names for a folder's files: `report.docx` and `report.doc` would both give `report.txt`, so those keep their extension. */
export function folderOutputNames(files: string[], extension: string): Map<string, string> {
  const stems = new Map<string, number>();
  for (const file of files) stems.set(path.parse(file).name, (stems.get(path.parse(file).name) ?? 0) + 1);
  return new Map(files.map((file) => [file, `${(stems.get(path.parse(file).name) ?? 0) > 1 ? file : path.parse(file).name}.${extension}`]));
}

export async function runDocumentCommand(command: string, options: DocumentOptions, positionals: string[]): Promise<void> {
  checkOptions(command, options);
  const format = (options.format ?? 'pdf').toLowerCase();
  const syntax = (options.syntax?.toLowerCase() ?? 'word') as TemplateSyntax;
  const backend = await backendFor(options);
  try {
    switch (command) {
      case 'merge': {
        const template = read(options.template, '--template');
        const data = readJson(options.data ?? '', '--data');
        const records = (Array.isArray(data) ? data : [data]) as JsonObject[];
        const settings = options.settings ? readJson(options.settings, '--settings') : undefined;
        const output = options.output ?? `merged.${extensionOf(format)}`;
        const append = !options.separate;
        const einvoice = {
          ...(options.einvoice !== undefined ? { einvoice: options.einvoice } : {}),
          ...(options['einvoice-xml'] !== undefined
            ? { einvoiceXml: read(options['einvoice-xml'], '--einvoice-xml').toString('utf8') }
            : {}),
        };
        const progress = new Progress(records.length, 'merging');
        const docs: Buffer[] = [];
        // Separate documents go in batches so the progress bar moves.
        const batch = append ? records.length : 25;
        for (let i = 0; i < records.length; i += batch) {
          const from = i;
          docs.push(
            ...(await backend.merge(template, records.slice(i, i + batch), { format, append, settings, syntax, ...einvoice }, (done) =>
              progress.tick(from + done),
            )),
          );
          progress.tick(Math.min(records.length, i + batch));
        }
        outputNames(output, docs.length).forEach((name, i) => fs.writeFileSync(name, docs[i]!));
        process.stdout.write(
          `wrote ${docs.length === 1 ? output : `${docs.length} documents (${outputNames(output, docs.length)[0]}, ...)`}\n`,
        );
        return;
      }
      case 'convert': {
        const input = options.input ?? positionals[0];
        if (!input) throw new UsageError('--input (a file or a folder) is required');
        if (fs.existsSync(input) && fs.statSync(input).isDirectory()) {
          const outDir = options['out-dir'] ?? throwUsage('--out-dir is required when --input is a folder');
          fs.mkdirSync(outDir, { recursive: true });
          const files = fs
            .readdirSync(input)
            .filter((f) => fs.statSync(path.join(input, f)).isFile())
            .sort();
          const outputs = folderOutputNames(files, extensionOf(format));
          const progress = new Progress(files.length, 'converting');
          let failed = 0;
          for (const [i, file] of files.entries()) {
            try {
              const out = await backend.convert(fs.readFileSync(path.join(input, file)), format);
              fs.writeFileSync(path.join(outDir, outputs.get(file)!), out);
            } catch (error) {
              failed++;
              process.stderr.write(`\n${file}: ${(error as Error).message}\n`);
            }
            progress.tick(i + 1);
          }
          process.stdout.write(`converted ${files.length - failed} of ${files.length} files into ${outDir}\n`);
          if (failed) throw new Error(`${failed} file(s) could not be converted`);
          return;
        }
        const output = options.output ?? `${path.parse(input).name}.${extensionOf(format)}`;
        fs.writeFileSync(output, await backend.convert(read(input, '--input'), format));
        process.stdout.write(`wrote ${output}\n`);
        return;
      }
      case 'append': {
        if (positionals.length < 1) throw new UsageError('name the documents to append: docsmith append a.docx b.docx ...');
        let divider: ReturnType<typeof parseDivider>;
        try {
          divider = parseDivider(options.divider ?? 'NewSection', 0);
        } catch {
          throw new UsageError(`--divider must be None, NewParagraph or NewSection, not "${options.divider}"`);
        }
        const documents = positionals.map((file) => ({ bytes: read(file, 'document'), divider }));
        const output = options.output ?? `appended.${extensionOf(format)}`;
        fs.writeFileSync(output, await backend.append(documents, format));
        process.stdout.write(`wrote ${output}\n`);
        return;
      }
      case 'thumbnails': {
        const input = options.input ?? positionals[0];
        const document = read(input, '--input');
        const outDir = options['out-dir'] ?? '.';
        const imageFormat = (options['image-format'] ?? 'png').toLowerCase();
        const num = (value: string | undefined, name: string) => {
          if (value === undefined) return undefined;
          if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
          return Number(value);
        };
        const images = await backend.thumbnails(document, {
          zoom: num(options.zoom, 'zoom'),
          from: num(options.from, 'from'),
          to: num(options.to, 'to'),
          imageFormat,
        });
        fs.mkdirSync(outDir, { recursive: true });
        const first = num(options.from, 'from') ?? 1;
        images.forEach((image, i) =>
          fs.writeFileSync(
            path.join(outDir, `${path.parse(input!).name}-page${first + i}.${imageFormat === 'jpg' ? 'jpg' : imageFormat}`),
            image,
          ),
        );
        process.stdout.write(`wrote ${images.length} image(s) into ${outDir}\n`);
        return;
      }
      case 'info': {
        const file = options.template ?? positionals[0];
        process.stdout.write(`${JSON.stringify(await backend.info(read(file, '--template'), path.basename(file!), syntax), null, 2)}\n`);
        return;
      }
    }
  } finally {
    await backend.close();
  }
}

function throwUsage(message: string): never {
  throw new UsageError(message);
}
