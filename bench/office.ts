/**
 * Office engine benchmark, in one run on this machine:
 *  1. the warm pool against `soffice --convert-to pdf` per call, same fixtures;
 *  2. end-to-end POST /v1/document/convert against the office time the bridge reports;
 *  3. throughput with 20 concurrent clients and the default pool.
 * Prints ratios; absolute times vary with the machine.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { testPool } from '../test/helpers/office.js';
import { FIXTURES, tempDir } from '../test/helpers/server.js';
import { benchServer, median } from './support.js';
import { DOCX_IMPORT_FILTER } from '../src/office/filters.js';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

const FILES = ['test_document.docx', 'sample_docx.docx', 'maelzel_machine.docx'];

async function poolVersusCommand(): Promise<void> {
  console.log('\n1. warm pool vs `soffice --convert-to pdf` per call (one-page documents)');
  const pool = testPool({ size: 1 });
  await pool.start();
  const profile = tempDir('bench-profile-');
  const work = tempDir('bench-');
  try {
    for (const name of FILES) {
      const input = path.join(work, name);
      fs.copyFileSync(path.join(FIXTURES, 'resource', name), input);
      // Warm the command's profile once so it is measured at its best.
      spawnSync('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--convert-to', 'pdf', '--outdir', work, input], {
        stdio: 'ignore',
      });
      const command: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const r = spawnSync(
          'soffice',
          [`-env:UserInstallation=file://${profile}`, '--headless', '--convert-to', 'pdf', '--outdir', work, input],
          { stdio: 'ignore' },
        );
        if (r.status !== 0) throw new Error(`soffice failed on ${name}`);
        command.push(performance.now() - t);
      }
      const pooled: number[] = [];
      for (let i = 0; i < 30; i++) {
        const t = performance.now();
        await pool.run({ input, output: path.join(work, `p-${i}.pdf`), filter: 'writer_pdf_Export', inputFilter: DOCX_IMPORT_FILTER });
        pooled.push(performance.now() - t);
      }
      console.log(
        `  ${name.padEnd(22)} soffice per call ${fmt(median(command))}   pool ${fmt(median(pooled))}   pool is ${(median(command) / median(pooled)).toFixed(1)}x faster`,
      );
    }
  } finally {
    await pool.close();
  }
}

async function endToEnd(): Promise<void> {
  const server = await benchServer({ DOCSMITH_OFFICE_PROCESSES: String(os.cpus().length), DOCSMITH_TEST_ROUTES: '0' });
  try {
    const body = JSON.stringify(fs.readFileSync(path.join(FIXTURES, 'resource', 'test_document.docx')).toString('base64'));
    // Like the SDKs' HTTP clients, reuse connections (fetch keeps them alive).
    const { authorization } = server;
    const convert = async () => {
      const response = await fetch(`${server.url}/v1/document/convert?returnFormat=PDF`, {
        method: 'POST',
        body,
        headers: { authorization, 'content-type': 'application/json' },
      });
      const text = await response.text();
      return { status: response.status, text, officeMs: Number(response.headers.get('x-office-ms')) };
    };
    for (let i = 0; i < 10; i++) await convert();

    console.log('\n2. pool overhead: end-to-end /v1/document/convert DOCX->PDF vs the office time of the same job');
    const ratios: number[] = [];
    const total: number[] = [];
    const office: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t = performance.now();
      const reply = await convert();
      const elapsed = performance.now() - t;
      if (reply.status !== 200) throw new Error(reply.text);
      const officeMs = reply.officeMs;
      total.push(elapsed);
      office.push(officeMs);
      ratios.push(elapsed / officeMs);
    }
    console.log(`  end-to-end p50 ${fmt(median(total))}   office p50 ${fmt(median(office))}   ratio p50 ${median(ratios).toFixed(2)}x`);

    console.log(`\n3. throughput: 20 concurrent clients, pool of ${os.cpus().length}`);
    const latencies: number[] = [];
    let errors = 0;
    const started = performance.now();
    const perClient = 15;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = 0; i < perClient; i++) {
          const t = performance.now();
          const reply = await convert();
          latencies.push(performance.now() - t);
          if (reply.status !== 200) errors++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `  ${latencies.length} conversions in ${seconds.toFixed(1)} s: ${(latencies.length / seconds).toFixed(1)} per second, p50 ${fmt(median(latencies))}, p99 ${fmt(pct(latencies, 0.99))}, errors ${errors}`,
    );
  } finally {
    await server.stop();
  }
}

await poolVersusCommand();
await endToEnd();
