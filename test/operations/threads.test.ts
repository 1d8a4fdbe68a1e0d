// The worker threads start whatever flags the process was started with: Node checks flags given
// to a thread as a thread's, and a process-wide one (as Node 24's test runner passes its files)
// must not stop every merge.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('document worker threads', () => {
  it('start in a process whose own flags a thread may not take', () => {
    const script = [
      "import { DocumentWorkers } from './dist/workers/pool.js';",
      'const workers = new DocumentWorkers(1);',
      'const parsed = await workers.parseJson(Buffer.from(\'{"a":1}\'));',
      'await workers.close();',
      'console.log(JSON.stringify(parsed));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--v8-pool-size=4', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.match(out, /"a":1/);
  });
});
