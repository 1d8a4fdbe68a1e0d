/**
 * A store whose template bytes and job results live in object storage: each is written to a key
 * of its own before the database row that points to it is committed, so a row never points to
 * nothing; the database keeps the metadata and `docsmith-object:<key>`. Objects no row points to
 * any more (a version given up, a job expired, a write whose row was refused or lost) are removed
 * by `sweep`, once older than any write still in flight.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectStorage } from './objects.js';
import { OBJECT_POINTER, type JobRepository, type Store, type StoreHealth, type TemplateRecord, type TemplateRepository } from './types.js';

const POINTER = Buffer.from(OBJECT_POINTER);

/** The object key a stored value points to, or undefined when the value is the bytes themselves. */
function keyOf(value: Buffer | null, size?: number): string | undefined {
  if (!value || value.length > 1024 || !value.subarray(0, POINTER.length).equals(POINTER)) return undefined;
  // A template's own bytes that happen to start so are as long as its size; a pointer is not.
  if (size !== undefined && value.length === size) return undefined;
  return value.subarray(POINTER.length).toString('utf8');
}

const pointerTo = (key: string) => Buffer.concat([POINTER, Buffer.from(key, 'utf8')]);

/** `inner` with some methods replaced; the rest answer as before. */
function delegate<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof T];
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export interface ObjectBackedStore extends Store {
  /** Removes objects under the prefix that no row points to and that are older than `graceMs`; how many. */
  sweep(graceMs?: number): Promise<number>;
}

export function withObjectStorage(store: Store, objects: ObjectStorage): ObjectBackedStore {
  const resolve = async <T extends TemplateRecord | null>(record: T): Promise<T> => {
    const key = record && keyOf(record.data, record.size);
    return key ? { ...record, data: await objects.get(key) } : record;
  };
  const forget = (keys: (string | undefined)[]) =>
    // Best effort: what is left behind is swept.
    Promise.all(keys.filter((k): k is string => k !== undefined).map((k) => objects.delete(k).catch(() => undefined)));

  const inner = store.templates;
  const templates = delegate<TemplateRepository>(inner, {
    async put(accountId, template, maxTemplates, keepVersions) {
      const key = `${objects.prefix}templates/${accountId}/${randomUUID()}`;
      await objects.put(key, template.data);
      const result = await inner.put(
        accountId,
        { ...template, data: pointerTo(key), size: template.data.length },
        maxTemplates,
        keepVersions,
      );
      if (result === 'limit') await forget([key]);
      return result;
    },
    get: async (accountId, name) => resolve(await inner.get(accountId, name)),
    getVersion: async (accountId, name, version) => resolve(await inner.getVersion(accountId, name, version)),
    async delete(accountId, name) {
      const versions = await inner.versions(accountId, name);
      const stored = await Promise.all(versions.map((v) => inner.getVersion(accountId, name, v.version)));
      const deleted = await inner.delete(accountId, name);
      if (deleted) await forget(stored.map((r) => (r ? keyOf(r.data, r.size) : undefined)));
      return deleted;
    },
  });

  const jobs = delegate<JobRepository>(store.jobs, {
    async finish(id, holder, outcome, retainMs) {
      if (!('result' in outcome)) return store.jobs.finish(id, holder, outcome, retainMs);
      const key = `${objects.prefix}jobs/${id}/${randomUUID()}`;
      await objects.put(key, outcome.result);
      const finished = await store.jobs.finish(id, holder, { result: pointerTo(key) }, retainMs);
      if (!finished) await forget([key]);
      return finished;
    },
    async result(accountId, id) {
      const value = await store.jobs.result(accountId, id);
      const key = keyOf(value);
      return key ? objects.get(key) : value;
    },
    async delete(accountId, id) {
      const key = keyOf(await store.jobs.result(accountId, id));
      const deleted = await store.jobs.delete(accountId, id);
      if (deleted) await forget([key]);
      return deleted;
    },
  });

  return delegate<ObjectBackedStore>(store as ObjectBackedStore, {
    templates,
    jobs,
    async ping(): Promise<StoreHealth> {
      const [health] = await Promise.all([store.ping(), objects.ping()]);
      return health;
    },
    async sweep(graceMs = 60 * 60_000) {
      // Listed first: an object written after the list cannot be taken for garbage.
      const listed = await objects.list();
      const kept = new Set((await store.objectPointers()).map((p) => p.slice(OBJECT_POINTER.length)));
      const cutoff = Date.now() - graceMs;
      const garbage = listed.filter((o) => !kept.has(o.key) && o.modifiedAt.getTime() < cutoff).map((o) => o.key);
      await forget(garbage);
      return garbage.length;
    },
  });
}
