import { InputError } from '../errors.js';
import type { OfficeFormat } from '../formats/returnFormat.js';

export type DocumentFamily = 'writer' | 'calc';

/** The office's own text-document format: long tables' parts, the crash fallback's and the warm-up's go-between. */
export const ODT_FILTER = 'writer8';

/**
 * How the office reads DOCX: the same reader as "MS Word 2007 XML" under a name that does not
 * begin with "MS Word", for which the office makes every document a VBA event handler and Basic
 * library container and checks its signatures (about 1 ms of a one-page conversion). The same
 * pages for 140 test and real-world templates. DOCX output keeps the Word name.
 */
export const DOCX_IMPORT_FILTER = 'Office Open XML Text';

/** How a job exports (process.ts OfficeJob holds it): the filter and what it is told. */
export interface ExportSpec {
  filter: string;
  filterData?: Record<string, string | number | boolean>;
  filterOptions?: string;
  password?: string;
  /** Encrypt through OOXML EncryptionData rather than the plain Password property. */
  ooxml?: boolean;
  /** Text output: laid out only when the body shows a page number or count, or for the test stamp. */
  textOnly?: boolean;
}

/** The complete PDF filter data, so no setting falls back to a profile's default. */
function pdfFilterData(pdfa: boolean, password: string | undefined, options: PdfOptions = {}): Record<string, string | number | boolean> {
  const accessible = options.accessible ?? false;
  const data: Record<string, string | number | boolean> = {
    // 2 = PDF/A-2b; 3 = PDF/A-3b, which may carry other files (an e-invoice's XML).
    SelectPdfVersion: options.pdfa3 ? 3 : pdfa ? 2 : 0,
    ExportNotes: false,
    ExportNotesPages: false,
    ExportBookmarks: true,
    ExportFormFields: true,
    UseTaggedPDF: pdfa || Boolean(options.pdfa3) || accessible,
    // PDF/UA-1: tagged, the title shown, the PDF/UA identification in the metadata.
    PDFUACompliance: accessible,
    ReduceImageResolution: false,
    UseLosslessCompression: false,
    Quality: 90,
    EmbedStandardFonts: true,
    // Pages the office inserts to put an odd page number on a right-hand page (a section that
    // restarts numbering at 1) are not the document's: Word prints none of them.
    IsSkipEmptyPages: true,
  };
  if (password) {
    data.EncryptFile = true;
    data.DocumentOpenPassword = password;
  }
  return data;
}

/** What PDF output may be asked for beyond its format (docsmith). */
export interface PdfOptions {
  /** Tagged PDF/UA-1. */
  accessible?: boolean;
  /** PDF/A-3b whatever the format (PDF or PDFA): a Factur-X invoice's carrier. */
  pdfa3?: boolean;
}

/** Formats that carry an open password; PDF/A forbids encryption. */
export const PASSWORD_FORMATS: readonly OfficeFormat[] = ['pdf', 'docx', 'doc'];

/**
 * How the office writes `format` for a document of this family; 400 for what cannot be. A
 * password is applied where the format can carry one and ignored elsewhere, as ReportingCloud's
 * clients expect (their suites send one with every format).
 */
export function exportSpec(family: DocumentFamily, format: OfficeFormat, requestedPassword?: string, pdf: PdfOptions = {}): ExportSpec {
  const password = requestedPassword && PASSWORD_FORMATS.includes(format) ? requestedPassword : undefined;
  if (family === 'calc') {
    if (format === 'pdf' || format === 'pdfa') return { filter: 'calc_pdf_Export', filterData: pdfFilterData(format === 'pdfa', password) };
    throw new InputError(`Spreadsheets can be converted to PDF or PDFA only, not ${format.toUpperCase()}.`);
  }
  switch (format) {
    case 'pdf':
    case 'pdfa':
      return { filter: 'writer_pdf_Export', filterData: pdfFilterData(format === 'pdfa', password, pdf) };
    case 'docx':
      return { filter: 'MS Word 2007 XML', password, ooxml: true };
    case 'doc':
      return { filter: 'MS Word 97', password };
    case 'rtf':
      return { filter: 'Rich Text Format' };
    case 'html':
      return { filter: 'HTML (StarWriter)', filterOptions: 'EmbedImages' };
    case 'txt':
      return { filter: 'Text (encoded)', filterOptions: 'UTF8,CRLF,,,', textOnly: true };
  }
}
