import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serverWithAccounts } from '../helpers/accounts.js';
import { request } from '../helpers/http.js';
import { docx, p, run } from '../helpers/docx.js';
import { until } from '../helpers/wait.js';
import { confiningSandboxes } from '../../src/office/sandbox.js';

/** The server's scratch folder: in /dev/shm, or in its data folder where /dev/shm is small. */
function scratchOf(pid: number, dataDir: string): string {
  for (const [parent, prefix] of [
    ['/dev/shm', `docsmith-${pid}-`],
    [path.join(dataDir, 'tmp'), `${pid}-`],
  ] as const) {
    const name = fs.existsSync(parent) ? fs.readdirSync(parent).find((n) => n.startsWith(prefix)) : undefined;
    if (name) return path.join(parent, name);
  }
  throw new Error('the server has no scratch folder');
}

for (const sandbox of ['bubblewrap', 'landlock', 'off'] as const) {
  const skip = sandbox !== 'off' && !confiningSandboxes().includes(sandbox) && `${sandbox} cannot run on this machine`;
  describe(`losing the scratch folder (sandbox: ${sandbox})`, { skip }, () => {
    let env: Awaited<ReturnType<typeof serverWithAccounts>>;
    let scratch: string;
    const convert = () =>
      env.clients.ann!.post('/v1/document/convert?returnFormat=PDF', { json: docx(p(run('still here'))).toString('base64') });
    before(async () => {
      env = await serverWithAccounts({ ann: { licence: 'SN-SCR' } }, { DOCSMITH_OFFICE_PROCESSES: '2', DOCSMITH_OFFICE_SANDBOX: sandbox });
      scratch = scratchOf(env.server.child.pid!, env.dataDir);
    });
    after(() => env?.close());

    it('office work goes on after something removed the whole folder: each process is replaced with a folder of its own', async () => {
      assert.equal((await convert()).status, 200);
      fs.rmSync(scratch, { recursive: true, force: true });
      for (let i = 0; i < 4; i++) {
        const reply = await convert();
        assert.equal(reply.status, 200, reply.text.slice(0, 300));
      }
      assert.equal((await request(env.server.url, 'GET', '/readyz')).status, 200);
    });

    it('/readyz says 503 while the folder cannot be written, and 200 again once it can', async () => {
      fs.rmSync(scratch, { recursive: true, force: true });
      fs.writeFileSync(scratch, 'a file where the folder was');
      const refused = await request(env.server.url, 'GET', '/readyz');
      assert.equal(refused.status, 503);
      assert.match(refused.text, /scratch folder for office work cannot be written/);
      fs.rmSync(scratch);
      await until('ready again', async () => (await request(env.server.url, 'GET', '/readyz')).status === 200);
      assert.equal((await convert()).status, 200);
    });
  });
}
