import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Families the office substitutes, metric for metric, for the usual Office fonts. */
const METRIC_ALIASES: Record<string, string[]> = {
  'Liberation Sans': ['Arial', 'Helvetica'],
  'Liberation Serif': ['Times New Roman', 'Times'],
  'Liberation Mono': ['Courier New', 'Courier'],
  Carlito: ['Calibri'],
  Caladea: ['Cambria'],
};

let cached: Promise<string[]> | undefined;

/** The font families the engine renders with (fontconfig's view), with metric aliases. */
export function listFonts(): Promise<string[]> {
  cached ??= (async () => {
    const { stdout } = await run('fc-list', ['--format', '%{family}\n'], { maxBuffer: 16 * 1024 * 1024 });
    const families = new Set<string>();
    for (const line of stdout.split('\n')) {
      for (const name of line.split(',')) {
        const family = name.trim();
        if (family) families.add(family);
      }
    }
    for (const [real, aliases] of Object.entries(METRIC_ALIASES)) {
      if (families.has(real)) aliases.forEach((alias) => families.add(alias));
    }
    return [...families].sort((a, b) => a.localeCompare(b));
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
