import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, RENAMED_SETTINGS } from '../../src/config.js';

describe('configuration', () => {
  it('reads renamed settings under their old names too, saying which name to use', () => {
    const old = loadConfig({ DOCSMITH_JOB_TIMEOUT_MS: '1234', DOCSMITH_OFFICE_WORKERS: '0', DOCSMITH_JOB_WORKERS: '3' });
    assert.equal(old.processingLimitMs, 1234);
    assert.equal(old.office.processes, 0);
    assert.equal(old.jobs.concurrency, 3);
    assert.deepEqual(
      old.deprecations.map((line) => line.split(' ')[0]),
      Object.keys(RENAMED_SETTINGS),
    );
    assert.match(old.deprecations[0]!, /DOCSMITH_JOB_TIMEOUT_MS is now called DOCSMITH_PROCESSING_LIMIT_MS/);
    const both = loadConfig({ DOCSMITH_JOB_TIMEOUT_MS: '1234', DOCSMITH_PROCESSING_LIMIT_MS: '5678' });
    assert.equal(both.processingLimitMs, 5678, 'the new name wins');
    assert.deepEqual(loadConfig({ DOCSMITH_PROCESSING_LIMIT_MS: '5678' }).deprecations, []);
  });

  it('refuses a short DOCSMITH_SECRET and warns about a weak one', () => {
    assert.throws(
      () => loadConfig({ DOCSMITH_SECRET: 'secret' }),
      /DOCSMITH_SECRET has 6 characters; it needs at least 16 \(make one with `openssl rand -hex 32`\)/,
    );
    assert.match(
      loadConfig({ DOCSMITH_SECRET: 'container-test-secret' }).warnings.join(),
      /DOCSMITH_SECRET has 21 characters; use at least 32 random ones/,
    );
    assert.deepEqual(loadConfig({ DOCSMITH_SECRET: 'f'.repeat(64) }).warnings, []);
    assert.deepEqual(loadConfig({}).warnings, [], 'the generated secret.key is strong');
  });
});
