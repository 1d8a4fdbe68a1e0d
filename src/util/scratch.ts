/**
 * A process's scratch folder (office job files), held with a file lock for as long as the process
 * lives. Folders of processes that are gone are removed at start; "gone" is told by the lock, not
 * by a process id, which says nothing across PID namespaces (a container beside a host process,
 * two containers in one pod, sharing /dev/shm).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from './log.js';

const LOCK = '.lock';
/** A lock file younger than this may not be held yet (its holder is starting): never taken for abandoned. */
const YOUNG_MS = 60_000;
/** A folder without a lock file (made by an earlier docsmith) is removed only when untouched this long. */
const UNLOCKED_MAX_AGE_MS = 24 * 3600_000;

export class ScratchFolder {
  private holder: ChildProcess | undefined;

  private constructor(readonly dir: string) {}

  /**
   * Makes the folder and holds its lock: `flock` (util-linux) keeps it while its standard input
   * is open, which closes when this process ends however it ends (kill -9 included). Without
   * `flock` the folder is still made, and other instances leave it alone only while it is young.
   */
  static async open(dir: string, log?: Logger): Promise<ScratchFolder> {
    const folder = new ScratchFolder(dir);
    folder.ensure();
    await folder.lock(log);
    return folder;
  }

  /** The folder exists again if something removed it. */
  ensure(): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /** The folder can be written now (made again first when it was removed): what /readyz asks. */
  async writable(): Promise<boolean> {
    try {
      this.ensure();
      const probe = path.join(this.dir, `.probe-${process.pid}`);
      await fs.promises.writeFile(probe, 'ok');
      await fs.promises.rm(probe, { force: true });
      return true;
    } catch {
      return false;
    }
  }

  private async lock(log?: Logger): Promise<void> {
    const file = path.join(this.dir, LOCK);
    fs.writeFileSync(file, `${process.pid}\n`);
    const holder = spawn('flock', ['-x', file, '-c', 'echo held; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const held = await new Promise<boolean>((resolve) => {
      holder.once('error', () => resolve(false));
      holder.once('exit', () => resolve(false));
      holder.stdout!.once('data', () => resolve(true));
    });
    if (!held) {
      log?.('warn', 'the scratch folder cannot be locked (no flock command): other instances leave it alone only while it is young', {
        dir: this.dir,
      });
      return;
    }
    holder.stdout!.destroy();
    // Neither the holder nor its pipe keeps this process running.
    holder.unref();
    (holder.stdin as unknown as { unref?: () => void }).unref?.();
    this.holder = holder;
  }

  /** Ends the lock (the folder itself is the caller's to remove). */
  close(): void {
    this.holder?.stdin?.end();
    this.holder = undefined;
  }
}

/**
 * Removes the scratch folders under `parents` whose process is gone: their lock can be taken. A
 * folder whose lock is held, or was made less than a minute ago, stays.
 */
export function removeAbandonedScratch(parents: readonly string[], own: string, log?: Logger): void {
  for (const parent of parents) {
    let names: string[];
    try {
      names = fs.readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/^(?:docsmith-)?\d+(?:-[0-9a-f]{8})?$/.test(name)) continue;
      const dir = path.join(parent, name);
      if (path.resolve(dir) === path.resolve(own)) continue;
      if (abandoned(dir)) {
        fs.rmSync(dir, { recursive: true, force: true });
        log?.('info', 'removed the scratch folder of a docsmith process that is gone', { dir });
      }
    }
  }
}

function abandoned(dir: string): boolean {
  const now = Date.now();
  let lock: fs.Stats;
  try {
    lock = fs.statSync(path.join(dir, LOCK));
  } catch {
    try {
      return now - fs.statSync(dir).mtimeMs > UNLOCKED_MAX_AGE_MS;
    } catch {
      return false;
    }
  }
  if (now - lock.mtimeMs < YOUNG_MS) return false;
  // Taking the lock without waiting succeeds only when nobody holds it.
  const taken = spawnSync('flock', ['-x', '-n', path.join(dir, LOCK), 'true'], { stdio: 'ignore', timeout: 10_000 });
  return taken.status === 0;
}
