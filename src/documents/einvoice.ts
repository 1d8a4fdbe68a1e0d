/**
 * E-invoices (Factur-X / ZUGFeRD) made by a merge: each PDF/A-3 document carries its invoice's CII
 * XML, sent with the request or built from its record (formats/einvoice/). The XML is made and
 * checked before the merge starts, so wrong data is a 400 that costs no office time.
 */
import type { DocumentWorkers } from '../workers/pool.js';
import type { Invoice } from '../formats/einvoice/facturx.js';
import type { Records } from '../merge/records.js';

/** What a merge request asks: the XML as sent (`xml`), else built from each record. */
export interface EInvoiceRequest {
  xml?: string;
}

export class EInvoices {
  constructor(private readonly workers: DocumentWorkers) {}

  /** The invoice of each document the merge makes (one when appended); a 400 naming every problem. */
  prepare(request: { einvoice?: EInvoiceRequest; records: Records }, signal?: AbortSignal): Promise<Invoice[]> {
    const asked = request.einvoice ?? {};
    if (asked.xml !== undefined) return this.workers.einvoices({ xml: asked.xml }, signal);
    return this.workers.einvoices({ records: request.records }, signal);
  }

  /** Each PDF/A-3 with its invoice attached. */
  attach(pdfs: Buffer[], invoices: Invoice[], signal?: AbortSignal): Promise<Buffer[]> {
    if (pdfs.length !== invoices.length) throw new Error(`${pdfs.length} documents for ${invoices.length} e-invoices`);
    return Promise.all(pdfs.map((pdf, i) => this.workers.attachFacturX(pdf, invoices[i]!, signal)));
  }
}
