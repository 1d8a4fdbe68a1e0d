/**
 * Faults of the database under load, on a PostgreSQL cluster of this test's own: three instances
 * (one behind PgBouncer in transaction mode) take uploads, counted merges and background jobs
 * while the cluster is restarted, crashed, has its connections ended and is away for a while.
 * Afterwards every acknowledged upload and job is there once, the counts are exact, no process
 * exited and no request got a 500.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import pg from 'pg';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { client, type Client } from '../helpers/http.js';
import { docx, mergefield, p, run } from '../helpers/docx.js';
import { PGBOUNCER, startPgBouncer } from '../helpers/pgbouncer.js';
import { postgresBin, startCluster } from '../helpers/pgcluster.js';
import { until } from '../helpers/wait.js';

const SECRET = 'cluster-fault-test-secret-0123456789abcdef';
const WORKERS = 6;
const template = JSON.stringify(docx(p(run('Dear '), mergefield('name'))).toString('base64'));

interface Ledger {
  uploads: Set<string>;
  merges: number;
  jobs: string[];
  statuses: Map<number, number>;
  /**
   * Anything but 200, 201, 202, 503 with Retry-After, or 403 for a merge slot (a claim cut off after
   * it took one holds it until its lease runs out), and transport errors.
   */
  wrong: string[];
}

describe('PostgreSQL restarted, crashed, cut off and away, under load', () => {
  it('loses no acknowledged upload or job, counts exactly, and no process ends or answers 500', async (t) => {
    if (!postgresBin()) return t.skip("PostgreSQL's server programs are not installed (apt-get install postgresql)");
    if (!fs.existsSync(PGBOUNCER)) return t.skip('pgbouncer is not installed (apt-get install pgbouncer; npm test installs it as root)');
    const cluster = await startCluster();
    await cluster.createDatabase('docsmith');
    const direct = cluster.url('docsmith');
    const bouncer = await startPgBouncer(direct);
    const pooled = new URL(direct);
    pooled.port = String(bouncer.port);
    const servers: RunningServer[] = [];
    try {
      const admin = await adminServices({ dataDir: tempDir(), databaseUrl: direct, secret: SECRET });
      const accounts = await Promise.all(
        Array.from({ length: WORKERS }, (_, i) => makeAccount(admin, `load${i}`, { licence: `SN-LOAD${i}`, maxDocuments: 1_000_000 })),
      );
      const prober = await makeAccount(admin, 'prober', { licence: 'SN-PROBE', maxDocuments: 1_000_000 });
      await admin.store.close();
      for (const url of [direct, direct, pooled.toString()]) {
        servers.push(
          await startServer({
            DOCSMITH_DATA_DIR: tempDir(),
            DOCSMITH_DATABASE_URL: url,
            DOCSMITH_SECRET: SECRET,
            DOCSMITH_OFFICE_PROCESSES: '0',
            // A short request limit: requests cut off mid-claim are taken back by the sweep soon (twice the limit).
            DOCSMITH_PROCESSING_LIMIT_MS: '5000',
            DOCSMITH_JOB_POLL_MS: '200',
            DOCSMITH_JOB_MAX_WAITING: '1000',
          }),
        );
      }
      // Worker i signs in as account i, and takes its turns on every instance.
      const clients: Client[][] = accounts.map((a) => servers.map((s) => client(s.url, { basic: [a.user, a.password] })));
      const probes = servers.map((s) => client(s.url, { basic: [prober.user, prober.password] }));
      for (const row of [...clients, probes]) {
        assert.equal(
          (
            await row[0]!.post('/v1/templates/upload?templateName=letter.docx', {
              body: template,
              headers: { 'content-type': 'application/json' },
            })
          ).status,
          201,
        );
        for (const c of row) assert.equal((await c.get('/v1/account/settings')).status, 200);
      }

      const ledgers: Ledger[] = accounts.map(() => ({ uploads: new Set(), merges: 0, jobs: [], statuses: new Map(), wrong: [] }));
      let running = true;
      const load = clients.map(async (row, worker) => {
        const ledger = ledgers[worker]!;
        for (let turn = 0; running; turn++) {
          const kind = turn % 3;
          const c = row[(turn + Math.floor(turn / 3)) % row.length]!; // each kind on every instance
          const name = `w${worker}-${turn}.docx`;
          try {
            const reply =
              kind === 0
                ? await c.post(`/v1/templates/upload?templateName=${name}`, {
                    body: template,
                    headers: { 'content-type': 'application/json' },
                  })
                : kind === 1
                  ? await c.post('/v1/document/merge?returnFormat=DOCX&templateName=letter.docx', {
                      json: { mergeData: [{ name: `N${turn}` }] },
                    })
                  : await c.post('/v1/document/merge?returnFormat=DOCX&templateName=letter.docx&async=true', {
                      json: { mergeData: [{ name: `J${turn}` }] },
                    });
            ledger.statuses.set(reply.status, (ledger.statuses.get(reply.status) ?? 0) + 1);
            if (reply.status === 201) ledger.uploads.add(name);
            else if (reply.status === 200) ledger.merges++;
            else if (reply.status === 202) ledger.jobs.push((reply.json() as { id: string }).id);
            else if (
              !(reply.status === 503 && reply.headers['retry-after']) &&
              !(reply.status === 403 && /merge requests may run at once/.test(reply.text))
            ) {
              ledger.wrong.push(`${reply.status} ${reply.text}`);
            }
            if (reply.status === 503 || reply.status === 403) await new Promise((r) => setTimeout(r, 100));
          } catch (error) {
            ledger.wrong.push(`transport: ${(error as Error).message}`);
          }
        }
      });
      const served = () => ledgers.reduce((n, l) => n + l.merges + l.uploads.size + l.jobs.length, 0);
      /** Load has gone on: `more` requests succeeded since now, and every instance merges again. */
      const progress = async (what: string, more = 90) => {
        const from = served();
        await until(`${what}: ${more} more requests served`, async () => served() >= from + more);
        for (const c of probes)
          await until(
            `${what}: every instance merges`,
            async () =>
              (await c.post('/v1/document/merge?returnFormat=DOCX&templateName=letter.docx', { json: { mergeData: [{ name: 'probe' }] } }))
                .status === 200,
          );
      };

      await progress('before the faults');
      await cluster.stop();
      await cluster.start();
      await progress('after a restart');
      await cluster.crash();
      await cluster.start();
      await progress('after a crash');
      const killer = new pg.Client({ connectionString: cluster.url('postgres') });
      await killer.connect();
      await killer.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'docsmith'");
      await killer.end();
      await progress('after its connections were ended');
      await cluster.stop();
      // Away while requests keep coming: they get 503 with Retry-After.
      const away = ledgers.reduce((n, l) => n + (l.statuses.get(503) ?? 0), 0);
      await until(
        'requests answered 503 while the database is away',
        async () => ledgers.reduce((n, l) => n + (l.statuses.get(503) ?? 0), 0) >= away + 10,
      );
      await cluster.start();
      await progress('after an outage');
      running = false;
      await Promise.all(load);

      for (const server of servers) assert.equal(server.child.exitCode, null, 'no instance ended');
      assert.deepEqual(
        ledgers.flatMap((l) => l.wrong),
        [],
        'only 200, 201, 202 and 503 with Retry-After',
      );
      const c = (worker: number) => clients[worker]![0]!;
      for (const [worker, ledger] of ledgers.entries()) {
        const names = new Set(
          ((await c(worker).get('/v1/templates/list')).json() as { templateName: string }[]).map((t) => t.templateName),
        );
        for (const name of ledger.uploads) assert.ok(names.has(name), `acknowledged upload ${name} is stored`);
        // Every acknowledged job ran to its result, once (a job cut off by the faults is taken up again).
        // A submission whose 202 was lost with its connection may have been stored too: it runs as well.
        const done = await until(
          `worker ${worker}'s ${ledger.jobs.length} jobs done`,
          async () => {
            const jobs = (await c(worker).get('/v1/jobs?limit=500')).json() as { id: string; state: string; error: unknown }[];
            const states = new Map(jobs.map((j) => [j.id, j.state]));
            assert.equal(states.size, jobs.length, 'each job listed once');
            assert.ok(
              ledger.jobs.every((id) => states.has(id)),
              'every acknowledged job is there',
            );
            assert.deepEqual(
              jobs.filter((j) => j.state === 'failed'),
              [],
              'no job failed',
            );
            return jobs.every((j) => j.state === 'done') && jobs.length;
          },
          300_000,
        );
        // Each delivered merge and each done job counts once; claims cut off mid-way are taken back by the sweep.
        const expected = ledger.merges + done;
        await until(
          `worker ${worker}'s count settles at ${expected}`,
          async () => {
            const counted = ((await c(worker).get('/v1/account/settings')).json() as { createdDocuments: number }).createdDocuments;
            assert.ok(counted >= expected, `counted ${counted}, at least ${expected} delivered`);
            return counted === expected;
          },
          300_000,
        );
      }
      // The prober's count: no more than it was delivered (the probes that were cut off mid-way are taken back).
      const totals = ledgers.reduce(
        (m, l) => {
          for (const [k, v] of l.statuses) m[k] = (m[k] ?? 0) + v;
          return m;
        },
        {} as Record<number, number>,
      );
      t.diagnostic(`answers by status: ${JSON.stringify(totals)}`);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await bouncer.stop();
      await cluster.destroy();
    }
  });
});
