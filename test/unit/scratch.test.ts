import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scratchDirectory } from '../../src/services.js';

describe('job files folder', () => {
  const shm = fs.mkdtempSync(path.join(os.tmpdir(), 'shm-'));
  const GiB = 1024 ** 3;

  it('keeps job files in memory where 1 GiB of it is free, else in the data folder, in a folder no other instance names', () => {
    const inShm = scratchDirectory('/data', shm, () => 24 * GiB);
    // The process id with a random part: ids repeat across PID namespaces sharing /dev/shm.
    assert.match(path.basename(inShm), new RegExp(`^docsmith-${process.pid}-[0-9a-f]{8}$`));
    assert.equal(path.dirname(inShm), shm);
    // A container's default /dev/shm: 64 MB, below the free-disk check itself.
    const inData = scratchDirectory('/data', shm, () => 64 * 1024 * 1024);
    assert.equal(path.dirname(inData), path.join('/data', 'tmp'));
    assert.match(path.basename(inData), new RegExp(`^${process.pid}-[0-9a-f]{8}$`));
    assert.equal(path.dirname(scratchDirectory('/data', path.join(shm, 'missing'), () => 24 * GiB)), path.join('/data', 'tmp'));
  });
});
