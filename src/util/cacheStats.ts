/**
 * Hits and misses of the caches, by cache name, for /metrics. The counters live in shared memory
 * so the worker threads (compiled templates are cached there) count into the same place as the
 * main thread: a pool hands its threads `sharedCacheCounters()`, each thread calls
 * `useSharedCacheCounters` with it.
 */
export const CACHES = ['templates', 'normalised', 'pdfs'] as const;
export type CacheName = (typeof CACHES)[number];

let counters = new BigInt64Array(new SharedArrayBuffer(CACHES.length * 2 * BigInt64Array.BYTES_PER_ELEMENT));

export function sharedCacheCounters(): SharedArrayBuffer {
  return counters.buffer as SharedArrayBuffer;
}

export function useSharedCacheCounters(buffer: SharedArrayBuffer): void {
  counters = new BigInt64Array(buffer);
}

export function countLookup(cache: CacheName, hit: boolean): void {
  Atomics.add(counters, CACHES.indexOf(cache) * 2 + (hit ? 0 : 1), 1n);
}

export function cacheLookups(): ReadonlyMap<CacheName, { hits: number; misses: number }> {
  return new Map(
    CACHES.map((cache, i) => [cache, { hits: Number(Atomics.load(counters, i * 2)), misses: Number(Atomics.load(counters, i * 2 + 1)) }]),
  );
}
