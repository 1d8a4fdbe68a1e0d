import fs from 'node:fs';

const available = (disk: fs.StatsFs) => Number(disk.bavail) * Number(disk.bsize);

/** Bytes an unprivileged writer can still put on the file system holding `folder`; Infinity if unknown. */
export async function freeBytes(folder: string): Promise<number> {
  return fs.promises.statfs(folder).then(available, () => Number.POSITIVE_INFINITY);
}

/** freeBytes, at once (start-up, and the SQLite store's own steps, which are synchronous anyway). */
export function freeBytesSync(folder: string): number {
  try {
    return available(fs.statfsSync(folder));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The folder among `folders` with the least free space, and that space. */
export async function leastFree(folders: readonly string[]): Promise<{ folder: string; free: number }> {
  const free = await Promise.all(folders.map(freeBytes));
  const at = free.indexOf(Math.min(...free));
  return { folder: folders[at]!, free: free[at]! };
}
