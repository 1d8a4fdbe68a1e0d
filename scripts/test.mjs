#!/usr/bin/env node
// The full check: type-check, lint, then every test file with Node's test runner against real
// parts (a server process, SQLite, PostgreSQL at DOCSMITH_TEST_PG_URL).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
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

/**
 * The tiers, cheapest first; `npm test` runs them in this order, so a broken unit fails in
 * seconds, not after the servers. A test file's folder decides its tier.
 * - unit: pure code, no office, database server, process or browser (test/unit);
 * - integration: the real office, SQLite and PostgreSQL, worker threads, without HTTP;
 * - end-to-end: server processes over HTTP, the CLI, the client, the portal in Chromium, the
 *   security suite against every deployment.
 * The container image (test/container) builds for minutes on both cores: alone, after the rest
 * (it skips itself, saying why, where podman is missing).
 */
const TIERS = {
  unit: ['unit'],
  integration: ['store', 'office', 'operations', 'compose', 'merge', 'visual'],
  'end-to-end': ['api', 'cli', 'client', 'portal', 'security'],
};

// `--unit`: the pure tier alone: seconds. `--tier NAME`: one tier (unit, integration, end-to-end).
const tierArg = process.argv.indexOf('--tier');
const tier = process.argv.includes('--unit') ? 'unit' : tierArg > 0 ? process.argv[tierArg + 1] : undefined;
if (tier !== undefined && !(tier in TIERS)) {
  console.error(`--tier must be one of ${Object.keys(TIERS).join(', ')}, not "${tier}"`);
  process.exit(2);
}
// `--visual [--update]`: the visual regression suite alone; --update writes new approved images.
const visual = process.argv.includes('--visual');
// `--no-browser`: every tier but the portal's Chromium tests (CI's second runtime).
const noBrowser = process.argv.includes('--no-browser');
const flags = new Set(['--unit', '--visual', '--update', '--no-browser', '--tier', tier]);
const only = process.argv.slice(2).filter((arg) => !flags.has(arg));
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

const tierFiles = (name) =>
  TIERS[name]
    .flatMap((folder) => testFiles(path.join(root, 'test', folder)))
    .filter((file) => !(noBrowser && file.startsWith(path.join('test', 'portal'))));

// Each file gets 5 minutes: a limit for hangs, far above what any file needs on a busy machine.
const runTests = (title, files) =>
  step(title, process.execPath, [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-concurrency=2',
    '--test-timeout=300000',
    ...files,
  ]);

/**
 * The unit tier in one process: its files test code without servers or offices, and a process
 * per file cost more CPU starting Node and loading modules than the tests themselves (about 70 s
 * against 22). The other tiers keep a process per file.
 */
function runUnitTests() {
  const entry = path.join(root, '.test-output', 'unit.test.mjs');
  mkdirSync(path.dirname(entry), { recursive: true });
  writeFileSync(
    entry,
    tierFiles('unit')
      .map((file) => `import ${JSON.stringify(path.relative(path.dirname(entry), file))};\n`)
      .join(''),
  );
  runTests('unit tests', [path.relative(root, entry)]);
}

if (tier === 'unit') {
  runUnitTests();
  process.exit(0);
}
// Type-check and lint once, on the default runtime; a second runtime runs the tests only.
if (only.length === 0 && !noBrowser && tier === undefined) {
  step('type-check', bin('tsc'), ['-p', 'tsconfig.json']);
  step('type-check (portal)', bin('tsc'), ['-p', 'portal/tsconfig.json']);
  step('lint', bin('eslint'), ['.']);
  // One style, checked: `npm run format` writes it.
  step('format', bin('prettier'), ['--check', '--log-level', 'warn', '**/*.{ts,mts,js,mjs,tsx}']);
}
if (only.length) {
  runTests('tests', only);
  process.exit(0);
}
// Every test file has a tier: a new folder must be placed in one.
const placed = new Set(
  Object.values(TIERS)
    .flat()
    .map((file) => file),
);
const unplaced = readdirSync(path.join(root, 'test'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['container', 'fixtures', 'helpers'].includes(entry.name) && !placed.has(entry.name))
  .filter((entry) => testFiles(path.join(root, 'test', entry.name)).length > 0);
if (unplaced.length) {
  console.error(`test folders in no tier (add them to TIERS in scripts/test.mjs): ${unplaced.map((e) => e.name).join(', ')}`);
  process.exit(1);
}
for (const name of tier ? [tier] : Object.keys(TIERS)) {
  if (name === 'unit') runUnitTests();
  else runTests(`${name} tests`, tierFiles(name));
}
if (tier === undefined && !noBrowser) {
  const container = path.join('test', 'container');
  step('container image', process.execPath, [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-timeout=2700000',
    ...testFiles(path.join(root, container)),
  ]);
}
