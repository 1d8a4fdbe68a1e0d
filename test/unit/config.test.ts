import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, RENAMED_SETTINGS } from '../../src/config.js';
import { officeAllocator, officePreload } from '../../src/office/allocator.js';
import { tempDir } from '../helpers/server.js';

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

  it('keeps only a digest of DOCSMITH_OPERATOR_TOKEN and refuses a short one', () => {
    assert.throws(
      () => loadConfig({ DOCSMITH_OPERATOR_TOKEN: 'a'.repeat(31) }),
      /DOCSMITH_OPERATOR_TOKEN has 31 characters; it needs at least 32/,
    );
    assert.equal(loadConfig({}).operatorTokenHash, undefined, 'no token: the operator API is off');
    const hash = loadConfig({ DOCSMITH_OPERATOR_TOKEN: 'b'.repeat(40) }).operatorTokenHash;
    assert.equal(hash?.length, 32);
    assert.ok(!JSON.stringify(loadConfig({ DOCSMITH_OPERATOR_TOKEN: 'b'.repeat(40) })).includes('b'.repeat(40)));
  });

  it('turns object storage on with DOCSMITH_S3_BUCKET, and says what is wrong with the rest', () => {
    assert.equal(loadConfig({}).objectStorage, undefined);
    assert.deepEqual(loadConfig({ DOCSMITH_S3_BUCKET: 'b', DOCSMITH_S3_PREFIX: 'acme' }).objectStorage, {
      bucket: 'b',
      prefix: 'acme/',
      region: 'us-east-1',
      timeoutMs: 10_000,
    });
    assert.deepEqual(
      loadConfig({
        DOCSMITH_S3_BUCKET: 'b',
        DOCSMITH_S3_ENDPOINT: 'http://minio:9000',
        AWS_REGION: 'eu-central-1',
        DOCSMITH_S3_ACCESS_KEY_ID: 'id',
        DOCSMITH_S3_SECRET_ACCESS_KEY: 'secret',
        DOCSMITH_S3_TIMEOUT_MS: '2500',
      }).objectStorage,
      {
        bucket: 'b',
        prefix: 'docsmith/',
        endpoint: 'http://minio:9000',
        region: 'eu-central-1',
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
        timeoutMs: 2500,
      },
    );
    assert.throws(() => loadConfig({ DOCSMITH_S3_BUCKET: 'b', DOCSMITH_S3_ACCESS_KEY_ID: 'id' }), /go together/);
    assert.throws(() => loadConfig({ DOCSMITH_S3_BUCKET: 'b', DOCSMITH_S3_ENDPOINT: 'minio:9000' }), /must be an http\(s\):\/\/ URL/);
  });

  it('preloads jemalloc into the office where it is installed, the system allocator on "system", or a named library', () => {
    assert.equal(loadConfig({}).office.allocator, 'auto');
    assert.equal(loadConfig({ DOCSMITH_OFFICE_ALLOCATOR: 'system' }).office.allocator, 'system');
    const library = path.join(tempDir(), 'libmalloc.so');
    fs.writeFileSync(library, '');
    assert.equal(loadConfig({ DOCSMITH_OFFICE_ALLOCATOR: library }).office.allocator, library);
    assert.throws(() => loadConfig({ DOCSMITH_OFFICE_ALLOCATOR: 'jemalloc' }), /must be auto, system or an absolute path, got "jemalloc"/);
    assert.throws(
      () => loadConfig({ DOCSMITH_OFFICE_ALLOCATOR: `${library}.gone` }),
      /which does not exist \(install it, or use auto or system\)/,
    );

    const installed = new Set(['/usr/lib64/libjemalloc.so.2']);
    assert.equal(
      officeAllocator('auto', (file) => installed.has(file)),
      '/usr/lib64/libjemalloc.so.2',
    );
    assert.equal(
      officeAllocator('auto', () => false),
      undefined,
      'none installed: the system allocator',
    );
    assert.equal(
      officeAllocator('system', () => true),
      undefined,
    );
    assert.equal(officeAllocator(library as `/${string}`), library);
    assert.deepEqual(officePreload(undefined), { env: {}, readable: [] });
    assert.deepEqual(officePreload('/usr/lib64/libjemalloc.so.2'), {
      env: { LD_PRELOAD: '/usr/lib64/libjemalloc.so.2' },
      readable: [],
    });
    assert.deepEqual(
      officePreload(library),
      { env: { LD_PRELOAD: library }, readable: [library] },
      'outside /usr the sandbox must let the office read it',
    );
  });
});
