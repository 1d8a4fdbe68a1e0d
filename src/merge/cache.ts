import { createHash } from 'node:crypto';
import { CompiledTemplate } from './engine.js';

/** Compiled templates by content hash, so a stored template is parsed once, not per merge. */
export class TemplateCache {
  private readonly entries = new Map<string, CompiledTemplate>();

  constructor(private readonly maxEntries = 64) {}

  get(docx: Buffer, what?: string): CompiledTemplate {
    const key = createHash('sha256').update(docx).digest('hex');
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const compiled = CompiledTemplate.compile(docx, what);
    this.entries.set(key, compiled);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return compiled;
  }

  get size(): number {
    return this.entries.size;
  }
}
