#!/usr/bin/env node
// Set-up that `npm start` and `npm test` run first: installs the npm packages when the lock
// file changed and compiles the TypeScript when a source changed. Quiet when nothing to do.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
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
  console.error(`setup: docsmith needs Node.js 20.10 or newer; this is ${process.version}. Install a newer Node.js (https://nodejs.org or your package manager).`);
  process.exit(1);
}

// System tools, from Debian's packages: installed when running as root, else named for the user.
// (node-gyp builds the SQLite binding with python3, make and g++.)
const SYSTEM_TOOLS = [
  { command: 'python3', pkg: 'python3' },
  { command: 'make', pkg: 'make' },
  { command: 'g++', pkg: 'g++' },
];
function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}
const missing = SYSTEM_TOOLS.filter((tool) => !has(tool.command)).map((tool) => tool.pkg);
if (missing.length > 0) {
  if (process.getuid?.() === 0 && has('apt-get')) {
    console.log(`setup: installing ${missing.join(' ')}`);
    run('apt-get', ['update']);
    run('apt-get', ['install', '-y', '--no-install-recommends', ...missing]);
  } else {
    console.error(`setup: missing ${missing.join(', ')}; install them first, e.g. "sudo apt-get install ${missing.join(' ')}"`);
    process.exit(1);
  }
}

// npm packages: reinstall when package.json or the lock file changed since the last install.
const lock = existsSync(path.join(root, 'package-lock.json')) ? 'package-lock.json' : null;
const digest = createHash('sha256')
  .update(readFileSync(path.join(root, 'package.json')))
  .update(lock ? readFileSync(path.join(root, lock)) : '')
  .digest('hex');
const stamp = path.join(root, 'node_modules', '.docsmith-setup');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== digest) {
  console.log('setup: installing npm packages');
  run(npm, lock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund']);
  writeFileSync(stamp, digest);
}

// Compile when any source is newer than the last build.
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}
const built = path.join(root, 'dist', '.build-stamp');
const sources = Math.max(newest(path.join(root, 'src')), statSync(path.join(root, 'tsconfig.json')).mtimeMs,
  statSync(path.join(root, 'tsconfig.build.json')).mtimeMs);
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  console.log('setup: compiling TypeScript');
  run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
  writeFileSync(built, new Date().toISOString());
}
