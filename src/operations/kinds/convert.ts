/** Conversion of a sent document to another format. */
import type { SignatureMode } from '../../documents/signing.js';
import type { DocumentFormat } from '../../formats/detect.js';
import type { ReturnFormat } from '../../formats/returnFormat.js';
import type { Answer, Row } from '../work.js';

export interface ConvertRequest {
  kind: 'convert';
  format: ReturnFormat;
  test: boolean;
  document: Buffer;
  from: DocumentFormat;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
  /** docsmith: tagged PDF/UA output. */
  accessible?: boolean;
}

export const convert = {
  counted: true,
  slot: false,
  // A converted document keeps the password it was sent with, if any: it is not set here.
  pdf: (request) => ({ format: request.format, signature: request.signature, password: false }),
  job: {
    store: (request) => ({ ...request, document: request.document.toString('base64') }),
    restore: (stored) => ({ ...(stored as unknown as ConvertRequest), document: Buffer.from(stored.document as string, 'base64') }),
    summary: (request) => ({ format: request.format.toUpperCase(), documents: 1 }),
  },
  async run(request, { operations, ctx }) {
    const result = await operations.convert(request, ctx);
    return { documents: [result.data], list: false, headers: { 'x-office-ms': String(result.officeMs) } };
  },
} satisfies Row<ConvertRequest, Answer>;
