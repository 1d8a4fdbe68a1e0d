#!/usr/bin/env node
// The container image's build stage, after `npm prune --omit=dev`: keeps only the SQLite binding
// this Node.js loads (src/store/sqlite.ts picks better-sqlite3 on Node 22+, the 12 line on Node 20)
// and drops what compiling it left behind (objects, the static library, the SQLite sources) and
// the prebuilt binaries of other systems: about 50 MB. The kept binding is loaded at the end to
// prove it still works.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules');
const used = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
const unused = used === 'better-sqlite3' ? 'better-sqlite3-node20' : 'better-sqlite3';

rmSync(path.join(root, unused), { recursive: true, force: true });
const kept = path.join(root, used);
for (const name of ['deps', 'src']) rmSync(path.join(kept, name), { recursive: true, force: true });
const release = path.join(kept, 'build', 'Release');
if (existsSync(release))
  for (const name of readdirSync(release))
    if (name !== 'better_sqlite3.node') rmSync(path.join(release, name), { recursive: true, force: true });
if (existsSync(path.join(kept, 'build')))
  for (const name of readdirSync(path.join(kept, 'build')))
    if (name !== 'Release') rmSync(path.join(kept, 'build', name), { recursive: true, force: true });
const prebuilds = path.join(kept, 'prebuilds');
const mine = [`${process.platform}-${process.arch}.node`, `linuxmusl-${process.arch}.node`];
if (existsSync(prebuilds))
  for (const name of readdirSync(prebuilds)) if (!mine.includes(name)) rmSync(path.join(prebuilds, name), { force: true });

const Database = createRequire(import.meta.url)(kept);
new Database(':memory:').prepare('SELECT 1').get();
console.log(`slim-node-modules: kept ${used}, removed ${unused} and build leftovers`);
