import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scratchDirectory } from '../../src/services.js';

describe('job files folder', () => {
  const shm = fs.mkdtempSync(path.join(os.tmpdir(), 'shm-'));
  const GiB = 1024 ** 3;

  it('keeps job files in memory where 1 GiB of it is free, else in the data folder', () => {
    assert.equal(
      scratchDirectory('/data', shm, () => 24 * GiB),
      path.join(shm, `docsmith-${process.pid}`),
    );
    // A container's default /dev/shm: 64 MB, below the free-disk check itself.
    assert.equal(
      scratchDirectory('/data', shm, () => 64 * 1024 * 1024),
      path.join('/data', 'tmp', String(process.pid)),
    );
    assert.equal(
      scratchDirectory('/data', path.join(shm, 'missing'), () => 24 * GiB),
      path.join('/data', 'tmp', String(process.pid)),
    );
  });
});
