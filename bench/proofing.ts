/**
 * Proofing latency on this machine (no alternative runs here, so this reports figures, not
 * ratios): /v1/proofing/check for a 10,000-word text and /v1/proofing/suggestions, p50 over
 * repeated calls after the dictionary is loaded.
 */
import { performance } from 'node:perf_hooks';
import { startServer, tempDir } from '../test/helpers/server.js';
import { adminServices, makeAccount } from '../test/helpers/accounts.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const WORDS = 'the quick brown fox jumps over the lazy dog while speling mistaks apear now and then in ordinary sentences'.split(' ');

const dataDir = tempDir();
const admin = await adminServices({ dataDir });
const account = await makeAccount(admin, 'bench', { licence: 'SN-BENCH', maxProofingTransactions: 1_000_000 });
await admin.store.close();
const server = await startServer({ DOCSMITH_DATA_DIR: dataDir, DOCSMITH_LOG_LEVEL: 'warn' });
const authorization = `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}`;
try {
  const text = Array.from({ length: 10_000 }, (_, i) => WORDS[i % WORDS.length]).join(' ');
  const time = async (path: string, runs: number) => {
    const xs: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const t = performance.now();
      const response = await fetch(`${server.url}${path}`, { headers: { authorization } });
      await response.text();
      if (response.status !== 200) throw new Error(`${response.status}`);
      if (i >= 2) xs.push(performance.now() - t);
    }
    return median(xs);
  };
  const check = await time(`/v1/proofing/check?text=${encodeURIComponent(text)}&language=en_US.dic`, 10);
  const suggest = await time('/v1/proofing/suggestions?word=speling&language=en_US.dic&max=5', 20);
  console.log(`\nproofing: check of a 10,000-word text p50 ${check.toFixed(1)} ms; suggestions p50 ${suggest.toFixed(1)} ms`);
} finally {
  await server.stop();
}
