import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, fixture } from '../helpers/server.js';
import { request } from '../helpers/http.js';
import { adminServices, makeAccount, untilFullyReady } from '../helpers/accounts.js';

/** Office processes (and their sandboxes) that work for the data folder. */
function officeProcesses(dataDir: string): number[] {
  const marker = `UserInstallation=file://${path.join(dataDir, 'office')}`;
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A soffice that fails its first two starts in each profile, as a fresh machine's first start can. */
function flakyOffice(): string {
  const script = path.join(tempDir(), 'flaky-soffice.sh');
  fs.writeFileSync(
    script,
    `#!/bin/sh
n=$(cat "$HOME/.docsmith-test-fails" 2>/dev/null || echo 0)
if [ "$n" -lt 2 ]; then echo $((n + 1)) > "$HOME/.docsmith-test-fails"; exit 1; fi
exec /usr/lib/libreoffice/program/soffice.bin "$@"
`,
    { mode: 0o755 },
  );
  return script;
}

describe('the service starts, heals and restarts on its own', () => {
  it('becomes ready although its office fails to start at first, heals after kills, and a kill -9 leaves no office behind', async () => {
    const dataDir = tempDir();
    const admin = await adminServices({ dataDir });
    const account = await makeAccount(admin, 'ops', { licence: 'SN-OPS' });
    await admin.store.close();
    const env = { DOCSMITH_DATA_DIR: dataDir, DOCSMITH_OFFICE_PROCESSES: '1', DOCSMITH_SOFFICE: flakyOffice() };
    const auth = { basic: [account.user, account.password] as [string, string] };
    const convert = async (url: string) => {
      const reply = await request(url, 'POST', '/v1/document/convert?returnFormat=TXT', {
        auth,
        json: fixture('test_document.docx').toString('base64'),
      });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(Buffer.from(reply.json() as string, 'base64').toString('latin1'), 'A Test File\r\n');
    };

    const server = await startServer(env);
    let orphans: number[];
    try {
      await untilFullyReady(server.url, 120_000);
      await convert(server.url);
      for (let i = 0; i < 3; i++) {
        const before = officeProcesses(dataDir);
        assert.ok(before.length > 0);
        for (const pid of before) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone with its group already
          }
        }
        await waitFor(() => officeProcesses(dataDir).some((pid) => !before.includes(pid)), 60_000, 'a replacement office');
        await untilFullyReady(server.url, 60_000);
        await convert(server.url);
      }
      orphans = officeProcesses(dataDir);
    } finally {
      await server.kill(); // kill -9: no chance to clean up
    }

    const restarted = await startServer(env);
    try {
      await untilFullyReady(restarted.url, 120_000);
      await convert(restarted.url);
      // Gone with their parent (sandbox) or reaped by the new process at start.
      const alive = orphans.filter(
        (pid) => fs.existsSync(`/proc/${pid}`) && !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '),
      );
      assert.deepEqual(alive, [], 'office processes of the killed server still run');
      const profiles = fs.readdirSync(path.join(dataDir, 'office')).filter((name) => name.startsWith('profile-'));
      assert.ok(profiles.length <= 2, `profiles: ${profiles.join(', ')}`);
      const ready = (await request(restarted.url, 'GET', '/readyz')).json() as { office: { warm: number; configured: number } };
      assert.equal(ready.office.warm, 1);
    } finally {
      await restarted.stop();
    }
  });
});
