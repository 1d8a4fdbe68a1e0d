import { countLookup } from '../util/cacheStats.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { DocumentFormat } from '../formats/detect.js';
import type { Converter } from './converter.js';

/**
 * Document operations work on OOXML only. DOC, RTF and HTML are converted to DOCX once per
 * content hash; the result is kept in memory and on disk (so restarts and other instances with
 * the same data folder reuse it).
 */
export class Normaliser {
  private readonly memory: LRUCache<string, Buffer>;
  private readonly inFlight = new Map<string, Promise<Buffer>>();
  private writes = 0;

  constructor(
    private readonly converter: Converter,
    private readonly cacheDir: string,
    private readonly limits = { memoryEntries: 64, diskEntries: 2000 },
  ) {
    this.memory = new LRUCache({ max: limits.memoryEntries });
  }

  async toDocx(bytes: Buffer, format: Exclude<DocumentFormat, 'pdf' | 'xlsx'>, signal?: AbortSignal): Promise<Buffer> {
    if (format === 'docx') return bytes;
    const key = createHash('sha256').update(format).update('\0').update(bytes).digest('hex');
    const hit = this.memory.get(key);
    countLookup('normalised', hit !== undefined);
    if (hit) return hit;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.load(key, bytes, format, signal).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async load(key: string, bytes: Buffer, format: DocumentFormat, signal?: AbortSignal): Promise<Buffer> {
    const file = path.join(this.cacheDir, `${key}.docx`);
    let docx: Buffer | null = await fs.readFile(file).catch(() => null);
    if (!docx) {
      docx = (await this.converter.convert(bytes, format, 'docx', { signal })).data;
      await this.store(file, docx);
    }
    this.memory.set(key, docx);
    return docx;
  }

  private async store(file: string, docx: Buffer): Promise<void> {
    await fs.mkdir(this.cacheDir, { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(temp, docx);
    await fs.rename(temp, file);
    if (++this.writes % 100 === 0) await this.trim();
  }

  /** Keeps the newest `diskEntries` files. */
  private async trim(): Promise<void> {
    const names = (await fs.readdir(this.cacheDir)).filter((n) => n.endsWith('.docx'));
    if (names.length <= this.limits.diskEntries) return;
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await fs.stat(path.join(this.cacheDir, n))).mtimeMs })));
    dated.sort((a, b) => a.t - b.t);
    await Promise.all(
      dated.slice(0, names.length - this.limits.diskEntries).map((d) => fs.rm(path.join(this.cacheDir, d.n), { force: true })),
    );
  }
}
