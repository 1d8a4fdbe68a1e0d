import fs from 'node:fs';
import { tempDir, startServer } from '../test/helpers/server.js';
import { adminServices, makeAccount } from '../test/helpers/accounts.js';
const dataDir = tempDir();
const admin = await adminServices({ dataDir });
const account = await makeAccount(admin, 'sweep', { licence: 'SN-BENCH', maxDocuments: 100_000_000 });
await admin.store.close();
const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_LOG_LEVEL: 'info', DOCSMITH_OFFICE_WORKERS: '2' });
const authorization = `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}`;
while ((await fetch(`${server.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
const files = fs.readdirSync('/tmp/poi').filter((f) => !process.argv[2] || f.includes(process.argv[2]));
const query = process.env.Q ?? '';
await Promise.all([0, 1].map(async (lane) => {
  for (let i = lane; i < files.length; i += 2) {
    const f = files[i]!;
    const bytes = fs.readFileSync(`/tmp/poi/${f}`);
    const s = performance.now();
    const r = await fetch(`${server.url}/v1/document/convert?returnFormat=PDF${query}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(bytes.toString('base64')) }).catch((e) => ({ status: 0, text: async () => String(e) }));
    const text = await r.text();
    const ms = performance.now() - s;
    console.log(`${r.status} ${ms.toFixed(0).padStart(6)} ms ${f} ${r.status === 200 ? '' : text.slice(0, 140)}`);
  }
}));
await server.stop();
console.log('log', fs.readdirSync('.test-output').map((f) => `.test-output/${f}`).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]);
