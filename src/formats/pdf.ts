import { InputError, PayloadTooLargeError } from '../errors.js';

/** Set from the configuration at start (DOCSMITH_MAX_PAGES). */
export const pdfLimits = { maxPages: 2000 };

type MuPdf = typeof import('mupdf');
let loaded: Promise<MuPdf> | undefined;

/** MuPDF (WebAssembly) loads on first use, not at start-up. */
export function mupdf(): Promise<MuPdf> {
  loaded ??= import('mupdf');
  return loaded;
}

async function open(bytes: Uint8Array) {
  const lib = await mupdf();
  try {
    const doc = lib.Document.openDocument(bytes, 'application/pdf');
    if (doc.needsPassword()) throw new InputError('The PDF is password-protected; remove the password and send it again.');
    return doc;
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`The PDF cannot be read (${(error as Error).message}).`);
  }
}

/** The text of every page, pages separated by a form feed like pdftotext, CRLF line ends. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = await open(bytes);
  const count = doc.countPages();
  if (count > pdfLimits.maxPages) {
    throw new PayloadTooLargeError(`The PDF has ${count} pages; this server reads at most ${pdfLimits.maxPages} (DOCSMITH_MAX_PAGES).`);
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
