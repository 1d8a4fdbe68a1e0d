#!/usr/bin/env node
// The CLI entry: builds the project first when run from a fresh checkout.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  const setup = spawnSync(process.execPath, [path.join(root, 'scripts', 'setup.mjs')], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (setup.status !== 0) process.exit(setup.status ?? 1);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
