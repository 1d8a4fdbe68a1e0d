import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { jobBudget, memoryDue, type OfficePool } from '../../src/office/pool.js';
import { OfficeJobError } from '../../src/office/process.js';
import { BusyError, ProcessingTimeoutError } from '../../src/errors.js';
import { FIXTURES, tempDir } from '../helpers/server.js';
import { pdfFacts, slowRtf, testPool } from '../helpers/office.js';
import { confiningSandboxes, openSandbox } from '../../src/office/sandbox.js';
import { processTree, treeRssBytes } from '../../src/util/process.js';
import { officeAllocator } from '../../src/office/allocator.js';
import { spawn, spawnSync } from 'node:child_process';
import { DOCX_IMPORT_FILTER } from '../../src/office/filters.js';
import { installedOfficeVersion } from '../../src/office/profile.js';

// The office opens documents for editing, so it reads copies in a writable folder.
const docx = path.join(tempDir(), 'test_document.docx');
fs.copyFileSync(path.join(FIXTURES, 'resource', 'test_document.docx'), docx);
const JEMALLOC = officeAllocator('auto');
const readProc = (pid: number, file: string) => fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
const out = (name: string) => path.join(tempDir(), name);
const toPdf = (input: string) => ({ input, output: out('o.pdf'), filter: 'writer_pdf_Export', inputFilter: DOCX_IMPORT_FILTER });

describe('office pool (real LibreOffice)', () => {
  let pool: OfficePool;
  before(async () => {
    pool = testPool({ size: 2, processingLimitMs: 30_000 });
    await pool.start();
  });
  after(() => pool.close());

  it('has each process convert a letter at start, which counts as no job', async () => {
    assert.equal(pool.stats.warmUps, 2);
    assert.equal(pool.stats.jobs, 0);
  });

  it('has each office start without its graphics self-tests: its profile records the installed version as run', () => {
    const workDir = (pool as unknown as { options: { process: { workDir: string } } }).options.process.workDir;
    const profiles = fs.readdirSync(workDir).filter((name) => name.startsWith('profile-'));
    assert.equal(profiles.length, 2);
    const version = installedOfficeVersion('/usr/lib/libreoffice/program/soffice.bin');
    assert.match(version ?? '', /^\d+\.\d+$/);
    for (const profile of profiles) {
      const user = path.join(workDir, profile, 'user');
      // The self-tests write their results here; a start cost 3.3 s more CPU with them.
      assert.equal(fs.existsSync(path.join(user, 'GraphicsRenderTests.log')), false, profile);
      assert.match(
        fs.readFileSync(path.join(user, 'registrymodifications.xcu'), 'utf8'),
        new RegExp(`<prop oor:name="ooSetupLastVersion"[^>]*><value>${version!.replace('.', '\\.')}</value>`),
      );
    }
  });

  it('converts with a warm process and reports the office time', async () => {
    const job = toPdf(docx);
    const result = await pool.run(job);
    assert.ok(result.officeMs > 0);
    assert.equal(pdfFacts(fs.readFileSync(job.output)).text.trim(), 'A Test File');
  });

  it('retries on another process when the one holding the job dies, and recovers', async () => {
    const crashesBefore = pool.stats.crashes;
    const slow = slowRtf(4000);
    const running = pool.run({ input: slow, output: out('s.pdf'), filter: 'writer_pdf_Export', inputFilter: 'Rich Text Format' });
    // Kill the busy office from outside, as a crash would.
    const workers = () => (pool as unknown as { workers: { busy: boolean; process: { pid?: number } }[] }).workers;
    await waitFor(() => workers().some((w) => w.busy), 5000);
    await new Promise((r) => setTimeout(r, 100));
    const busy = workers().find((w) => w.busy);
    assert.ok(busy?.process.pid);
    process.kill(-busy.process.pid, 'SIGKILL');
    await running;
    assert.equal(pool.stats.crashes, crashesBefore + 1);
    for (let i = 0; i < 3; i++) await pool.run(toPdf(docx));
    await waitFor(() => pool.size === 2, 30_000);
  });

  it('hands each job to the process idle longest: one that has just answered is still closing its document', async () => {
    const workers = () => (pool as unknown as { workers: { process: { jobsDone: number } }[] }).workers;
    await waitFor(() => pool.size === 2, 30_000);
    const before = workers().map((w) => w.process.jobsDone);
    for (let i = 0; i < 4; i++) await pool.run(toPdf(docx));
    assert.deepEqual(
      workers().map((w, i) => w.process.jobsDone - before[i]!),
      [2, 2],
    );
  });

  it('reports a document the office cannot load, and the process stays usable', async () => {
    const bad = path.join(tempDir(), 'bad.docx');
    fs.writeFileSync(bad, Buffer.from('PK\u0003\u0004 this is not really a zip at all'));
    await assert.rejects(pool.run({ ...toPdf(bad) }), (e: Error) => e instanceof OfficeJobError && e.code === 'load_failed');
    await pool.run(toPdf(docx));
  });

  it('answers 30 concurrent jobs with 2 processes', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => pool.run(toPdf(docx))));
    assert.equal(results.length, 30);
  });

  it('leaves nothing of a small job given and answered as bytes in the job folders once it is answered', async () => {
    const bytes = fs.readFileSync(docx);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        pool.run({
          input: { bytes, extension: 'docx' },
          output: { extension: 'pdf' },
          filter: 'writer_pdf_Export',
          inputFilter: DOCX_IMPORT_FILTER,
        }),
      ),
    );
    for (const result of results) assert.match(pdfFacts(result.data!).text, /A Test File/);
    const runDir = (pool as unknown as { options: { process: { runDir: string } } }).options.process.runDir;
    const left = fs
      .readdirSync(runDir, { recursive: true, encoding: 'utf8' })
      .filter((name) => path.basename(path.dirname(path.join(runDir, name))) === 'jobs');
    assert.deepEqual(left, []);
  });
});

describe('office converter inside the office', () => {
  // Each sandbox this machine can run, and none: the office's own Python must be able to load the bridge in each.
  for (const mode of ['off', 'bubblewrap', 'landlock'] as const) {
    const skip = mode !== 'off' && !confiningSandboxes().includes(mode) && `${mode} cannot run here`;
    it(
      `runs inside the office (sandbox ${mode}), spoken to over its own socket, with reports and a failed load answered as before`,
      { skip },
      async () => {
        await converts(testPool({ size: 1 }, mode), true, undefined, true);
      },
    );
    // The allocator is preloaded through each sandbox, which must let the office read it.
    const noJemalloc = !JEMALLOC && 'jemalloc is not installed here (Debian: libjemalloc2)';
    it(`runs the office with jemalloc preloaded (sandbox ${mode}), and without it on "system"`, { skip: skip || noJemalloc }, async () => {
      const sandbox = openSandbox(mode);
      await converts(testPool({ size: 1, process: { ...processOptions(), sandbox, allocator: JEMALLOC! } }), true, JEMALLOC!);
      await converts(testPool({ size: 1, process: { ...processOptions(), sandbox } }), true, null);
    });
  }

  it('falls back to calls over the pipe, with the same answers', async () => {
    await converts(testPool({ size: 1, process: { ...processOptions(), remoteCalls: true } }), false, undefined, false);
  });

  it('goes through the bridge where the run folder is too deep for a socket, with the same answers', async () => {
    const deep = path.join(tempDir('docsmith-office-run-'), 'a-folder-name-long-enough'.repeat(4));
    fs.mkdirSync(deep, { recursive: true });
    await converts(testPool({ size: 1, process: { ...processOptions(), runDir: deep } }), true, undefined, false);
  });

  it('replaces an office whose socket closes, and serves the next job', async () => {
    const pool = testPool({ size: 1 });
    await pool.start();
    try {
      type Seen = { process: { direct: boolean; pid?: number; channel?: { destroy(): void } } };
      const workers = () => (pool as unknown as { workers: Seen[] }).workers;
      assert.equal(workers()[0]!.process.direct, true);
      const first = workers()[0]!.process.pid;
      // A socket that closes mid-life (the converter's thread ended, the connection broke): cut here.
      workers()[0]!.process.channel!.destroy();
      await waitFor(() => workers()[0]?.process.pid !== first && pool.size === 1, 60_000);
      await pool.run(toPdf(docx));
    } finally {
      await pool.close();
    }
  });

  /**
   * `allocator`: the library the office must have loaded, null for none; undefined: not checked.
   * `direct`: whether jobs go to the converter over its own socket; undefined: not checked.
   */
  async function converts(pool: OfficePool, inOffice: boolean, allocator?: string | null, direct?: boolean): Promise<void> {
    await pool.start();
    try {
      const workers = (pool as unknown as { workers: { process: { inOffice: boolean; direct: boolean; pid?: number } }[] }).workers;
      assert.equal(workers[0]!.process.inOffice, inOffice);
      if (direct !== undefined) assert.equal(workers[0]!.process.direct, direct);
      if (allocator !== undefined) {
        // What the office process itself has loaded, found below any sandbox wrapper.
        const office = processTree(workers[0]!.process.pid!).find((pid) => readProc(pid, 'comm').trim() === 'soffice.bin');
        assert.ok(office, 'the office process is found');
        const maps = readProc(office, 'maps');
        if (allocator) assert.ok(maps.includes(fs.realpathSync(allocator)), `the office has ${allocator} loaded`);
        else assert.doesNotMatch(maps, /libjemalloc/);
        assert.equal(pool.status().allocator, allocator ?? 'system');
      }
      await convertsOnce(pool);
    } finally {
      await pool.close();
    }
  }

  async function convertsOnce(pool: OfficePool): Promise<void> {
    const seen: string[] = [];
    const job = {
      ...toPdf(docx),
      onLoaded: () => seen.push('loaded'),
      onPages: (done: number, total: number) => seen.push(`${done}/${total}`),
    };
    const result = await pool.run(job);
    assert.ok(result.officeMs > 0);
    assert.equal(pdfFacts(fs.readFileSync(job.output)).text.trim(), 'A Test File');
    assert.equal(seen[0], 'loaded');
    assert.equal(seen[seen.length - 1], '1/1');
    const bad = path.join(tempDir(), 'bad.docx');
    fs.writeFileSync(bad, Buffer.from('PK\u0003\u0004 this is not really a zip at all'));
    await assert.rejects(pool.run(toPdf(bad)), (e: Error) => e instanceof OfficeJobError && e.code === 'load_failed');
    await pool.run(toPdf(docx));
  }
});

describe('office pool time limit', () => {
  it('cancels a job over the time limit, replaces the process, and serves the next job', async () => {
    // Only the slow job gets the short limit, so no assumption about this machine's speed.
    const pool = testPool({ size: 1 });
    await pool.start();
    try {
      await assert.rejects(
        pool.run({ input: slowRtf(), output: out('t.pdf'), filter: 'writer_pdf_Export', inputFilter: 'Rich Text Format' }, undefined, 1000),
        (error: Error) => error instanceof ProcessingTimeoutError && /longer than the limit/.test(error.message),
      );
      assert.equal(pool.stats.timeouts, 1);
      await waitFor(() => pool.size === 1, 30_000);
      await pool.run(toPdf(docx));
    } finally {
      await pool.close();
    }
  });
});

describe('office pool limits', () => {
  it('refuses at once beyond the queue limit, and after the wait limit', async () => {
    const pool = testPool({ size: 1, queueLimit: 2, queueWaitMs: 300, processingLimitMs: 20_000 });
    await pool.start();
    try {
      const slow = slowRtf(6000);
      const jobs = Array.from({ length: 5 }, (_, i) =>
        pool.run({ input: slow, output: out(`q${i}.pdf`), filter: 'writer_pdf_Export', inputFilter: 'Rich Text Format' }).then(
          () => 'done',
          (e: Error) => (e instanceof BusyError ? `busy:${e.headers['retry-after']}` : e.message),
        ),
      );
      const outcomes = await Promise.all(jobs);
      assert.equal(outcomes[0], 'done');
      assert.equal(outcomes.filter((o) => o.startsWith('busy:')).length, 4, outcomes.join());
      assert.ok(outcomes.slice(1).every((o) => /^busy:\d+$/.test(o)));
    } finally {
      await pool.close();
    }
  });

  it('draws each process a job budget of 80-100 % of the configured one, so processes started together are not replaced together', () => {
    assert.equal(jobBudget(500, 0), 500);
    assert.equal(jobBudget(500, 0.999), 401);
    assert.equal(jobBudget(3, 0.999), 3);
    const drawn = Array.from({ length: 100 }, () => jobBudget(500));
    assert.ok(drawn.every((budget) => budget > 400 && budget <= 500));
    assert.ok(new Set(drawn).size > 1);
  });

  it("reads an office's memory after its first job, after any long job, and otherwise at most once a second", () => {
    assert.equal(memoryDue(-Infinity, 5, 0), true, 'never read');
    assert.equal(memoryDue(10_000, 5, 10_400), false, 'a small job soon after a read');
    assert.equal(memoryDue(10_000, 5, 11_000), true, 'a second on');
    assert.equal(memoryDue(10_000, 1_500, 10_100), true, 'a long job');
  });

  it('recycles a process after its job budget without failing a request', async () => {
    const pool = testPool({ size: 1, maxJobsPerProcess: 3 });
    await pool.start();
    try {
      // The old process serves until its successor is warm, so nothing waits for a restart.
      for (let i = 0; i < 200 && pool.stats.recycled < 2; i++) {
        await pool.run(toPdf(docx));
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(pool.stats.recycled >= 2, `recycled ${pool.stats.recycled}`);
      assert.equal(pool.stats.crashes, 0);
      // Each successor warms before it takes the old one's work (its letter does not count against its budget).
      const recycled = pool.stats.recycled;
      await waitFor(() => pool.stats.warmUps >= 1 + recycled, 120_000);
    } finally {
      await pool.close();
    }
  });
});

describe('office pool memory threshold', () => {
  // Under bubblewrap the office is the wrapper's child: a 2 MB wrapper must not hide a large office.
  it(
    "reads the sandboxed office's own memory, not its wrapper's",
    { skip: !confiningSandboxes().includes('bubblewrap') && 'bubblewrap cannot run here' },
    async () => {
      const pool = testPool({ size: 1, maxRssBytes: 48 * 1024 * 1024 }, 'bubblewrap');
      await pool.start();
      try {
        await pool.run(toPdf(docx));
        // A LibreOffice that has converted a document is far above 48 MB; its wrapper far below.
        await waitFor(() => pool.stats.recycled >= 1, 120_000);
        await pool.run(toPdf(docx));
      } finally {
        await pool.close();
      }
    },
  );

  it('counts a process tree: a wrapper and the child that holds the memory', async () => {
    const child = spawn(
      'sh',
      ['-c', `node -e "globalThis.b = Buffer.alloc(96e6, 1); console.log('ready'); setInterval(() => {}, 1000)"; true`],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      },
    );
    try {
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      const own = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
      assert.ok(own < 16 * 1024 * 1024, `the wrapper holds ${own} bytes`);
      assert.ok(treeRssBytes(child.pid!) > 90 * 1024 * 1024, `the tree holds ${treeRssBytes(child.pid!)} bytes`);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('recycles a process whose memory is over the threshold', async () => {
    const pool = testPool({ size: 1, maxRssBytes: 1 });
    await pool.start();
    try {
      for (let i = 0; i < 100 && pool.stats.recycled < 1; i++) {
        await pool.run(toPdf(docx));
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(pool.stats.recycled >= 1);
      await pool.run(toPdf(docx));
    } finally {
      await pool.close();
    }
  });
});

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An office command that fails its first `failures` starts in each profile, then runs the real office. */
function flakyOffice(failures: number): string {
  const script = path.join(tempDir(), 'flaky-soffice.sh');
  fs.writeFileSync(
    script,
    `#!/bin/sh
n=$(cat "$HOME/.docsmith-test-fails" 2>/dev/null || echo 0)
if [ "$n" -lt ${failures} ]; then echo $((n + 1)) > "$HOME/.docsmith-test-fails"; exit 1; fi
exec /usr/lib/libreoffice/program/soffice.bin "$@"
`,
    { mode: 0o755 },
  );
  return script;
}

describe('office pool supervision', () => {
  it('retries a failed start with back-off until the slot is warm, then serves', async () => {
    const logged: string[] = [];
    const pool = testPool({
      size: 2,
      restartDelayMs: 100,
      process: { ...processOptions(), sofficePath: flakyOffice(2) },
      log: (_level, message, details) => logged.push(`${message} ${JSON.stringify(details ?? {})}`),
    });
    await pool.start();
    try {
      assert.ok(pool.stats.startFailures >= 4, `start failures: ${pool.stats.startFailures}`);
      assert.ok(
        logged.some((line) => /failed to start; trying again/.test(line) && /retryInMs/.test(line)),
        logged.join('\n'),
      );
      assert.equal(pool.size, 2);
      assert.equal(pool.status().lastError, undefined, 'a healed pool reports no old start failure (/readyz shows it)');
      await pool.run(toPdf(docx));
    } finally {
      await pool.close();
    }
  });

  it('stops a process that is still starting when it is closed: nothing of the pool outlives its close', async () => {
    // An office that never comes up (its start would wait ten minutes): only the close can end it.
    const hung = path.join(tempDir(), 'hung-soffice.sh');
    fs.writeFileSync(hung, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
    const options = { ...processOptions(), sofficePath: hung, startTimeoutMs: 600_000 };
    const pool = testPool({ size: 1, process: options });
    void pool.start().catch(() => undefined);
    // The office is spawned (its profile folder on its command line), not ready.
    const running = () => spawnSync('pgrep', ['-f', options.workDir]).status === 0;
    await waitFor(running, 60_000);
    await pool.close();
    await waitFor(() => !running(), 60_000);
  });

  it("stops whatever its bridge started when it is closed, so nothing holds the bridge's pipes", async () => {
    // A bridge that leaves a child behind holding its output (as a sandbox wrapper killed while it sets up may).
    const marker = `docsmith-leftover-${process.pid}-${Date.now()}`;
    const python = path.join(tempDir(), 'python-with-child.sh');
    fs.writeFileSync(python, `#!/bin/sh\n/usr/bin/python3 -c 'import time; time.sleep(600)' ${marker} &\nexec /usr/bin/python3 "$@"\n`, {
      mode: 0o755,
    });
    const pool = testPool({ size: 1, process: { ...processOptions(), sandbox: openSandbox('off'), pythonPath: python } }, 'off');
    await pool.start();
    await pool.run(toPdf(docx));
    const left = () => spawnSync('pgrep', ['-f', marker]).status === 0;
    assert.ok(left(), 'the child runs beside the bridge');
    await pool.close();
    await waitFor(() => !left(), 60_000);
  });

  it('heals after its processes are killed again and again, leaking no profiles, scratch folders or pipes', async () => {
    // This process's office pipes (without bubblewrap they sit in /tmp, where other test files' offices come and go too).
    const pipes = () => fs.readdirSync('/tmp').filter((n) => n.startsWith('OSL_PIPE_') && n.includes(`docsmith-${process.pid}-`)).length;
    const pipesBefore = pipes();
    const options = processOptions();
    const pool = testPool({ size: 1, process: options });
    await pool.start();
    try {
      const workers = () => (pool as unknown as { workers: { process: { pid?: number; alive: boolean } }[] }).workers;
      for (let i = 0; i < 20; i++) {
        await pool.run(toPdf(docx)); // a process that did work comes back at once
        const pid = workers()[0]!.process.pid!;
        process.kill(-pid, 'SIGKILL');
        await waitFor(() => pool.size === 1 && workers()[0]!.process.pid !== pid, 60_000);
      }
      await pool.run(toPdf(docx));
      assert.ok(pool.stats.restarts >= 20, `restarts: ${pool.stats.restarts}`);
      const profiles = fs.readdirSync(options.workDir).filter((n) => n.startsWith('profile-'));
      assert.ok(profiles.length <= 2, `profiles: ${profiles.join(', ')}`);
      assert.ok(fs.readdirSync(options.runDir).length <= 2, `scratch: ${fs.readdirSync(options.runDir).join(', ')}`);
      assert.ok(pipes() <= pipesBefore + 1, `pipes before ${pipesBefore}, after ${pipes()}`);
    } finally {
      await pool.close();
    }
  });
});

function processOptions() {
  return {
    workDir: tempDir('docsmith-office-'),
    runDir: tempDir('docsmith-office-run-'),
    sofficePath: '/usr/lib/libreoffice/program/soffice.bin',
    pythonPath: '/usr/bin/python3',
    sandbox: openSandbox('auto'),
    startTimeoutMs: 60_000,
  };
}
