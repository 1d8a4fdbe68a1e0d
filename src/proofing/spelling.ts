import fs from 'node:fs';
import path from 'node:path';
import { loadModule } from 'hunspell-asm';
import type { Hunspell, HunspellFactory } from 'hunspell-asm';
import { TextDecoder } from 'node:util';
import { InputError } from '../errors.js';
import table from './dictionaries.json' with { type: 'json' };

/**
 * ReportingCloud's dictionaries under the names clients know, and the Debian package and file
 * stem that provide each (scripts/setup.mjs installs them from the same table).
 */
export interface DictionaryEntry {
  name: string;
  stem?: string;
  /** A word list added to the stem's dictionary (medical terms). */
  extra?: string;
  package?: string;
  /** Why no package provides it. */
  missing?: string;
}

export const DICTIONARIES: readonly DictionaryEntry[] = table;

export interface IncorrectWord {
  length: number;
  start: number;
  text: string;
  isDuplicate: boolean;
  language: string;
}

/** What a requested language means: a client name (`en_US.dic`) or a locale (`en-us`, `de_DE`). */
function entryFor(language: string): DictionaryEntry | undefined {
  const wanted = language
    .trim()
    .toLowerCase()
    .replace(/\.(dic|txd)$/, '')
    .replace(/-/g, '_');
  return (
    DICTIONARIES.find((d) => d.name.toLowerCase().replace(/\.(dic|txd)$/, '') === wanted) ??
    DICTIONARIES.find((d) => d.stem?.toLowerCase() === wanted) ??
    DICTIONARIES.find(
      (d) =>
        d.name
          .toLowerCase()
          .replace(/\.(dic|txd)$/, '')
          .replace(/_frami$/, '') === wanted,
    )
  );
}

/**
 * Spell checking with Hunspell (WebAssembly) over the system's Hunspell dictionaries. A
 * dictionary loads on first use and stays loaded.
 */
export class Spelling {
  private factory: Promise<HunspellFactory> | undefined;
  private readonly loaded = new Map<string, Promise<Loaded>>();

  /** `allowed`: client names to offer (DOCSMITH_DICTIONARIES); all installed ones when absent. */
  constructor(
    readonly dictionaryDir = '/usr/share/hunspell',
    readonly allowed?: readonly string[],
  ) {}

  private installed(entry: DictionaryEntry): boolean {
    if (!entry.stem) return false;
    if (this.allowed && !this.allowed.some((a) => a.toLowerCase() === entry.name.toLowerCase())) return false;
    const has = (file: string) => fs.existsSync(path.join(this.dictionaryDir, file));
    return has(`${entry.stem}.dic`) && has(`${entry.stem}.aff`) && (!entry.extra || has(`${entry.extra}.dic`));
  }

  /** Client names of the dictionaries installed (and allowed) here. */
  available(): string[] {
    return DICTIONARIES.filter((d) => this.installed(d)).map((d) => d.name);
  }

  /** The dictionary for a requested language, or a 400 listing what exists. */
  resolve(language: string): DictionaryEntry & { stem: string } {
    const entry = entryFor(language);
    if (!entry || !this.installed(entry)) {
      const why = entry?.missing ? ` (${entry.name}: ${entry.missing})` : '';
      throw new InputError(`There is no dictionary for language "${language}"${why}; available: ${this.available().join(', ') || 'none'}.`);
    }
    return entry as DictionaryEntry & { stem: string };
  }

  private dictionary(entry: DictionaryEntry & { stem: string }): Promise<Loaded> {
    const key = entry.name;
    let pending = this.loaded.get(key);
    if (!pending) {
      pending = (async () => {
        this.factory ??= loadModule();
        const factory = await this.factory;
        const files = utf8Dictionary(this.dictionaryDir, entry.stem, entry.extra);
        const mount = (name: string, text: string) => factory.mountBuffer(Buffer.from(text, 'utf8'), `${key}-${name}`);
        const hunspell = factory.create(mount('aff', files.aff), mount('dic', files.dics[0]!));
        files.dics.slice(1).forEach((dic, i) => hunspell.addDictionary(mount(`extra${i}.dic`, dic)));
        return { hunspell, words: new WordIndex(files.dics) };
      })();
      pending.catch(() => this.loaded.delete(key));
      this.loaded.set(key, pending);
    }
    return pending;
  }

  /** Misspelled words and repeated words, with UTF-16 offsets into `text`. */
  async check(text: string, language: string): Promise<IncorrectWord[]> {
    const entry = this.resolve(language);
    const name = entry.name;
    const { hunspell } = await this.dictionary(entry);
    const out: IncorrectWord[] = [];
    let previous: { word: string; end: number } | undefined;
    for (const match of text.matchAll(/[\p{L}\p{M}][\p{L}\p{M}\p{N}'’-]*[\p{L}\p{M}\p{N}]|[\p{L}\p{M}]/gu)) {
      const word = match[0];
      const start = match.index!;
      const repeated =
        previous !== undefined && previous.word.toLowerCase() === word.toLowerCase() && /^\s+$/.test(text.slice(previous.end, start));
      if (repeated) {
        out.push({ length: word.length, start, text: word, isDuplicate: true, language: name });
      } else if (!/\d/.test(word) && !hunspell.spell(word)) {
        out.push({ length: word.length, start, text: word, isDuplicate: false, language: name });
      }
      previous = { word, end: start + word.length };
    }
    return out;
  }

  /**
   * Hunspell's suggestions, best first: fewest edits (case counts), single words before split
   * ones, the longest shared start (typos fall later in words more often), the shorter (a
   * doubled letter is the commonest slip), then Hunspell's own order. When Hunspell has fewer
   * than `max`, the nearest dictionary words (edit distance up to 2) fill the list, as clients
   * expect `max` suggestions for a plain misspelling.
   */
  async suggest(word: string, language: string, max: number): Promise<string[]> {
    const entry = this.resolve(language);
    const { hunspell, words } = await this.dictionary(entry);
    const ranked = hunspell.suggest(word).map((candidate, index) => ({
      candidate,
      index,
      distance: boundedDistance(word, candidate, Infinity),
      prefix: sharedStart(word, candidate),
    }));
    const spaced = (x: string) => (x.includes(' ') ? 1 : 0);
    ranked.sort(
      (a, b) =>
        a.distance - b.distance ||
        spaced(a.candidate) - spaced(b.candidate) ||
        b.prefix - a.prefix ||
        a.candidate.length - b.candidate.length ||
        a.index - b.index,
    );
    const out = ranked.slice(0, max).map((r) => r.candidate);
    if (out.length >= max || hunspell.spell(word)) return out;
    const seen = new Set(out.map((s) => s.toLowerCase()));
    for (const candidate of words.nearest(word, 2, max * 4)) {
      if (out.length >= max) break;
      const cased = matchCase(word, candidate);
      if (seen.has(cased.toLowerCase()) || !hunspell.spell(cased)) continue;
      seen.add(cased.toLowerCase());
      out.push(cased);
    }
    return out;
  }
}

/**
 * A dictionary's files as UTF-8 text. Hunspell compiled to WebAssembly takes words as UTF-8, so
 * a dictionary in a legacy encoding (German and Estonian are ISO 8859) would never match a word
 * with an umlaut: it is decoded and declared UTF-8.
 */
function utf8Dictionary(dir: string, stem: string, extra: string | undefined): { aff: string; dics: string[] } {
  const affBytes = fs.readFileSync(path.join(dir, `${stem}.aff`));
  const declared = /^SET\s+(\S+)/m.exec(affBytes.toString('latin1'))?.[1] ?? 'UTF-8';
  const label = declared
    .toLowerCase()
    .replace(/^iso-?8859-?(\d+)$/, 'iso-8859-$1')
    .replace(/^microsoft-cp(\d+)$/, 'windows-$1');
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  const decode = (bytes: Buffer) => decoder.decode(bytes);
  const aff = decode(affBytes).replace(/^SET\s+\S+/m, 'SET UTF-8');
  const dics = [stem, ...(extra ? [extra] : [])].map((name) => decode(fs.readFileSync(path.join(dir, `${name}.dic`))));
  return { aff, dics };
}

interface Loaded {
  hunspell: Hunspell;
  words: WordIndex;
}

/** "Thiss" -> "This": a capitalised or upper-case word gets candidates in its case. */
function matchCase(word: string, candidate: string): string {
  if (word.length > 1 && word === word.toUpperCase()) return candidate.toUpperCase();
  if (word[0] === word[0]!.toUpperCase() && candidate[0] === candidate[0]!.toLowerCase())
    return candidate[0]!.toUpperCase() + candidate.slice(1);
  return candidate;
}

/** A dictionary's stems by length, indexed on first use, for the nearest words to a misspelling. */
class WordIndex {
  private byLength: Map<number, string[]> | undefined;

  constructor(private dics: string[]) {}

  private index(): Map<number, string[]> {
    if (this.byLength) return this.byLength;
    const byLength = new Map<number, string[]>();
    for (const dic of this.dics) {
      const lines = dic.split('\n');
      for (let i = 1; i < lines.length; i++) {
        const stem = lines[i]!.split('/')[0]!.split(/\s/)[0]!;
        if (!stem || /[\d.]/.test(stem)) continue;
        const list = byLength.get(stem.length) ?? [];
        list.push(stem);
        byLength.set(stem.length, list);
      }
    }
    this.byLength = byLength;
    this.dics = [];
    return byLength;
  }

  /** Words within `limit` edits, nearest first (then those sharing a longer start). */
  nearest(word: string, limit: number, most: number): string[] {
    const lower = word.toLowerCase();
    const found: { word: string; distance: number; prefix: number }[] = [];
    const index = this.index();
    for (let length = Math.max(1, word.length - limit); length <= word.length + limit; length++) {
      for (const candidate of index.get(length) ?? []) {
        const distance = boundedDistance(lower, candidate.toLowerCase(), limit);
        if (distance <= limit) found.push({ word: candidate, distance, prefix: sharedStart(lower, candidate.toLowerCase()) });
      }
    }
    found.sort((a, b) => a.distance - b.distance || b.prefix - a.prefix || a.word.length - b.word.length || (a.word < b.word ? -1 : 1));
    return found.slice(0, most).map((f) => f.word);
  }
}

/** Damerau-Levenshtein distance (optimal string alignment), or limit + 1 as soon as it must exceed `limit` (most words stop at once). */
function boundedDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let before: number[] = [];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

function sharedStart(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
