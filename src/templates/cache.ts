/**
 * Stored templates' bytes kept per instance, so a merge of a stored template does not read them
 * from the database each time. An entry is used only for the version the database names now (its
 * SHA-256, which the merge's claim reads in the same round trip), so a template replaced or
 * deleted through any instance is never served stale. Least recently used entries go first.
 */
export class TemplateBytesCache {
  private readonly entries = new Map<string, { sha256: string; data: Buffer }>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(accountId: number, name: string, sha256: string): Buffer | undefined {
    const key = `${accountId}\0${name}`;
    const entry = this.entries.get(key);
    if (!entry || entry.sha256 !== sha256) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.data;
  }

  put(accountId: number, name: string, sha256: string, data: Buffer): void {
    const key = `${accountId}\0${name}`;
    this.remove(key);
    if (data.length > this.maxBytes / 4) return;
    this.entries.set(key, { sha256, data });
    this.bytes += data.length;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.data.length;
    this.entries.delete(key);
  }
}
