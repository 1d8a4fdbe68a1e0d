import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { escapeText } from '../ooxml/xml.js';

const run = promisify(execFile);

/** Families the office substitutes, metric for metric, for the usual Office fonts. */
const METRIC_ALIASES: Record<string, string[]> = {
  'Liberation Sans': ['Arial', 'Helvetica'],
  'Liberation Serif': ['Times New Roman', 'Times'],
  'Liberation Mono': ['Courier New', 'Courier'],
  Carlito: ['Calibri'],
  Caladea: ['Cambria'],
};

/**
 * The operator's fonts folder (DOCSMITH_FONTS_DIR) added to the system's fonts through a
 * fontconfig file of our own: the office processes and the font list read the same one, so a
 * TTF or OTF dropped in the folder is used without rebuilding anything.
 */
export class Fonts {
  /** FONTCONFIG_FILE for processes that should see the extra fonts; undefined without a folder. */
  readonly configFile: string | undefined;
  private cached: { stamp: string; families: Promise<string[]> } | undefined;

  constructor(
    readonly dir: string | undefined,
    scratch: string,
  ) {
    if (!dir) return;
    fs.mkdirSync(scratch, { recursive: true });
    this.configFile = path.join(scratch, 'fonts.conf');
    fs.writeFileSync(
      this.configFile,
      `<?xml version="1.0"?>
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${escapeText(path.resolve(dir))}</dir>
  <cachedir>${escapeText(path.join(scratch, 'fontconfig-cache'))}</cachedir>
</fontconfig>
`,
    );
  }

  /** Changes whenever a font is added to or removed from the folder. */
  stamp(): string {
    if (!this.dir) return '';
    try {
      return (
        fs
          .readdirSync(this.dir)
          .filter((f) => /\.(ttf|otf|ttc|pfb|woff2?)$/i.test(f))
          .sort()
          .join('\n') + fs.statSync(this.dir).mtimeMs
      );
    } catch {
      return 'missing';
    }
  }

  /** The font families the engine renders with (fontconfig's view), with metric aliases. */
  list(): Promise<string[]> {
    const stamp = this.stamp();
    if (this.cached?.stamp === stamp) return this.cached.families;
    const families = (async () => {
      const env = this.configFile ? { ...process.env, FONTCONFIG_FILE: this.configFile } : process.env;
      const { stdout } = await run('fc-list', ['--format', '%{family}\n'], { maxBuffer: 16 * 1024 * 1024, env });
      const found = new Set<string>();
      for (const line of stdout.split('\n')) {
        for (const name of line.split(',')) {
          const family = name.trim();
          if (family) found.add(family);
        }
      }
      for (const [real, aliases] of Object.entries(METRIC_ALIASES)) {
        if (found.has(real)) aliases.forEach((alias) => found.add(alias));
      }
      return [...found].sort((a, b) => a.localeCompare(b));
    })();
    families.catch(() => {
      if (this.cached?.families === families) this.cached = undefined;
    });
    this.cached = { stamp, families };
    return families;
  }

  /** Calls `changed` (debounced) when fonts are added or removed; returns a stop function. */
  watch(changed: () => void): () => void {
    if (!this.dir || !fs.existsSync(this.dir)) return () => undefined;
    let last = this.stamp();
    let timer: NodeJS.Timeout | undefined;
    const watcher = fs.watch(this.dir, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const now = this.stamp();
        if (now !== last) {
          last = now;
          changed();
        }
      }, 500);
    });
    return () => {
      clearTimeout(timer);
      watcher.close();
    };
  }
}
