/**
 * Proofing latency on this machine (no alternative runs here, so this reports figures, not
 * ratios): /v1/proofing/check for a 10,000-word text and /v1/proofing/suggestions, p50 over
 * repeated calls after the dictionary is loaded.
 */
import { performance } from 'node:perf_hooks';
import { benchServer, median } from './support.js';

const WORDS = 'the quick brown fox jumps over the lazy dog while speling mistaks apear now and then in ordinary sentences'.split(' ');

const server = await benchServer();
const { authorization } = server;
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
