import { countLookup } from '../util/cacheStats.js';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { CompiledTemplate } from './engine.js';

/** Compiled templates by content hash, so a stored template is parsed once, not per merge. */
export class TemplateCache {
  private readonly entries: LRUCache<string, CompiledTemplate>;

  constructor(maxEntries = 64) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(docx: Buffer, what?: string): CompiledTemplate {
    const key = createHash('sha256').update(docx).digest('hex');
    const hit = this.entries.get(key);
    countLookup('templates', hit !== undefined);
    if (hit) return hit;
    const compiled = CompiledTemplate.compile(docx, what);
    this.entries.set(key, compiled);
    return compiled;
  }

  get size(): number {
    return this.entries.size;
  }
}
