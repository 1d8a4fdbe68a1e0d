/**
 * Job callbacks: where they may go (an allow-list; no internal address by default), how they are
 * signed (HMAC-SHA256 with a per-account secret) and how one delivery attempt is made.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { createHash, createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { ConfigError } from '../config.js';
import { InputError } from '../errors.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** `public`, `none`, an address, a CIDR range, a host name or `*.domain`. */
type Entry =
  { kind: 'public' } | { kind: 'range'; range: [Address, number] } | { kind: 'host'; name: string } | { kind: 'domain'; suffix: string };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Addresses as the policy compares them: IPv4-mapped IPv6 is IPv4. */
function parseAddress(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  const address = ipaddr.process(bare);
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated): judged as the IPv4 address it carries.
  if (address.kind() === 'ipv6') {
    const parts = (address as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) {
      return ipaddr.fromByteArray([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
    }
  }
  return address;
}

export class CallbackPolicy {
  private readonly entries: Entry[];

  /** `entries` from DOCSMITH_CALLBACK_ALLOW; a mistake there stops the start. */
  constructor(entries: readonly string[]) {
    this.entries = entries
      .filter((e) => e.toLowerCase() !== 'none')
      .map((raw): Entry => {
        const entry = raw.toLowerCase();
        if (entry === 'public') return { kind: 'public' };
        if (entry.includes('/')) {
          try {
            return { kind: 'range', range: ipaddr.parseCIDR(entry) };
          } catch {
            throw new ConfigError(`DOCSMITH_CALLBACK_ALLOW: "${raw}" is not a valid CIDR range`);
          }
        }
        const address = parseAddress(entry);
        if (address) return { kind: 'range', range: [address, address.kind() === 'ipv4' ? 32 : 128] };
        if (entry.startsWith('*.') && HOST_NAME.test(entry.slice(2))) return { kind: 'domain', suffix: entry.slice(1) };
        if (HOST_NAME.test(entry)) return { kind: 'host', name: entry };
        throw new ConfigError(`DOCSMITH_CALLBACK_ALLOW: "${raw}" is neither "public", "none", an address, a CIDR range nor a host name`);
      });
  }

  get enabled(): boolean {
    return this.entries.length > 0;
  }

  private namedHost(host: string): boolean {
    const name = host.toLowerCase();
    return this.entries.some((e) => (e.kind === 'host' && e.name === name) || (e.kind === 'domain' && name.endsWith(e.suffix)));
  }

  /** Whether a callback to `host` may connect to `address`. */
  allows(host: string, address: string): boolean {
    if (this.namedHost(host)) return true;
    const parsed = parseAddress(address);
    if (!parsed) return false;
    return this.entries.some((e) => {
      if (e.kind === 'public') return parsed.range() === 'unicast';
      if (e.kind === 'range') return parsed.kind() === e.range[0].kind() && parsed.match(e.range);
      return false;
    });
  }

  /** The URL, checked when the job is submitted (the addresses are checked again at each delivery). */
  async check(raw: string): Promise<URL> {
    if (!this.enabled)
      throw new InputError('Callbacks are turned off on this server (DOCSMITH_CALLBACK_ALLOW=none); poll the job instead.');
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InputError(`callbackUrl "${raw}" is not a URL; send an absolute http:// or https:// address.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new InputError(`callbackUrl must be an http:// or https:// address, not ${url.protocol}`);
    if (url.username || url.password)
      throw new InputError('callbackUrl must not carry a user name or password; check the X-Docsmith-Signature header instead.');
    if (raw.length > 2000) throw new InputError('callbackUrl is longer than 2000 characters.');
    const host = url.hostname;
    const addresses = parseAddress(host)
      ? [parseAddress(host)!.toString()]
      : await resolve(host).catch(() => {
          throw new InputError(`callbackUrl: the host "${host}" does not resolve.`);
        });
    if (!addresses.some((a) => this.allows(host, a))) {
      throw new InputError(
        `callbackUrl: "${host}" is not an address this server may call (internal addresses are refused; the operator's DOCSMITH_CALLBACK_ALLOW lists what is allowed).`,
      );
    }
    return url;
  }

  /** A DNS lookup that only returns addresses the policy allows for the host (no rebinding to internal ones). */
  lookup(): net.LookupFunction {
    return (hostname, options, callback) => {
      dns.lookup(hostname, { all: true, family: options.family as number | undefined }, (error, found) => {
        if (error) return callback(error, '', 0);
        const allowed = found.filter((a) => this.allows(hostname, a.address));
        if (allowed.length === 0)
          return callback(
            Object.assign(new Error(`${hostname} resolves only to addresses callbacks may not reach`), { code: 'EACCES' }),
            '',
            0,
          );
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, allowed);
        callback(null, allowed[0]!.address, allowed[0]!.family);
      });
    };
  }
}

async function resolve(host: string): Promise<string[]> {
  return (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
}

/** The account's callback signing secret: derived, so nothing more is stored, and per account. */
export function callbackSecret(masterSecret: string, accountId: number): string {
  return createHmac('sha256', createHash('sha256').update('docsmith callback signing\0').update(masterSecret, 'utf8').digest())
    .update(String(accountId))
    .digest('base64url');
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as the receiver recomputes it. */
export function signCallback(secret: string, body: string, at = Date.now()): string {
  const t = Math.floor(at / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * One POST of the payload; resolves on a 2xx answer, rejects with what went wrong. `timeoutMs`
 * bounds the whole attempt (connecting, sending, the answer's head): a receiver that answers
 * slowly, byte by byte, is cut off like one that does not answer. Its body is never read.
 */
export function postCallback(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: CallbackPolicy,
  timeoutMs: number,
): Promise<void> {
  const target = new URL(url);
  const literal = parseAddress(target.hostname);
  if (literal && !policy.allows(target.hostname, literal.toString())) return Promise.reject(new Error('the address is not allowed'));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'docsmith-callback',
          ...headers,
        },
        lookup: policy.lookup(),
        agent: false,
      },
      (response) => {
        clearTimeout(deadline);
        const status = response.statusCode ?? 0;
        response.on('error', () => undefined); // cut off below, by design
        request.destroy(); // the answer's body does not matter: do not wait for it
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`HTTP ${status}`));
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.end(body);
  });
}
