import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { OfficePool, type PoolOptions } from '../../src/office/pool.js';
import { openSandbox, type SandboxMode } from '../../src/office/sandbox.js';
import { tempDir } from './server.js';
import * as mupdf from 'mupdf';

/** A real office pool for tests, with small limits unless overridden. */
export function testPool(overrides: Partial<PoolOptions> = {}, sandbox: SandboxMode = 'auto'): OfficePool {
  return new OfficePool({
    size: 1,
    queueLimit: 50,
    queueWaitMs: 60_000,
    processingLimitMs: 30_000,
    maxJobsPerProcess: 1000,
    maxRssBytes: 4 * 1024 * 1024 * 1024,
    process: {
      workDir: tempDir('docsmith-office-'),
      runDir: tempDir('docsmith-office-run-'),
      sofficePath: '/usr/lib/libreoffice/program/soffice.bin',
      pythonPath: '/usr/bin/python3',
      sandbox: openSandbox(sandbox),
      startTimeoutMs: 60_000,
    },
    ...overrides,
  });
}

/** An RTF long enough that laying it out takes the office seconds. */
export function slowRtf(paragraphs = 40_000): string {
  const file = path.join(tempDir(), 'slow.rtf');
  const body = Array.from(
    { length: paragraphs },
    (_, i) => `Paragraph ${i} with enough words to wrap across the line of a page, again and again and again.\\par`,
  ).join('\n');
  fs.writeFileSync(file, `{\\rtf1\\ansi\n${body}\n}`);
  return file;
}

export interface PdfFacts {
  pages: number;
  text: string;
  needsPassword: boolean;
}

export function pdfFacts(bytes: Uint8Array, password?: string): PdfFacts {
  const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  const needsPassword = doc.needsPassword();
  if (needsPassword && password !== undefined && !doc.authenticatePassword(password)) throw new Error('wrong password');
  if (needsPassword && password === undefined) return { pages: 0, text: '', needsPassword };
  const pages = doc.countPages();
  let text = '';
  for (let i = 0; i < pages; i++) text += doc.loadPage(i).toStructuredText('preserve-whitespace').asText();
  return { pages, text, needsPassword };
}

/** Share of strongly red pixels on a page: the TEST MODE watermark is red. */
export function redShare(pdf: Uint8Array, page = 0): number {
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  const pix = doc.loadPage(page).toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceRGB, false, true);
  const samples = pix.getPixels();
  let red = 0;
  for (let i = 0; i < samples.length; i += 3) {
    if (samples[i]! > 180 && samples[i + 1]! < 170 && samples[i + 2]! < 170) red++;
  }
  return red / (samples.length / 3);
}

/**
 * A flat ODT (what LibreOffice Writer keeps in memory) saved as DOCX by a plain LibreOffice: the
 * DOCX a Writer user makes, with Writer's own ways of writing bookmarks and fields.
 */
export function writerDocx(fodt: string, soffice = '/usr/lib/libreoffice/program/soffice'): Buffer {
  const work = tempDir('docsmith-writer-');
  try {
    fs.writeFileSync(path.join(work, 'made.fodt'), fodt);
    execFileSync(
      soffice,
      [
        `-env:UserInstallation=file://${path.join(work, 'profile')}`,
        '--headless',
        '--convert-to',
        'docx',
        '--outdir',
        work,
        path.join(work, 'made.fodt'),
      ],
      { stdio: 'ignore', timeout: 600_000 },
    );
    return fs.readFileSync(path.join(work, 'made.docx'));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
