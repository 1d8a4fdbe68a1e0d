import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeAbandonedScratch, ScratchFolder } from '../../src/util/scratch.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const ROOT = path.dirname(path.dirname(path.dirname(new URL(import.meta.url).pathname)));

/** Another process holding a scratch folder, as a server in another PID namespace would: its process id means nothing here. */
function holder(dir: string) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('${path.join(ROOT, 'src/util/scratch.ts')}').then(async (m) => { await m.ScratchFolder.open(${JSON.stringify(dir)}); console.log('held'); setInterval(() => {}, 1000); })`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const held = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return { child, held };
}

/** The folder's lock file made old, as if its holder started long ago. */
function age(dir: string): void {
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(path.join(dir, '.lock'), old, old);
}

describe('scratch folders are held with a lock, not judged by a process id', () => {
  const parent = tempDir('docsmith-shm-');
  const children: ReturnType<typeof holder>['child'][] = [];
  after(() => children.forEach((c) => c.kill('SIGKILL')));

  it("leaves a live instance's folder alone although its process id is not alive here, and removes it once that instance is killed", async () => {
    // A name whose process id is not alive in this namespace: the old check removed such folders.
    const live = path.join(parent, 'docsmith-999999-0a1b2c3d');
    const other = holder(live);
    children.push(other.child);
    await other.held;
    age(live);
    fs.writeFileSync(path.join(live, 'job.in.docx'), 'a job in progress');
    removeAbandonedScratch([parent], path.join(parent, 'mine'));
    assert.ok(fs.existsSync(path.join(live, 'job.in.docx')), "a live instance's job files stay");

    other.child.kill('SIGKILL');
    await new Promise((resolve) => other.child.once('exit', resolve));
    // Its lock goes with it (the kernel closes its pipe): the folder is now abandoned.
    await until("the killed instance's folder is removed", () => {
      removeAbandonedScratch([parent], path.join(parent, 'mine'));
      return !fs.existsSync(live);
    });
  });

  it('leaves a folder whose lock was made moments ago (its holder starting), and unknown names, alone', async () => {
    const young = path.join(parent, 'docsmith-999998-0a1b2c3e');
    fs.mkdirSync(young);
    fs.writeFileSync(path.join(young, '.lock'), '1\n');
    const unrelated = path.join(parent, 'something-else');
    fs.mkdirSync(unrelated);
    removeAbandonedScratch([parent], path.join(parent, 'mine'));
    assert.ok(fs.existsSync(young) && fs.existsSync(unrelated));
    age(young);
    removeAbandonedScratch([parent], path.join(parent, 'mine'));
    assert.ok(!fs.existsSync(young), 'an old lock nobody holds is abandoned');
  });

  it('says whether it can be written, making itself again when removed', async () => {
    const folder = await ScratchFolder.open(path.join(parent, 'docsmith-1-00000000'));
    fs.rmSync(folder.dir, { recursive: true, force: true });
    assert.equal(await folder.writable(), true);
    assert.ok(fs.existsSync(folder.dir));
    fs.rmSync(folder.dir, { recursive: true, force: true });
    fs.writeFileSync(folder.dir, 'not a folder');
    assert.equal(await folder.writable(), false);
    fs.rmSync(folder.dir);
    folder.close();
  });
});
