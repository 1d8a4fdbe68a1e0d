#!/usr/bin/env node
// Set-up that `npm start` and `npm test` run first: installs the npm packages when the lock
// file changed and compiles the TypeScript when a source changed. Quiet when nothing to do.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    console.error(`setup: "${command} ${args.join(' ')}" failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 10)) {
  console.error(
    `setup: docsmith needs Node.js 20.10 or newer; this is ${process.version}. Install a newer Node.js (https://nodejs.org or your package manager).`,
  );
  process.exit(1);
}

// System parts, from Debian's packages: installed when running as root, else named for the user.
// node-gyp builds the SQLite binding with python3, make and g++; the office engine is LibreOffice
// driven over UNO by Debian's python3-uno, with metric-compatible fonts for Office documents.
function has(command) {
  return spawnSync('sh', ['-c', command], { stdio: 'ignore' }).status === 0;
}
// `--npm-only` (npm run test:unit): the npm packages and their build tools, nothing else.
const npmOnly = process.argv.includes('--npm-only');
// `--system-only` (the container image's runtime stage): the Debian packages the service runs
// with (office, fonts, dictionaries), no build tools, no npm packages.
const systemOnly = process.argv.includes('--system-only');
// Node.js 20 reached end of life in April 2026: it still works, but say so.
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 22) {
  console.warn(
    `setup: warning: Node.js ${process.version} is past its end of life (April 2026); docsmith still runs on it, but use Node.js 24 or 22 (the LTS lines it is tested on).`,
  );
}
const officeWanted = !npmOnly && (process.env.DOCSMITH_OFFICE_PROCESSES ?? process.env.DOCSMITH_OFFICE_WORKERS) !== '0';
// The portal's end-to-end tests drive Debian's Chromium; only `npm test` needs it.
const browserWanted = !npmOnly && process.env.npm_lifecycle_event === 'pretest' && process.env.DOCSMITH_BROWSER_TESTS !== '0';
const SYSTEM_PARTS = [
  ...(systemOnly
    ? []
    : [
        { check: 'command -v python3', packages: ['python3'] },
        { check: 'command -v make', packages: ['make'] },
        { check: 'command -v g++', packages: ['g++'] },
      ]),
  ...(officeWanted
    ? [
        { check: 'test -x /usr/lib/libreoffice/program/soffice.bin', packages: ['libreoffice-writer-nogui', 'libreoffice-calc-nogui'] },
        { check: '/usr/bin/python3 -c "import uno"', packages: ['python3-uno'] },
        // The office's sandbox: it sees the system's programs and fonts and its own job, nothing else.
        { check: 'command -v bwrap', packages: ['bubblewrap'] },
        // The office's allocator (DOCSMITH_OFFICE_ALLOCATOR=auto): a small document converts 5-25 % faster.
        {
          check: 'ls /usr/lib/*/libjemalloc.so.2 /usr/lib64/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 2>/dev/null | grep -q .',
          packages: ['libjemalloc2'],
        },
        { check: 'command -v fc-list', packages: ['fontconfig'] },
        { check: 'fc-list | grep -q Carlito', packages: ['fonts-crosextra-carlito'] },
        { check: 'fc-list | grep -q Caladea', packages: ['fonts-crosextra-caladea'] },
        { check: 'fc-list | grep -q "Liberation Sans"', packages: ['fonts-liberation2'] },
        { check: 'fc-list | grep -q "DejaVu Sans"', packages: ['fonts-dejavu-core'] },
        // Spelling dictionaries for /proofing (Hunspell format), ReportingCloud's set as far as Debian has it.
        ...dictionaryPackages().map((pkg) => ({ check: `dpkg -s ${pkg} >/dev/null 2>&1 || ! command -v dpkg`, packages: [pkg] })),
      ]
    : []),
  ...(browserWanted ? [{ check: 'test -x /usr/bin/chromium', packages: ['chromium'] }] : []),
  // The tests run the PostgreSQL store behind a transaction-mode pooler too.
  ...(process.env.npm_lifecycle_event === 'pretest'
    ? [
        { check: 'test -x /usr/sbin/pgbouncer', packages: ['pgbouncer'] },
        // Signed PDFs are checked with poppler's pdfsig, against a certificate openssl makes.
        { check: 'command -v pdfsig', packages: ['poppler-utils'] },
        { check: 'command -v openssl', packages: ['openssl'] },
        // E-invoices' XML is checked against the Factur-X schema with xmllint.
        { check: 'command -v xmllint', packages: ['libxml2-utils'] },
      ]
    : []),
];
/** The Debian packages of the dictionaries DOCSMITH_DICTIONARIES asks for (default: all of them). */
function dictionaryPackages() {
  const table = JSON.parse(readFileSync(path.join(root, 'src', 'proofing', 'dictionaries.json'), 'utf8'));
  const wanted = (process.env.DOCSMITH_DICTIONARIES ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  const all = wanted.length === 0 || wanted.includes('all');
  const chosen = table.filter((d) => all || wanted.includes(d.name.toLowerCase()));
  const unavailable = chosen.filter((d) => !d.package).map((d) => `${d.name} (${d.missing})`);
  if (unavailable.length && process.env.npm_lifecycle_event !== 'prestart')
    console.log(`setup: dictionaries no package provides: ${unavailable.join(', ')}`);
  return [...new Set(chosen.filter((d) => d.package).map((d) => d.package))];
}

const missing = [...new Set(SYSTEM_PARTS.filter((part) => !has(part.check)).flatMap((part) => part.packages))];
if (missing.length > 0) {
  if (process.getuid?.() === 0 && has('command -v apt-get')) {
    console.log(`setup: installing ${missing.join(' ')} (Debian packages)`);
    run('apt-get', ['update']);
    run('env', ['DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '--no-install-recommends', ...missing]);
  } else {
    console.error(
      `setup: missing system packages: ${missing.join(' ')}\n` +
        `  install them first, e.g.: sudo apt-get install ${missing.join(' ')}\n` +
        '  (or run without the office engine: DOCSMITH_OFFICE_PROCESSES=0; without the browser tests: DOCSMITH_BROWSER_TESTS=0)',
    );
    process.exit(1);
  }
}

// Debian's LibreOffice without a GUI (libreoffice-writer-nogui) leaves out Writer's window
// descriptions (.ui files), yet Writer builds a window from one for each comment when it lays out
// a document, and without the file the office aborts (every document with comments crashed it).
// They come from the same version's full writer package, unpacked, not installed (it would pull
// in the desktop GUI), and are refreshed when the office is upgraded.
function officeUiFiles() {
  if (!officeWanted || !has('dpkg -s libreoffice-writer-nogui >/dev/null 2>&1')) return;
  const target = '/usr/lib/libreoffice/share/config/soffice.cfg/modules/swriter/ui';
  const version = spawnSync('dpkg-query', ['-W', '-f=${Version}', 'libreoffice-writer-nogui']).stdout.toString().trim();
  const marker = path.join(target, '.docsmith-version');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === version) return;
  if (process.getuid?.() !== 0) {
    console.warn(
      `setup: warning: LibreOffice's Writer window files are missing (${target}); documents with comments need the one-off office (seconds each). Run the set-up as root once, or install libreoffice-writer.`,
    );
    return;
  }
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'docsmith-office-ui-'));
  try {
    const download = () =>
      spawnSync('apt-get', ['download', `libreoffice-writer=${version}`], { cwd: scratch, stdio: 'ignore' }).status === 0;
    if (!download() && !(spawnSync('apt-get', ['update'], { stdio: 'ignore' }).status === 0 && download())) {
      console.warn(
        `setup: warning: could not download libreoffice-writer ${version} for its Writer window files; documents with comments will use the one-off office.`,
      );
      return;
    }
    const deb = readdirSync(scratch).find((name) => name.endsWith('.deb'));
    run('dpkg-deb', ['-x', path.join(scratch, deb), path.join(scratch, 'x')]);
    const from = path.join(scratch, 'x', target);
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(from)) if (name.endsWith('.ui')) copyFileSync(path.join(from, name), path.join(target, name));
    writeFileSync(marker, version);
    console.log(`setup: added LibreOffice's Writer window files (from libreoffice-writer ${version})`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
officeUiFiles();

if (systemOnly) process.exit(0);

// npm packages: reinstall when package.json or the lock file changed since the last install.
const lock = existsSync(path.join(root, 'package-lock.json')) ? 'package-lock.json' : null;
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const digest = createHash('sha256')
  .update(JSON.stringify([manifest.dependencies, manifest.devDependencies, manifest.allowScripts, manifest.overrides]))
  .update(lock ? readFileSync(path.join(root, lock)) : '')
  .digest('hex');
const stamp = path.join(root, 'node_modules', '.docsmith-setup');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== digest) {
  console.log('setup: installing npm packages');
  run(npm, lock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund']);
  writeFileSync(stamp, digest);
}

if (npmOnly) process.exit(0);

// Compile when any source is newer than the last build.
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}
/** Non-TypeScript files the code loads at run time (the office bridge). */
function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, path.join(to, entry.name));
    else if (entry.name.endsWith('.py')) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, path.join(to, entry.name));
    }
  }
}
const built = path.join(root, 'dist', '.build-stamp');
const sources = Math.max(
  newest(path.join(root, 'src')),
  newest(path.join(root, 'packages', 'client', 'src')),
  statSync(path.join(root, 'tsconfig.json')).mtimeMs,
  statSync(path.join(root, 'tsconfig.build.json')).mtimeMs,
);
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  console.log('setup: compiling TypeScript');
  run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
  copyAssets(path.join(root, 'src'), path.join(root, 'dist'));
  run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'packages/client/tsconfig.json']);
  writeFileSync(built, new Date().toISOString());
}

// The web portal (portal/, Vite) builds into dist/portal when its sources changed.
const portalBuilt = path.join(root, 'dist', 'portal', 'index.html');
const portalSources = Math.max(
  newest(path.join(root, 'portal')),
  // Everything the portal bundles is in these two (it imports no server source: test/unit/layering.test.ts).
  newest(path.join(root, 'packages', 'client', 'src')),
);
if (!existsSync(portalBuilt) || statSync(portalBuilt).mtimeMs < portalSources) {
  console.log('setup: building the web portal');
  run(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'portal/vite.config.ts']);
}
