import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Whether a process with this pid still runs on this machine. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Its own leases are most of what a process asks about: no signal (a system call) needed.
  if (pid === process.pid) return true;
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

/**
 * The CPUs this process may use: the cores it may run on (availableParallelism), or fewer where
 * a cgroup quota (a container's CPU limit, a Kubernetes pod's `limits.cpu`) allows less. A
 * 16-core node running a pod limited to 2 CPUs gives 2, not 16.
 */
export function usableCpus(cgroupRoot = '/sys/fs/cgroup'): number {
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const quota = cgroupCpuQuota(cgroupRoot);
  return quota === undefined ? cores : Math.max(1, Math.min(cores, Math.ceil(quota)));
}

/** CPUs the cgroup's quota allows (cgroup v2 cpu.max, else v1 cfs_quota/cfs_period), or undefined when unlimited or unknown. */
export function cgroupCpuQuota(root = '/sys/fs/cgroup'): number | undefined {
  const read = (file: string) => {
    try {
      return fs.readFileSync(path.join(root, file), 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const v2 = read('cpu.max');
  if (v2 !== undefined) {
    const [quota, period] = v2.split(/\s+/);
    return quota === 'max' || !quota ? undefined : Number(quota) / Number(period || 100_000) || undefined;
  }
  const quota = Number(read('cpu/cpu.cfs_quota_us') ?? read('cpu,cpuacct/cpu.cfs_quota_us'));
  const period = Number(read('cpu/cpu.cfs_period_us') ?? read('cpu,cpuacct/cpu.cfs_period_us'));
  return quota > 0 && period > 0 ? quota / period : undefined;
}
