import fs from 'node:fs';

/** Bytes an unprivileged writer can still put on the file system holding `folder`; Infinity if unknown. */
export async function freeBytes(folder: string): Promise<number> {
  try {
    const disk = await fs.promises.statfs(folder);
    return Number(disk.bavail) * Number(disk.bsize);
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
