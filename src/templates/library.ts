import { createHash } from 'node:crypto';
import type { Account, Store, TemplateMeta, TemplateRecord, TemplateVersionMeta } from '../store/types.js';
import { ForbiddenError, InputError } from '../errors.js';
import { formatsIn, detectFormat, FORMAT_NAMES, TEMPLATE_FORMATS, type DocumentFormat } from '../formats/detect.js';
import { checkTemplateName, normalName } from './names.js';
import { TemplateBytesCache } from './cache.js';
import { diffTemplates, type TemplateDiff } from './diff.js';
import type { TemplateInfo } from '../merge/info.js';

/** Formats a template may be stored in. */

/** The account's storage quota as the library asks it (accounts/storage.ts StorageQuota). */
export interface TemplateQuota {
  readonly limitBytes: number;
  check(accountId: number, adding: number, replacing?: number): Promise<void>;
  used(accountId: number): Promise<number>;
}

/** An account's template storage: validated names, formats read from the bytes, the quota. */
export class TemplateLibrary {
  private readonly cache = new TemplateBytesCache();

  constructor(
    private readonly store: Store,
    private readonly quota?: TemplateQuota,
    /** Earlier versions kept when a template is replaced (DOCSMITH_TEMPLATE_VERSIONS). */
    private readonly keepVersions = 0,
  ) {}

  /**
   * Stores a template after checking its name and format; `validate` (the document pipeline's
   * reader) refuses content no operation could use before anything is stored.
   */
  async upload(
    account: Account,
    raw: string,
    data: Buffer,
    validate?: (name: string) => Promise<void>,
    syntax = 'word',
  ): Promise<'created' | 'replaced'> {
    const name = checkTemplateName(raw);
    const detected = detectFormat(data);
    if (!detected.ok) throw new InputError(`The template "${name}" cannot be stored: ${formatsIn(detected.message, TEMPLATE_FORMATS)}`);
    if (!(TEMPLATE_FORMATS as readonly DocumentFormat[]).includes(detected.format)) {
      throw new InputError(
        `The template "${name}" is a ${FORMAT_NAMES[detected.format]} document; templates must be DOCX, DOC, RTF or TX.`,
      );
    }
    await validate?.(name);
    return this.put(account, name, detected.format, data, syntax);
  }

  /**
   * How many earlier versions a replacement keeps: up to the setting, as far as the account's
   * storage allows. Earlier versions are given up, oldest first, before the upload is refused.
   */
  private async versionsToKeep(account: Account, name: string, size: number): Promise<number> {
    const current = await this.store.templates.meta(account.id, name);
    if (!this.quota) return this.keepVersions;
    if (!current || this.keepVersions === 0) {
      await this.quota.check(account.id, size, current?.size ?? 0);
      return this.keepVersions;
    }
    const earlier = (await this.store.templates.versions(account.id, name)).filter((v) => !v.current);
    const earlierBytes = earlier.reduce((sum, v) => sum + v.size, 0);
    await this.quota.check(account.id, size, current.size + earlierBytes);
    let room = this.quota.limitBytes - ((await this.quota.used(account.id)) - current.size - earlierBytes + size);
    let keep = 0;
    for (const version of [current, ...earlier].slice(0, this.keepVersions)) {
      if (version.size > room) break;
      room -= version.size;
      keep++;
    }
    return keep;
  }

  private async put(account: Account, name: string, format: string, data: Buffer, syntax: string): Promise<'created' | 'replaced'> {
    const keep = await this.versionsToKeep(account, name, data.length);
    const sha256 = createHash('sha256').update(data).digest('hex');
    const result = await this.store.templates.put(account.id, { name, format, sha256, data, syntax }, account.maxTemplates, keep);
    if (result === 'limit') {
      throw new ForbiddenError(
        `The template quota of this account is used up (${account.maxTemplates} templates); delete one or replace an existing name.`,
        'templates',
      );
    }
    // Links showed the old content; they end with it.
    if (result === 'replaced') await this.store.shareLinks.revokeForTemplate(account.id, name);
    return result;
  }

  /**
   * The stored template; 400 when it does not exist, as the API prescribes. `current` is what the
   * work's claim read of it (null: none of that name): then the bytes come from this instance's
   * cache when it holds that version.
   */
  async require(account: Account, raw: string, current?: TemplateMeta | null): Promise<TemplateRecord> {
    const name = normalName(raw);
    if (current === null) return missing(name);
    const cached = current && this.cache.get(account.id, name, current.sha256);
    if (current && cached) return { ...current, data: cached };
    const record = (await this.store.templates.get(account.id, name)) ?? missing(name);
    this.cache.put(account.id, name, record.sha256, record.data);
    return record;
  }

  /**
   * The stored template a request names: the one resolver for every kind of work. Its current
   * version (`current` as in require), or `version` when one is asked for; a request without an
   * account (a share link's) can name none. `what` names it in messages.
   */
  async resolve(
    account: Account | null,
    raw: string,
    { current, version }: { current?: TemplateMeta | null; version?: number } = {},
  ): Promise<TemplateRecord & { what: string }> {
    const name = normalName(raw);
    if (!account) throw new InputError(`No stored template can be named here ("${name}"); give the template's file.`);
    if (version !== undefined)
      return { ...(await this.requireVersion(account, name, version)), what: `The template "${name}" (version ${version})` };
    return { ...(await this.require(account, name, current)), what: `The template "${name}"` };
  }

  /** What require checks, without reading the template's bytes. */
  async requireMeta(account: Account, raw: string): Promise<TemplateMeta> {
    const name = normalName(raw);
    return (await this.store.templates.meta(account.id, name)) ?? missing(name);
  }

  /** One version of a stored template, current or kept; 400 naming the versions there are. */
  async requireVersion(account: Account, raw: string, version: number): Promise<TemplateRecord> {
    const name = normalName(raw);
    const record = await this.store.templates.getVersion(account.id, name, version);
    if (record) return record;
    const versions = await this.versions(account, name);
    throw new InputError(
      `The template "${name}" has no version ${version}; it has ${versions.map((v) => v.version).join(', ')} (GET /v1/templates/versions).`,
    );
  }

  /** The current version and the earlier ones kept, newest first; 400 when there is no such template. */
  async versions(account: Account, raw: string): Promise<TemplateVersionMeta[]> {
    const name = normalName(raw);
    const versions = await this.store.templates.versions(account.id, name);
    return versions.length ? versions : missing(name);
  }

  /**
   * The merge fields and blocks added and removed from version `from` to `to` (default: the
   * current one); `infoOf` reads a version's template information (the caller's door).
   */
  async diff(
    account: Account,
    raw: string,
    from: number,
    to: number | undefined,
    infoOf: (version: TemplateRecord) => Promise<Pick<TemplateInfo, 'mergeFields' | 'mergeBlocks'>>,
  ): Promise<TemplateDiff & { from: number; to: number }> {
    const target = to ?? (await this.versions(account, raw))[0]!.version;
    const [a, b] = await Promise.all([from, target].map(async (v) => infoOf(await this.requireVersion(account, raw, v))));
    return { from, to: target, ...diffTemplates(a!, b!) };
  }

  /** Makes an earlier version current again, as a new version (the history stays); its number. */
  async rollback(account: Account, raw: string, version: number): Promise<number> {
    const name = normalName(raw);
    const earlier = await this.requireVersion(account, name, version);
    await this.put(account, name, earlier.format, earlier.data, earlier.syntax);
    return (await this.store.templates.meta(account.id, name))?.version ?? version;
  }

  async exists(account: Account, name: string): Promise<boolean> {
    return (await this.store.templates.meta(account.id, normalName(name))) !== null;
  }

  list(account: Account): Promise<TemplateMeta[]> {
    return this.store.templates.list(account.id);
  }

  count(account: Account): Promise<number> {
    return this.store.templates.count(account.id);
  }

  async delete(account: Account, raw: string): Promise<void> {
    const name = normalName(raw);
    if (!(await this.store.templates.delete(account.id, name))) {
      throw new InputError(`There is no template named "${name}" in this account's storage.`);
    }
    await this.store.shareLinks.revokeForTemplate(account.id, name);
  }
}

function missing(name: string): never {
  throw new InputError(`There is no template named "${name}" in this account's storage.`);
}
