import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SharePayload {
  /** Account id. */
  a: number;
  /** Template name. */
  n: string;
  /** The template's content hash when shared: replacing the template ends the link. */
  h: string;
}

/**
 * Share tokens: the payload and an HMAC of it under a key derived from the master secret.
 * Unguessable and tamper-proof; revoked by deleting or replacing the template.
 */
export class ShareTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', 'docsmith share tokens').update(secret).digest();
  }

  sign(payload: SharePayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The payload of a genuine token, or null. */
  verify(token: string): SharePayload | null {
    const [body, mac] = token.split('.');
    if (!body || !mac || token.length > 2048) return null;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SharePayload;
      return typeof payload.a === 'number' && typeof payload.n === 'string' && typeof payload.h === 'string' ? payload : null;
    } catch {
      return null;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
