import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { accountIn } from '../helpers/accounts.js';
import { startServer, tempDir } from '../helpers/server.js';
import { client, errorMessage, request } from '../helpers/http.js';
import { docx, p } from '../helpers/docx.js';
import { until } from '../helpers/wait.js';

/** A small file system of its own (tmpfs), so the test can fill it; undefined where mounting is not allowed. */
function smallDisk(megabytes: number): { dir: string; unmount(): void } | undefined {
  const dir = tempDir('docsmith-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freeBytes(dir: string): number {
  const disk = fs.statfsSync(dir);
  return disk.bavail * disk.bsize;
}

/** Fills the file system holding `dir` to the last byte. */
function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(1024 * 1024);
  try {
    for (let size = chunk.length; size >= 1; size = Math.floor(size / 2)) {
      for (;;) {
        try {
          fs.writeSync(fd, chunk, 0, size);
        } catch {
          break;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** A template of about `megabytes` MB that does not compress. */
function bigTemplate(megabytes: number): Buffer {
  return docx(p('<w:r><w:t>x</w:t></w:r>'), {
    customXml: { item1: `<data>${randomBytes(megabytes * 1024 * 1024).toString('base64')}</data>` },
  });
}

describe('a full disk', () => {
  it('/readyz says so, writes get a 503 naming it, deletes still work and give the space back', async (t) => {
    const disk = smallDisk(48);
    if (!disk) return t.skip('mounting a small file system needs root (CAP_SYS_ADMIN)');
    const dataDir = path.join(disk.dir, 'data');
    const account = await accountIn({ dataDir }, 'ann', { licence: 'SN-DISK' });
    const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_MIN_FREE_DISK_MB: '4' });
    let filler: string | undefined;
    try {
      const ann = client(server.url, { basic: [account.user, account.password] });
      for (const name of ['a.docx', 'b.docx', 'c.docx']) assert.equal((await ann.upload(name, bigTemplate(3))).status, 201);
      assert.equal((await request(server.url, 'GET', '/readyz')).status, 200);

      filler = fill(disk.dir);
      const ready = await request(server.url, 'GET', '/readyz');
      assert.equal(ready.status, 503, ready.text);
      assert.match(errorMessage(ready), /disk is nearly full .*DOCSMITH_MIN_FREE_DISK_MB/);
      const upload = await ann.upload('d.docx', bigTemplate(3));
      assert.equal(upload.status, 503, upload.text);
      assert.match(errorMessage(upload), /disk is full; deleting templates or finished jobs frees space/);

      const before = freeBytes(disk.dir);
      const removed = await ann.delete('/v1/templates/delete?templateName=a.docx');
      assert.equal(removed.status, 204, removed.text);
      await until("the deleted template's space back on the disk", () => freeBytes(disk.dir) > before + 2 * 1024 * 1024);
      assert.equal((await ann.delete('/v1/templates/delete?templateName=b.docx')).status, 204);
      const names = ((await ann.get('/v1/templates/list')).json() as { templateName: string }[]).map((x) => x.templateName);
      assert.deepEqual(names, ['c.docx']);

      fs.rmSync(filler);
      filler = undefined;
      await until('ready again once there is room', async () => (await request(server.url, 'GET', '/readyz')).status === 200);
      assert.equal((await ann.upload('d.docx', bigTemplate(1))).status, 201);
    } finally {
      await server.stop();
      if (filler) fs.rmSync(filler, { force: true });
      disk.unmount();
    }
  });
});
