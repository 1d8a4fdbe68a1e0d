import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { startServer, tempDir, type RunningServer } from '../helpers/server.js';
import { client, type Client } from '../helpers/http.js';
import { mergesHeldUntilRefused } from '../helpers/gates.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { PGBOUNCER, startPgBouncer } from '../helpers/pgbouncer.js';

describe('behind PgBouncer in transaction mode', () => {
  it('migrates, keeps the 2-merge limit across two instances, and leaves no slot taken', async (t) => {
    if (!fs.existsSync(PGBOUNCER)) return t.skip('pgbouncer is not installed (apt-get install pgbouncer; npm test installs it as root)');
    const db = await createTestDatabase();
    const bouncer = await startPgBouncer();
    const servers: RunningServer[] = [];
    try {
      const viaBouncer = new URL(db.url);
      viaBouncer.port = String(bouncer.port);
      const admin = await adminServices({
        dataDir: tempDir(),
        databaseUrl: viaBouncer.toString(),
        secret: 'shared-secret-behind-a-pooler-0123456789',
      });
      const account = await makeAccount(admin, 'pooled', { licence: 'SN-BOUNCE' });
      for (let i = 0; i < 2; i++) {
        servers.push(
          await startServer({
            DOCSMITH_DATA_DIR: tempDir(),
            DOCSMITH_DATABASE_URL: viaBouncer.toString(),
            DOCSMITH_SECRET: 'shared-secret-behind-a-pooler-0123456789',
          }),
        );
      }
      const clients: Client[] = servers.map((s) => client(s.url, { basic: [account.user, account.password] }));
      for (const c of clients) assert.equal((await c.get('/v1/account/settings')).status, 200);

      // Six merges of one account at once over two instances: exactly two run, four are refused.
      const answers = await mergesHeldUntilRefused(
        clients,
        servers.map((s) => s.url),
        6,
        4,
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 200, 403, 403, 403, 403], answers.map((a) => a.text).join('\n'));
      // Nothing stays taken: the next two run.
      const next = await Promise.all([clients[0]!.post('/v1/_test/operation?merge=1'), clients[1]!.post('/v1/_test/operation?merge=1')]);
      assert.deepEqual(
        next.map((a) => a.status),
        [200, 200],
      );
      await admin.store.close();
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await bouncer.stop();
      await db.drop();
    }
  });
});
