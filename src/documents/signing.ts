/**
 * Signing PDF output (docsmith). Signing is a grant: no account may sign until the operator grants
 * it (`docsmith account update --signing grant`). A granted account signs with a certificate of
 * its own when the operator imported one for it, else with the server's. The PKCS#12 files and
 * their passwords are kept in the database sealed with the master secret, like API keys; a request
 * asks with `signature=visible|invisible|none`, else the account's default applies. Everything
 * that refuses is decided before any work (`prepare`); the signing itself runs in a worker thread
 * (formats/signature.ts).
 */
import type { KeyRing } from '../auth/apikeys.js';
import { ForbiddenError, InputError } from '../errors.js';
import { certificateOf, type CertificateFacts, type SigningKey } from '../formats/signature.js';
import type { Account, Store } from '../store/types.js';
import type { DocumentWorkers } from '../workers/pool.js';

export const SIGNATURE_MODES = ['none', 'invisible', 'visible'] as const;
export type SignatureMode = (typeof SIGNATURE_MODES)[number];

export function isSignatureMode(value: string): value is SignatureMode {
  return (SIGNATURE_MODES as readonly string[]).includes(value);
}

const SETTING = 'pdf-signing';
const CACHE_MS = 60_000;

/** The setting that keeps a certificate: the server's, or one account's. */
function settingOf(accountId?: number): string {
  return accountId === undefined ? SETTING : `${SETTING}:account:${accountId}`;
}

interface Stored {
  p12: string;
  passphrase: string;
  subject: string;
  notAfter: string;
}

/** What a request's PDFs are signed with, decided before its work. */
export interface SigningPlan {
  mode: Exclude<SignatureMode, 'none'>;
  key: SigningKey;
  subject: string;
}

/** What of a request signing depends on. */
export interface SigningAsk {
  /** The request's `signature`, if it gave one. */
  signature?: SignatureMode;
  /** The output is PDF or PDF/A. */
  pdf: boolean;
  /** The output gets a password (a signed PDF cannot have one). */
  password: boolean;
}

/** The mode a request asks for: its own, else the account's default when it may sign, else none. */
export function signatureModeOf(account: Account | null, ask: SigningAsk): SignatureMode {
  if (!ask.pdf) return 'none';
  if (ask.signature !== undefined) return ask.signature;
  return account?.signingGrant && isSignatureMode(account.pdfSignature) ? account.pdfSignature : 'none';
}

export class PdfSigning {
  private readonly cached = new Map<string, { key: SigningKey; subject: string; expires: number }>();

  constructor(
    private readonly store: Store,
    private readonly keyRing: KeyRing,
    private readonly workers: DocumentWorkers,
  ) {}

  /** Keeps the certificate (checked: a certificate with its key, the right password), sealed: the server's, or an account's own. */
  async import(p12: Buffer, passphrase: string, accountId?: number): Promise<CertificateFacts> {
    const facts = certificateOf({ p12, passphrase });
    const stored: Stored = {
      p12: this.keyRing.seal(p12.toString('base64')),
      passphrase: this.keyRing.seal(passphrase),
      subject: facts.subject,
      notAfter: facts.notAfter.toISOString(),
    };
    await this.store.settings.set(settingOf(accountId), JSON.stringify(stored));
    this.cached.clear();
    return facts;
  }

  /** Who signs and until when, or null when no certificate is kept (the server's, or the account's own). */
  async certificate(accountId?: number): Promise<{ subject: string; notAfter: Date } | null> {
    const text = await this.store.settings.get(settingOf(accountId));
    if (!text) return null;
    const stored = JSON.parse(text) as Stored;
    return { subject: stored.subject, notAfter: new Date(stored.notAfter) };
  }

  async remove(accountId?: number): Promise<boolean> {
    this.cached.clear();
    return this.store.settings.delete(settingOf(accountId));
  }

  /** The key an account signs with: its own certificate, else the server's; null when neither is kept. */
  private async key(accountId: number | undefined): Promise<{ key: SigningKey; subject: string } | null> {
    for (const setting of accountId === undefined ? [SETTING] : [settingOf(accountId), SETTING]) {
      const hit = this.cached.get(setting);
      if (hit && hit.expires > Date.now()) return hit;
      const text = await this.store.settings.get(setting);
      if (!text) continue;
      const stored = JSON.parse(text) as Stored;
      const p12 = this.keyRing.open(stored.p12);
      const passphrase = this.keyRing.open(stored.passphrase);
      if (p12 === null || passphrase === null)
        throw new InputError('The signing certificate was sealed with another master secret; the operator imports it again.');
      // Only a certificate is remembered: one imported meanwhile is used at the next request.
      const found = { key: { p12: Buffer.from(p12, 'base64'), passphrase }, subject: stored.subject, expires: Date.now() + CACHE_MS };
      this.cached.set(setting, found);
      return found;
    }
    return null;
  }

  /**
   * What a request's PDFs will be signed with, or null when they are not signed; refuses before
   * any work: 403 for an account without the grant, 400 for a PDF with a password or a server
   * without a certificate. `account` null: the operator's own work (the CLI), always allowed.
   */
  async prepare(account: Account | null, ask: SigningAsk): Promise<SigningPlan | null> {
    const mode = signatureModeOf(account, ask);
    if (mode === 'none') return null;
    if (account && !account.signingGrant)
      throw new ForbiddenError(
        `This account may not sign PDFs (signature=${mode}): signing is granted per account by the operator. Ask with signature=none, or ask the operator for the grant.`,
      );
    if (ask.password) throw new InputError('A password-protected PDF cannot be signed; leave out the password or ask with signature=none.');
    const found = await this.key(account?.id);
    if (!found)
      throw new InputError(
        'This server has no certificate to sign PDFs with; the operator imports one (docsmith signing import), or ask with signature=none.',
      );
    return { mode, key: found.key, subject: found.subject };
  }

  /** The PDFs signed as planned. */
  sign(pdfs: Buffer[], plan: SigningPlan, signal?: AbortSignal): Promise<Buffer[]> {
    const reason = 'Issued by docsmith';
    return Promise.all(pdfs.map((pdf) => this.workers.signPdf(pdf, plan.key, { visible: plan.mode === 'visible', reason }, signal)));
  }
}
