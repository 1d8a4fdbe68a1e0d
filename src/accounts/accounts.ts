import { INVISIBLE, normalName } from '../templates/names.js';
import { isScope, SCOPES, type Scope } from '../auth/scopes.js';
import type { Account, AccountPatch, ApiKeyRecord, Store } from '../store/types.js';
import { DuplicateError } from '../store/types.js';
import { InputError } from '../errors.js';
import { hashPassword } from '../auth/passwords.js';
import { generateApiKey, hashApiKey, type KeyRing } from '../auth/apikeys.js';
import { licenceDefaults, normaliseLicence } from './licence.js';
import type { SampleTemplate } from './samples.js';

/** What an operator may set on an account (CLI, bootstrap). */
export interface AccountInput {
  password?: string;
  licence?: string;
  maxDocuments?: number;
  maxTemplates?: number;
  maxProofingTransactions?: number;
  /** null: no end. */
  validUntil?: Date | null;
}

const USERNAME = /^[^\s:]{1,128}$/;

function checkPassword(password: string): void {
  if (password.length < 8 || password.length > 1024) throw new InputError('password must have 8 to 1024 characters');
}

function checkCount(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > Number.MAX_SAFE_INTEGER)) {
    throw new InputError(`${name} must be a whole number of at least 0`);
  }
}

/** Account administration shared by the CLI and the bootstrap on start. */
export class AccountAdmin {
  /** @param samples templates every new account gets (DOCSMITH_SAMPLE_TEMPLATES). */
  constructor(
    private readonly store: Store,
    private readonly samples: readonly SampleTemplate[] = [],
  ) {}

  async create(username: string, input: AccountInput & { password: string }): Promise<Account> {
    if (!USERNAME.test(username)) throw new InputError('user name must be 1-128 characters without spaces or colons');
    checkPassword(input.password);
    checkCount('maxDocuments', input.maxDocuments);
    checkCount('maxTemplates', input.maxTemplates);
    checkCount('maxProofingTransactions', input.maxProofingTransactions);
    const licence = normaliseLicence(input.licence ?? 'TRIAL');
    const limits = licenceDefaults(licence);
    const validUntil =
      input.validUntil !== undefined
        ? input.validUntil
        : limits.validDays === null
          ? null
          : new Date(Date.now() + limits.validDays * 86_400_000);
    let account: Account;
    try {
      account = await this.store.accounts.create({
        username,
        passwordHash: await hashPassword(input.password),
        licence,
        maxDocuments: input.maxDocuments ?? limits.maxDocuments,
        maxTemplates: input.maxTemplates ?? limits.maxTemplates,
        maxProofingTransactions: input.maxProofingTransactions ?? limits.maxProofingTransactions,
        validUntil,
      });
    } catch (error) {
      if (error instanceof DuplicateError) throw new InputError(`an account named "${username}" exists already`);
      throw error;
    }
    for (const sample of this.samples) await this.store.templates.put(account.id, sample, account.maxTemplates);
    return account;
  }

  /** Creates the account unless it exists (safe when several instances start at once). */
  async ensure(username: string, password: string, licence: string): Promise<boolean> {
    if (await this.store.accounts.byUsername(username)) return false;
    try {
      await this.create(username, { password, licence });
      return true;
    } catch (error) {
      if (error instanceof InputError && (await this.store.accounts.byUsername(username))) return false;
      throw error;
    }
  }

  async update(username: string, input: AccountInput): Promise<Account> {
    const account = await this.require(username);
    checkCount('maxDocuments', input.maxDocuments);
    checkCount('maxTemplates', input.maxTemplates);
    checkCount('maxProofingTransactions', input.maxProofingTransactions);
    const patch: AccountPatch = {
      maxDocuments: input.maxDocuments,
      maxTemplates: input.maxTemplates,
      maxProofingTransactions: input.maxProofingTransactions,
      validUntil: input.validUntil,
    };
    if (input.licence !== undefined) patch.licence = normaliseLicence(input.licence);
    if (input.password !== undefined) {
      checkPassword(input.password);
      patch.passwordHash = await hashPassword(input.password);
    }
    return (await this.store.accounts.update(account.id, patch))!;
  }

  /** Grants or revokes signing; revoking takes the account's signing default with it (nothing is signed behind the operator's back). */
  async setSigningGrant(username: string, granted: boolean): Promise<Account> {
    const account = await this.require(username);
    const patch: AccountPatch = granted ? { signingGrant: true } : { signingGrant: false, pdfSignature: 'none' };
    return (await this.store.accounts.update(account.id, patch))!;
  }

  async delete(username: string): Promise<void> {
    const account = await this.require(username);
    await this.store.accounts.delete(account.id);
  }

  async require(username: string): Promise<Account> {
    const account = await this.store.accounts.byUsername(username);
    if (!account) throw new InputError(`no account named "${username}"`);
    return account;
  }
}

/** What an account's owner sees of a key: its label, its ends, when it was made and last used. */
export interface ApiKeyDetails {
  id: number;
  name: string;
  /** The key's first and last four characters. */
  masked: string;
  active: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  scope: Scope;
}

const MAX_KEY_NAME = 100;

/** A key's scope as asked for ('' or absent: full). */
export function keyScope(value: string | undefined): Scope {
  if (value === undefined || value === '') return 'full';
  if (isScope(value)) return value;
  throw new InputError(`An API key's scope is one of ${SCOPES.join(', ')}, not "${value}".`);
}

/**
 * A key's label: trimmed, in NFC, at most 100 characters, no control characters, no invisible
 * formatting characters (as template names: a right-to-left override makes one label read as
 * another), no markup characters (`<`, `>`: a label is shown in the portal and in audit logs).
 */
export function keyName(name: string): string {
  const trimmed = normalName(name.trim());
  if (trimmed.length > MAX_KEY_NAME) throw new InputError(`An API key's name has at most ${MAX_KEY_NAME} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new InputError("An API key's name cannot hold control characters (line breaks, tabs).");
  if (INVISIBLE.test(trimmed))
    throw new InputError(
      "An API key's name cannot hold invisible formatting characters (such as a right-to-left override or a zero-width space).",
    );
  if (/[<>]/.test(trimmed)) throw new InputError("An API key's name cannot hold < or >.");
  return trimmed;
}

/** An account's API keys: created, listed in clear for their owner, revoked. */
export class ApiKeys {
  constructor(
    private readonly store: Store,
    private readonly keyRing: KeyRing,
    private readonly maxKeys: number,
  ) {}

  /** The new key, or null when the account holds the maximum already. */
  async create(accountId: number, name = '', scope: Scope = 'full'): Promise<string | null> {
    const key = generateApiKey();
    const sealed = { keyHash: hashApiKey(key), keySealed: this.keyRing.seal(key), name: keyName(name), scope };
    const result = await this.store.apiKeys.add(accountId, sealed, this.maxKeys);
    return result === 'added' ? key : null;
  }

  /** The keys as their owner sees them after creation: masked, with label and dates. */
  async details(accountId: number): Promise<ApiKeyDetails[]> {
    return (await this.store.apiKeys.list(accountId)).map((r) => this.detailsOf(r));
  }

  /** One key as its owner sees it: only this key is opened. */
  private detailsOf(r: ApiKeyRecord): ApiKeyDetails {
    const key = this.keyRing.open(r.keySealed);
    return {
      id: r.id,
      name: r.name,
      masked: key ? `${key.slice(0, 4)}…${key.slice(-4)}` : 'unreadable',
      active: r.active,
      createdAt: r.createdAt,
      lastUsedAt: r.lastUsedAt,
      scope: isScope(r.scope) ? r.scope : 'read',
    };
  }

  /** The key renamed, as its owner sees it; null when the account has no key with this id. */
  async rename(accountId: number, id: number, name: string): Promise<ApiKeyDetails | null> {
    if (!(await this.store.apiKeys.rename(accountId, id, keyName(name)))) return null;
    const record = (await this.store.apiKeys.list(accountId)).find((r) => r.id === id);
    return record ? this.detailsOf(record) : null;
  }

  /** Revokes the account's key with this id: the key as it was, or null when there is none. */
  async revokeById(accountId: number, id: number): Promise<ApiKeyDetails | null> {
    const record = (await this.store.apiKeys.list(accountId)).find((r) => r.id === id);
    return record && (await this.store.apiKeys.delete(accountId, record.keyHash)) ? this.detailsOf(record) : null;
  }

  /** Keys sealed under another master secret cannot be shown; they are listed masked. */
  async list(accountId: number): Promise<{ key: string; active: boolean }[]> {
    const records = await this.store.apiKeys.list(accountId);
    return records.map((r) => ({ key: this.keyRing.open(r.keySealed) ?? `unreadable-${r.keyHash.slice(0, 12)}`, active: r.active }));
  }

  async revoke(accountId: number, key: string): Promise<boolean> {
    return this.store.apiKeys.delete(accountId, hashApiKey(key));
  }

  /**
   * Whether this instance's master secret is the one the stored keys were sealed with: false
   * when none of the newest keys opens (another DOCSMITH_SECRET or secret.key), null when there
   * are no keys to tell by.
   */
  async secretMatches(): Promise<boolean | null> {
    const keys = await this.store.apiKeys.sample(5);
    if (keys.length === 0) return null;
    return keys.some((k) => this.keyRing.open(k.keySealed) !== null);
  }
}
