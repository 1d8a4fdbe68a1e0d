/** Hits and misses of this thread's caches, by cache name, for /metrics. */
const lookups = new Map<string, { hits: number; misses: number }>();

export function countLookup(cache: string, hit: boolean): void {
  const entry = lookups.get(cache) ?? { hits: 0, misses: 0 };
  if (hit) entry.hits++;
  else entry.misses++;
  lookups.set(cache, entry);
}

export function cacheLookups(): ReadonlyMap<string, { hits: number; misses: number }> {
  return lookups;
}
