import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cgroupCpuQuota, usableCpus } from '../../src/util/process.js';

function cgroup(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cgroup-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

describe('CPUs the process may use', () => {
  it("follows a container's CPU quota (cgroup v2 and v1), not the node's cores", () => {
    assert.equal(cgroupCpuQuota(cgroup({ 'cpu.max': '200000 100000\n' })), 2);
    assert.equal(cgroupCpuQuota(cgroup({ 'cpu.max': '150000 100000\n' })), 1.5);
    assert.equal(cgroupCpuQuota(cgroup({ 'cpu.max': 'max 100000\n' })), undefined);
    assert.equal(cgroupCpuQuota(cgroup({ 'cpu/cpu.cfs_quota_us': '400000', 'cpu/cpu.cfs_period_us': '100000' })), 4);
    assert.equal(cgroupCpuQuota(cgroup({ 'cpu/cpu.cfs_quota_us': '-1', 'cpu/cpu.cfs_period_us': '100000' })), undefined);
    assert.equal(cgroupCpuQuota(cgroup({})), undefined);
    const cores = os.availableParallelism();
    assert.equal(usableCpus(cgroup({ 'cpu.max': '100000 100000' })), 1);
    assert.equal(usableCpus(cgroup({ 'cpu.max': '150000 100000' })), Math.min(cores, 2), 'a part of a CPU counts as one');
    assert.equal(usableCpus(cgroup({ 'cpu.max': `${(cores + 8) * 100000} 100000` })), cores, 'never more than the cores');
    assert.equal(usableCpus(cgroup({})), cores);
  });
});
