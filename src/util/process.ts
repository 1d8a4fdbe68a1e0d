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

/** A process and all its descendants (children from /proc/<pid>/task/<tid>/children). */
export function processTree(pid: number): number[] {
  const queue = [pid];
  const seen = new Set<number>();
  while (queue.length && seen.size < MAX_TREE) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    try {
      for (const task of fs.readdirSync(`/proc/${next}/task`)) {
        const children = fs.readFileSync(`/proc/${next}/task/${task}/children`, 'utf8').trim();
        if (children) queue.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // Gone meanwhile, or not ours to read: followed as far as it could be.
    }
  }
  return [...seen];
}

/** Resident memory of these processes together, in bytes, and whether all of them could be read. */
export function residentBytes(pids: number[]): { bytes: number; complete: boolean } {
  let bytes = 0;
  let complete = true;
  for (const pid of pids) {
    try {
      const match = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) bytes += Number(match[1]) * 1024;
    } catch {
      complete = false; // gone meanwhile, or not ours to read
    }
  }
  return { bytes, complete };
}

/**
 * Resident memory of a process and all its descendants, in bytes (0 when unknown). A sandboxed
 * office runs as the child of a small wrapper (bubblewrap): the wrapper's own memory says nothing.
 */
export function treeRssBytes(pid: number): number {
  return residentBytes(processTree(pid)).bytes;
}
