import fs from 'node:fs';

/** Whether a process with this pid still runs on this machine. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const MAX_TREE = 256;

/**
 * Resident memory of a process and all its descendants, in bytes (0 when unknown). A sandboxed
 * office runs as the child of a small wrapper (bubblewrap): the wrapper's own memory says nothing.
 * Children come from /proc/<pid>/task/<tid>/children; a few small reads per process.
 */
export function treeRssBytes(pid: number): number {
  let total = 0;
  const queue = [pid];
  const seen = new Set<number>();
  while (queue.length && seen.size < MAX_TREE) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    try {
      const status = fs.readFileSync(`/proc/${next}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
      if (match) total += Number(match[1]) * 1024;
      for (const task of fs.readdirSync(`/proc/${next}/task`)) {
        const children = fs.readFileSync(`/proc/${next}/task/${task}/children`, 'utf8').trim();
        if (children) queue.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // Gone meanwhile, or not ours to read: counted as far as it could be.
    }
  }
  return total;
}
