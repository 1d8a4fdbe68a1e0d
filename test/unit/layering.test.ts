// The import graph of src/ has no cycles, between files or between folders (issues 28 and 49): a
// reader finds each room by its folder and no import runs back up. Type-only imports count too: a
// type is a dependency a reader follows. Files at src/'s top (errors.ts, services.ts, ...) count
// as their own rooms.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/server.js';

const SRC = path.join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+'(\.[^']+)'/gm)].map((match) =>
    path.resolve(path.dirname(file), match[1]!.replace(/\.js$/, '.ts')),
  );
}

/** One cycle of the graph, or undefined. */
function cycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

describe('the layering of src/', () => {
  const files = sourceFiles(SRC);
  const room = (file: string) => path.relative(SRC, path.dirname(file)) || path.basename(file);

  it('has no import cycle between files', () => {
    const graph = new Map(files.map((file) => [file, new Set(imports(file).filter((target) => files.includes(target)))]));
    assert.equal(
      cycle(graph)
        ?.map((file) => path.relative(SRC, file))
        .join(' -> '),
      undefined,
    );
  });

  it('has no import cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const file of files) {
      for (const target of imports(file)) {
        if (!files.includes(target) || room(file) === room(target)) continue;
        if (!graph.has(room(file))) graph.set(room(file), new Set());
        graph.get(room(file))!.add(room(target));
      }
    }
    assert.equal(cycle(graph)?.join(' -> '), undefined);
  });

  it('keeps the portal and the client off the server source: what they share comes through the client package', () => {
    const outside = [path.join(ROOT, 'portal', 'src'), path.join(ROOT, 'packages', 'client', 'src')].flatMap((dir) =>
      fs
        .readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
        .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name)),
    );
    assert.ok(outside.length > 10);
    const reaching = outside.filter((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)].some((m) =>
        path.resolve(path.dirname(file), m[1]!).startsWith(SRC + path.sep),
      ),
    );
    assert.deepEqual(
      reaching.map((file) => path.relative(ROOT, file)),
      [],
    );
  });
});
