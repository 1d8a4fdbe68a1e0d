/**
 * Signing PDF output with the operator's certificate (docsmith): the PKCS#12 file and its
 * password are kept in the database sealed with the master secret, like API keys; a request asks
 * with `signature=visible|invisible|none`, else the account's default applies. The signing itself
 * runs in a worker thread (formats/signature.ts).
 */
import type { KeyRing } from '../auth/apikeys.js';
import { InputError } from '../errors.js';
import { certificateOf, type CertificateFacts, type SigningKey } from '../formats/signature.js';
import type { Store } from '../store/types.js';
import type { DocumentWorkers } from '../workers/pool.js';

export const SIGNATURE_MODES = ['none', 'invisible', 'visible'] as const;
export type SignatureMode = (typeof SIGNATURE_MODES)[number];

export function isSignatureMode(value: string): value is SignatureMode {
  return (SIGNATURE_MODES as readonly string[]).includes(value);
}

const SETTING = 'pdf-signing';
const CACHE_MS = 60_000;

interface Stored {
  p12: string;
  passphrase: string;
  subject: string;
  notAfter: string;
}

export class PdfSigning {
  private cached: { key: SigningKey | null; expires: number } | undefined;

  constructor(
    private readonly store: Store,
    private readonly keyRing: KeyRing,
    private readonly workers: DocumentWorkers,
  ) {}

  /** Keeps the certificate (checked: a certificate with its key, the right password), sealed. */
  async import(p12: Buffer, passphrase: string): Promise<CertificateFacts> {
    const facts = certificateOf({ p12, passphrase });
    const stored: Stored = {
      p12: this.keyRing.seal(p12.toString('base64')),
      passphrase: this.keyRing.seal(passphrase),
      subject: facts.subject,
      notAfter: facts.notAfter.toISOString(),
    };
    await this.store.settings.set(SETTING, JSON.stringify(stored));
    this.cached = undefined;
    return facts;
  }

  /** Who signs and until when, or null when no certificate is kept. */
  async certificate(): Promise<{ subject: string; notAfter: Date } | null> {
    const text = await this.store.settings.get(SETTING);
    if (!text) return null;
    const stored = JSON.parse(text) as Stored;
    return { subject: stored.subject, notAfter: new Date(stored.notAfter) };
  }

  async remove(): Promise<boolean> {
    this.cached = undefined;
    return this.store.settings.delete(SETTING);
  }

  private async key(): Promise<SigningKey | null> {
    if (this.cached && this.cached.expires > Date.now()) return this.cached.key;
    const text = await this.store.settings.get(SETTING);
    let key: SigningKey | null = null;
    if (text) {
      const stored = JSON.parse(text) as Stored;
      const p12 = this.keyRing.open(stored.p12);
      const passphrase = this.keyRing.open(stored.passphrase);
      if (p12 === null || passphrase === null)
        throw new InputError('The signing certificate was sealed with another master secret; the operator imports it again.');
      key = { p12: Buffer.from(p12, 'base64'), passphrase };
    }
    // Only a certificate is remembered: one imported meanwhile is used at the next request.
    this.cached = key ? { key, expires: Date.now() + CACHE_MS } : undefined;
    return key;
  }

  /** The PDFs signed as `mode` asks (none: as they are); 400 when this server has no certificate. */
  async sign(pdfs: Buffer[], mode: SignatureMode, signal?: AbortSignal): Promise<Buffer[]> {
    if (mode === 'none') return pdfs;
    const key = await this.key();
    if (!key)
      throw new InputError(
        'This server has no certificate to sign PDFs with; the operator imports one (docsmith signing import), or ask with signature=none.',
      );
    const reason = 'Issued by docsmith';
    return Promise.all(pdfs.map((pdf) => this.workers.signPdf(pdf, key, { visible: mode === 'visible', reason }, signal)));
  }
}
