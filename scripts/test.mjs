#!/usr/bin/env node
// The full check: type-check, lint, then every test file with Node's test runner against real
// parts (a server process, SQLite, PostgreSQL at DOCSMITH_TEST_PG_URL).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function step(title, command, args) {
  console.log(`\n== ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n${title} failed`);
    process.exit(result.status ?? 1);
  }
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return testFiles(full);
      return entry.name.endsWith('.test.ts') ? [path.relative(root, full)] : [];
    })
    .sort();
}

// `--unit`: the pure tier (test/unit), no office, database server or browser: seconds.
const unit = process.argv.includes('--unit');
// `--visual [--update]`: the visual regression suite alone; --update writes new approved images.
const visual = process.argv.includes('--visual');
// `--no-browser`: every tier but the portal's Chromium tests (CI's second runtime).
const noBrowser = process.argv.includes('--no-browser');
const only = process.argv.slice(2).filter((arg) => !['--unit', '--visual', '--update', '--no-browser'].includes(arg));
if (visual) {
  process.env.DOCSMITH_VISUAL_UPDATE = process.argv.includes('--update') ? '1' : '0';
  step('visual regression', process.execPath, [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    path.join('test', 'visual', 'visual.test.ts'),
  ]);
  process.exit(0);
}
if (unit) {
  step('unit tests', process.execPath, [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    ...testFiles(path.join(root, 'test', 'unit')),
  ]);
  process.exit(0);
}
// Type-check and lint once, on the default runtime; a second runtime runs the tests only.
if (only.length === 0 && !noBrowser) {
  step('type-check', bin('tsc'), ['-p', 'tsconfig.json']);
  step('type-check (portal)', bin('tsc'), ['-p', 'portal/tsconfig.json']);
  step('lint', bin('eslint'), ['.']);
  // One style, checked: `npm run format` writes it.
  step('format', bin('prettier'), ['--check', '--log-level', 'warn', '**/*.{ts,mts,js,mjs,tsx}']);
}
// The container image builds for minutes on both cores: alone, after the rest (it skips itself,
// saying why, where podman is missing). A second runtime does not build it again.
const container = path.join('test', 'container');
// Each file gets 5 minutes: a limit for hangs, far above what any file needs on a busy machine.
step('tests', process.execPath, [
  '--import',
  'tsx',
  '--test',
  '--test-reporter=spec',
  '--test-concurrency=2',
  '--test-timeout=300000',
  ...(only.length
    ? only
    : testFiles(path.join(root, 'test')).filter(
        (file) => !file.startsWith(container) && !(noBrowser && file.startsWith(path.join('test', 'portal'))),
      )),
]);
if (only.length === 0 && !noBrowser) {
  step('container image', process.execPath, [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-timeout=2700000',
    ...testFiles(path.join(root, container)),
  ]);
}
