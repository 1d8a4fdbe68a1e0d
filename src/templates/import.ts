/**
 * Moving an account's templates from ReportingCloud: each template the vendor lists is downloaded
 * and stored here under its own name. A TX template our TX reader cannot read is converted to DOCX
 * by the vendor's own convert endpoint and stored as that, under the same name (clients keep
 * naming it as before). Then each one's template info says what merges will see.
 */
import { detectFormat, FORMAT_NAMES } from '../formats/detect.js';

/** The vendor's side: the ReportingCloud wire (the TypeScript client speaks it). */
export interface VendorTemplates {
  listTemplates(): Promise<{ templateName: string }[]>;
  downloadTemplate(name: string): Promise<Uint8Array>;
  convert(document: Uint8Array, returnFormat: 'DOCX'): Promise<Uint8Array>;
}

/** Where the templates go: this server's store (the operator's CLI) or a server over HTTP. */
export interface ImportTarget {
  exists(name: string): Promise<boolean>;
  /** Stores the template as uploads do (checked first); a refusal throws with the reason. */
  store(name: string, bytes: Buffer): Promise<void>;
  /** How many merge fields and blocks template info reports for the template just stored (`bytes`, as stored). */
  info(name: string, bytes: Buffer): Promise<{ fields: number; blocks: number }>;
}

export type ImportResult = 'stored' | 'TX read here' | 'converted to DOCX by ReportingCloud' | 'skipped: exists here' | 'failed';

export interface ImportRow {
  template: string;
  format: string;
  size: number;
  result: ImportResult;
  fields: number | '';
  blocks: number | '';
  problem: string;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function importTemplates(
  vendor: VendorTemplates,
  target: ImportTarget,
  options: { replace: boolean; onRow?: (row: ImportRow) => void },
): Promise<ImportRow[]> {
  const rows: ImportRow[] = [];
  const listed = await vendor.listTemplates();
  for (const { templateName: name } of listed) {
    const row: ImportRow = { template: name, format: '', size: 0, result: 'failed', fields: '', blocks: '', problem: '' };
    try {
      if (!options.replace && (await target.exists(name))) {
        row.result = 'skipped: exists here';
      } else {
        const bytes = Buffer.from(await vendor.downloadTemplate(name));
        const detected = detectFormat(bytes);
        row.format = detected.ok ? FORMAT_NAMES[detected.format] : 'unknown';
        row.size = bytes.length;
        const stored = await storeOne(vendor, target, name, bytes, detected.ok && detected.format === 'tx');
        row.result = stored.result;
        const info = await target.info(name, stored.bytes);
        row.fields = info.fields;
        row.blocks = info.blocks;
      }
    } catch (error) {
      row.result = 'failed';
      row.problem = messageOf(error);
    }
    rows.push(row);
    options.onRow?.(row);
  }
  return rows;
}

/** Stores the template as it came; a TX template refused here goes through the vendor's convert to DOCX. */
async function storeOne(
  vendor: VendorTemplates,
  target: ImportTarget,
  name: string,
  bytes: Buffer,
  tx: boolean,
): Promise<{ result: ImportResult; bytes: Buffer }> {
  try {
    await target.store(name, bytes);
    return { result: tx ? 'TX read here' : 'stored', bytes };
  } catch (error) {
    if (!tx) throw error;
    let docx: Buffer;
    try {
      docx = Buffer.from(await vendor.convert(bytes, 'DOCX'));
    } catch (converting) {
      throw new Error(`${messageOf(error)} ReportingCloud's convert to DOCX failed too: ${messageOf(converting)}`, { cause: converting });
    }
    await target.store(name, docx);
    return { result: 'converted to DOCX by ReportingCloud', bytes: docx };
  }
}
