import { InputError, PayloadTooLargeError } from '../errors.js';

/** Pages of a PDF read at most, unless the configuration says otherwise (DOCSMITH_MAX_PAGES). */
export const DEFAULT_MAX_PAGES = 2000;

type MuPdf = typeof import('mupdf');
let loaded: Promise<MuPdf> | undefined;

/** MuPDF (WebAssembly) loads on first use, not at start-up; its warnings go to the reader log, never to stderr. */
export function mupdf(): Promise<MuPdf> {
  loaded ??= import('mupdf').then((lib) => {
    lib.setLog({ warning: (message) => note(message), error: (message) => note(message) });
    return lib;
  });
  return loaded;
}

/** What MuPDF said while it read one document: each message once with its count, at most MAX_MESSAGES of them. */
export interface ReaderLog {
  messages: { message: string; count: number }[];
  /** Messages said in all, counted ones and those past the cap. */
  total: number;
}

const MAX_MESSAGES = 20;
const MAX_MESSAGE_LENGTH = 300;
let current: Map<string, number> | undefined;
let total = 0;

function note(message: string): void {
  total++;
  if (!current) return;
  // MuPDF's own "... repeated N times ..." lines say nothing new.
  if (/^\.\.\. repeated \d+ times\.\.\.$/.test(message)) return;
  const key = message.slice(0, MAX_MESSAGE_LENGTH);
  if (current.has(key) || current.size < MAX_MESSAGES) current.set(key, (current.get(key) ?? 0) + 1);
}

/**
 * Runs reading work and gathers what MuPDF says meanwhile (a damaged PDF can make it say tens of
 * thousands of lines): deduplicated and capped, for the caller to log once.
 */
export async function withReaderLog<T>(work: () => Promise<T>): Promise<{ value: T; log?: ReaderLog }> {
  current = new Map();
  total = 0;
  try {
    const value = await work();
    return total ? { value, log: readerLog() } : { value };
  } catch (error) {
    if (total && error instanceof Object) Object.assign(error, { readerLog: readerLog() });
    throw error;
  } finally {
    current = undefined;
    total = 0;
  }
}

function readerLog(): ReaderLog {
  return { messages: [...current!].map(([message, count]) => ({ message, count })), total };
}

type Doc = ReturnType<MuPdf['Document']['openDocument']>;

/**
 * Opens a PDF for reading pages, the one way every endpoint counts them. A damaged page tree
 * (a wrong /Count, missing /Kids) is rebuilt from the page objects, as poppler and LibreOffice
 * read such files: otherwise convert passed a PDF that thumbnails said had 0 pages.
 */
export function openPdf(lib: MuPdf, bytes: Uint8Array, maxPages = DEFAULT_MAX_PAGES): Doc {
  let doc: Doc;
  try {
    doc = lib.Document.openDocument(bytes, 'application/pdf');
  } catch (error) {
    throw new InputError(`The PDF cannot be read (${(error as Error).message}).`);
  }
  if (doc.needsPassword()) throw new InputError('The PDF is password-protected; remove the password and send it again.');
  if (!pagesLoad(doc)) rebuildPageTree(doc, maxPages);
  return doc;
}

function pagesLoad(doc: Doc): boolean {
  try {
    const count = doc.countPages();
    if (count === 0) return false;
    doc.loadPage(0);
    doc.loadPage(count - 1);
    return true;
  } catch {
    return false;
  }
}

function rebuildPageTree(doc: Doc, maxPages: number): void {
  const pdf = doc.asPDF();
  if (!pdf) return;
  try {
    const tree = pdf.getTrailer().get('Root').get('Pages');
    if (!tree.isDictionary()) return;
    const kids = pdf.newArray();
    let count = 0;
    for (let i = 1; i < pdf.countObjects() && count <= maxPages; i++) {
      const ref = pdf.newIndirect(i);
      const object = ref.resolve();
      if (!object.isDictionary() || object.get('Type').toString() !== '/Page') continue;
      object.put('Parent', tree);
      kids.push(ref);
      count++;
    }
    tree.put('Kids', kids);
    tree.put('Count', count);
  } catch {
    // Left as it is: the page count says what can be read.
  }
}

async function open(bytes: Uint8Array, maxPages = DEFAULT_MAX_PAGES): Promise<Doc> {
  return openPdf(await mupdf(), bytes, maxPages);
}

/** The text of every page, pages separated by a form feed like pdftotext, CRLF line ends. */
export async function pdfText(bytes: Uint8Array, maxPages = DEFAULT_MAX_PAGES): Promise<string> {
  const doc = await open(bytes, maxPages);
  const count = doc.countPages();
  if (count > maxPages) {
    throw new PayloadTooLargeError(`The PDF has ${count} pages; this server reads at most ${maxPages} (DOCSMITH_MAX_PAGES).`);
  }
  const pages: string[] = [];
  for (let i = 0; i < count; i++) {
    const text = doc.loadPage(i).toStructuredText('preserve-whitespace').asText();
    pages.push(text.replace(/\n{2,}/g, '\n').replace(/\r?\n/g, '\r\n'));
  }
  return pages.join('\f');
}

/** Refuses a PDF that does not open (damaged, encrypted). */
export async function checkPdf(bytes: Uint8Array): Promise<void> {
  await open(bytes);
}

/** The document information a joined PDF keeps from its first part (LibreOffice wrote it from the merge settings). */
const INFO_KEYS = [
  'info:Title',
  'info:Author',
  'info:Subject',
  'info:Keywords',
  'info:Creator',
  'info:Producer',
  'info:CreationDate',
  'info:ModDate',
];

/**
 * PDFs laid out separately (appended records, a part each) as one PDF, pages in order, with the
 * first part's document information. Runs in a worker thread.
 */
export async function joinPdfs(parts: Uint8Array[]): Promise<Uint8Array> {
  const lib = await mupdf();
  const joined = new lib.PDFDocument();
  let first: InstanceType<MuPdf['PDFDocument']> | undefined;
  for (const bytes of parts) {
    const part = lib.Document.openDocument(bytes, 'application/pdf').asPDF();
    if (!part) throw new InputError('A part of the document is not a PDF.');
    first ??= part;
    // One map per part: what its pages share (fonts, images) is copied once, not once per page.
    const map = joined.newGraftMap();
    for (let i = 0; i < part.countPages(); i++) map.graftPage(-1, part, i);
  }
  for (const key of INFO_KEYS) {
    const value = first?.getMetaData(key);
    if (value) joined.setMetaData(key, value);
  }
  // A copy: the buffer is a view into MuPDF's whole heap, which handing it to another thread would copy too.
  return joined.saveToBuffer('compress').asUint8Array().slice();
}
