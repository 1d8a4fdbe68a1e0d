/**
 * Digital signatures on PDF output (PAdES-style, adbe.pkcs7.detached) with the operator's PKCS#12
 * certificate: a signature field on the last page (visible: a stamp naming the signer and the
 * time), its byte range hashed and signed (@signpdf). Runs in a worker thread: loading and saving
 * a large PDF is CPU work.
 */
import forge from 'node-forge';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { P12Signer } from '@signpdf/signer-p12';
import { SignPdf } from '@signpdf/signpdf';
import { InputError } from '../errors.js';

export interface SigningKey {
  p12: Uint8Array;
  passphrase: string;
}

/** What a PKCS#12 file holds, as the operator sees it when importing it. */
export interface CertificateFacts {
  subject: string;
  notBefore: Date;
  notAfter: Date;
}

/** The certificate of a PKCS#12 file with a private key; a clear error when it is not one or the password is wrong. */
export function certificateOf(key: SigningKey): CertificateFacts {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(key.p12).toString('binary'))), key.passphrase);
  } catch (error) {
    const reason = /password|MAC/i.test((error as Error).message) ? 'the password is wrong' : 'it is not a PKCS#12 (.p12/.pfx) file';
    throw new InputError(`The signing certificate cannot be read: ${reason}.`);
  }
  const keyBag = forge.pki.oids.pkcs8ShroudedKeyBag!;
  const certBag = forge.pki.oids.certBag!;
  const keys = p12.getBags({ bagType: keyBag })[keyBag] ?? [];
  const certificates = p12.getBags({ bagType: certBag })[certBag] ?? [];
  const certificate = certificates[0]?.cert;
  if (!keys.length || !certificate) throw new InputError('The signing certificate file must hold a certificate and its private key.');
  const cn = certificate.subject.getField('CN') as { value?: string } | null;
  return {
    subject:
      cn?.value ??
      certificate.subject.attributes.map((a: forge.pki.CertificateField) => `${a.shortName ?? a.name}=${String(a.value)}`).join(', '),
    notBefore: certificate.validity.notBefore,
    notAfter: certificate.validity.notAfter,
  };
}

export interface SignOptions {
  /** A stamp on the last page naming the signer and the time; else the signature shows only in the reader's panel. */
  visible: boolean;
  reason: string;
  at?: Date;
}

const STAMP = { x: 36, y: 36, width: 240, height: 44 };

export async function signPdf(pdf: Uint8Array, key: SigningKey, options: SignOptions): Promise<Buffer> {
  const signer = certificateOf(key);
  const at = options.at ?? new Date();
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (error) {
    // A PDF sent to convert passes through: it may be encrypted or damaged.
    const why = /encrypt/i.test((error as Error).message) ? 'it is encrypted' : 'it cannot be read';
    throw new InputError(`This PDF cannot be signed: ${why}. Ask with signature=none.`);
  }
  const page = doc.getPage(doc.getPageCount() - 1);
  let widgetRect = [0, 0, 0, 0];
  if (options.visible) {
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const { x, y, width, height } = STAMP;
    page.drawRectangle({ x, y, width, height, borderColor: rgb(0.2, 0.3, 0.6), borderWidth: 0.8, color: rgb(0.95, 0.96, 1) });
    const lines = [`Digitally signed by ${signer.subject}`, `${at.toISOString().replace('T', ' ').slice(0, 19)} UTC`, options.reason];
    lines.forEach((line, i) =>
      page.drawText(line.slice(0, 60), { x: x + 6, y: y + height - 13 - i * 12, size: 8.5, font, color: rgb(0.1, 0.1, 0.2) }),
    );
    widgetRect = [x, y, x + width, y + height];
  }
  pdflibAddPlaceholder({
    pdfDoc: doc,
    pdfPage: page,
    reason: options.reason,
    contactInfo: '',
    name: signer.subject,
    location: '',
    signingTime: at,
    widgetRect,
    appName: 'docsmith',
  });
  const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
  return new SignPdf().sign(prepared, new P12Signer(Buffer.from(key.p12), { passphrase: key.passphrase }), at);
}
