/**
 * Scale-out on PostgreSQL: small DOCX merges of a stored template per second with 1 and 3
 * instances on one database (12 accounts signing in with API keys, one client each, spread over
 * the instances round-robin), and the statements each counted merge sends to PostgreSQL (from
 * docsmith_database_statements_total). Reported as the ratio 3 instances / 1.
 */
import { performance } from 'node:perf_hooks';
import { docx, mergefield, p, run } from '../test/helpers/docx.js';
import { startServer, tempDir, type RunningServer } from '../test/helpers/server.js';
import { adminServices, makeAccount } from '../test/helpers/accounts.js';
import { createTestDatabase } from '../test/helpers/postgres.js';

const ACCOUNTS = 12;
const MERGES = Number(process.env.BENCH_MERGES ?? 2400);
const SECRET = 'bench-secret-shared-by-every-instance-0123';

async function statements(servers: RunningServer[]): Promise<number> {
  let sum = 0;
  for (const server of servers) {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    sum += Number(/^docsmith_database_statements_total (\d+)/m.exec(text)?.[1] ?? NaN);
  }
  return sum;
}

async function measure(instances: number, url: string, keys: string[]): Promise<{ perSecond: number; statementsPerMerge: number }> {
  const servers = await Promise.all(
    Array.from({ length: instances }, () =>
      startServer({
        DOCSMITH_DATA_DIR: tempDir(),
        DOCSMITH_DATABASE_URL: url,
        DOCSMITH_SECRET: SECRET,
        DOCSMITH_OFFICE_PROCESSES: '0',
        DOCSMITH_LOG_LEVEL: 'warn',
      }),
    ),
  );
  try {
    for (const server of servers) while ((await fetch(`${server.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
    const body = JSON.stringify({ mergeData: [{ name: 'Ann Example', city: 'Bremen' }] });
    const merge = async (client: number, turn: number) => {
      const server = servers[turn % servers.length]!;
      const reply = await fetch(`${server.url}/v1/document/merge?returnFormat=DOCX&templateName=letter.docx`, {
        method: 'POST',
        headers: { authorization: `ReportingCloud-APIKey ${keys[client]}`, 'content-type': 'application/json' },
        body,
      });
      if (reply.status !== 200) throw new Error(`merge answered ${reply.status}: ${await reply.text()}`);
      await reply.arrayBuffer();
    };
    // Warm: every client once on every instance (template caches, prepared plans, pools).
    for (let round = 0; round < instances; round++) await Promise.all(keys.map((_, i) => merge(i, i + round)));
    const before = await statements(servers);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      keys.map(async (_, i) => {
        let turn = i;
        while (next++ < MERGES) await merge(i, turn++);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const sent = (await statements(servers)) - before;
    return { perSecond: MERGES / seconds, statementsPerMerge: sent / MERGES };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  try {
    const admin = await adminServices({ dataDir: tempDir(), databaseUrl: db.url, secret: SECRET });
    const keys: string[] = [];
    const template = docx(p(run('Dear '), mergefield('name'), run(', of '), mergefield('city'))).toString('base64');
    const seed = await startServer({
      DOCSMITH_DATA_DIR: tempDir(),
      DOCSMITH_DATABASE_URL: db.url,
      DOCSMITH_SECRET: SECRET,
      DOCSMITH_OFFICE_PROCESSES: '0',
    });
    try {
      for (let i = 0; i < ACCOUNTS; i++) {
        const account = await makeAccount(admin, `bench${i}`, { licence: `SN-BENCH${i}`, maxDocuments: 10_000_000 });
        const basic = `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}`;
        const created = await fetch(`${seed.url}/v1/account/apikey`, { method: 'PUT', headers: { authorization: basic } });
        if (created.status !== 201) throw new Error(`key creation answered ${created.status}: ${await created.text()}`);
        keys.push((await created.json()) as string);
        const upload = await fetch(`${seed.url}/v1/templates/upload?templateName=letter.docx`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/json' },
          body: JSON.stringify(template),
        });
        if (upload.status !== 201) throw new Error(`upload answered ${upload.status}`);
      }
    } finally {
      await seed.stop();
      await admin.store.close();
    }
    const one = await measure(1, db.url, keys);
    const three = await measure(3, db.url, keys);
    console.log(`Small DOCX merges of a stored template on PostgreSQL, ${ACCOUNTS} clients with API keys, ${MERGES} merges each run:`);
    console.log(`  1 instance:  ${one.perSecond.toFixed(0)} merges/s, ${one.statementsPerMerge.toFixed(2)} statements per merge`);
    console.log(`  3 instances: ${three.perSecond.toFixed(0)} merges/s, ${three.statementsPerMerge.toFixed(2)} statements per merge`);
    console.log(
      `  3 instances / 1: ${(three.perSecond / one.perSecond).toFixed(2)}x (one machine of ${(await import('node:os')).cpus().length} cores: the instances share it)`,
    );
  } finally {
    await db.drop();
  }
}

await main();
