import fs from 'node:fs';
import path from 'node:path';
import { loadModule } from 'hunspell-asm';
import type { Hunspell, HunspellFactory } from 'hunspell-asm';
import { InputError } from '../errors.js';

/** Dictionary names clients know (ReportingCloud's list) whose Hunspell files we look for. */
const CLIENT_NAMES = [
  'af_ZA.dic', 'an_ES.dic', 'ar.dic', 'be_BY.dic', 'bg_BG.dic', 'br_FR.dic', 'ca.dic', 'cs_CZ.dic', 'da_DK.dic', 'de_AT_frami.dic',
  'de_CH_frami.dic', 'de_DE_frami.dic', 'el_GR.dic', 'en_AU.dic', 'en_CA.dic', 'en_GB.dic', 'en_US.dic', 'en_ZA.dic', 'es_ES.dic',
  'et_EE.dic', 'fa.dic', 'fr.dic', 'gd_GB.dic', 'gl_ES.dic', 'he_IL.dic', 'hr_HR.dic', 'hy_AM.dic', 'it_IT.dic', 'ku_TR.dic', 'lt_LT.dic',
  'nb_NO.dic', 'nl_NL.dic', 'nn_NO.dic', 'oc_FR.dic', 'pl_PL.dic', 'pt_BR.dic', 'pt_PT.dic', 'ro_RO.dic', 'ru_RU.dic', 'sh.dic',
  'sk_SK.dic', 'sl_SI.dic', 'sr.dic', 'sv_SE.dic', 'uk_UA.dic', 'ur.dic', 'vi_VN.dic',
];

export interface IncorrectWord {
  length: number;
  start: number;
  text: string;
  isDuplicate: boolean;
  language: string;
}

/** The file stem a client name means: `de_DE_frami.dic` -> `de_DE`, `en-us` -> `en_US`. */
function stemOf(name: string): string {
  const bare = name.replace(/\.dic$/i, '').replace(/_frami$/i, '').replace('-', '_');
  const [lang, region] = bare.split('_');
  return region ? `${lang!.toLowerCase()}_${region.toUpperCase()}` : lang!.toLowerCase();
}

/**
 * Spell checking with Hunspell (WebAssembly) over the system's Hunspell dictionaries. A
 * dictionary loads on first use and stays loaded.
 */
export class Spelling {
  private factory: Promise<HunspellFactory> | undefined;
  private readonly loaded = new Map<string, Promise<Hunspell>>();

  constructor(private readonly dictionaryDir = '/usr/share/hunspell') {}

  private fileFor(stem: string): string | undefined {
    const dic = path.join(this.dictionaryDir, `${stem}.dic`);
    return fs.existsSync(dic) && fs.existsSync(path.join(this.dictionaryDir, `${stem}.aff`)) ? stem : undefined;
  }

  /** Client names of the dictionaries installed here. */
  available(): string[] {
    return CLIENT_NAMES.filter((name) => this.fileFor(stemOf(name)));
  }

  /** The client name to report for a requested language, or a 400 listing what exists. */
  resolve(language: string): { name: string; stem: string } {
    const stem = stemOf(language.trim());
    const name = CLIENT_NAMES.find((n) => stemOf(n) === stem) ?? `${stem}.dic`;
    if (!this.fileFor(stem)) {
      throw new InputError(`There is no dictionary for language "${language}"; available: ${this.available().join(', ') || 'none'}.`);
    }
    return { name, stem };
  }

  private dictionary(stem: string): Promise<Hunspell> {
    let pending = this.loaded.get(stem);
    if (!pending) {
      pending = (async () => {
        this.factory ??= loadModule();
        const factory = await this.factory;
        const aff = factory.mountBuffer(fs.readFileSync(path.join(this.dictionaryDir, `${stem}.aff`)), `${stem}.aff`);
        const dic = factory.mountBuffer(fs.readFileSync(path.join(this.dictionaryDir, `${stem}.dic`)), `${stem}.dic`);
        return factory.create(aff, dic);
      })();
      pending.catch(() => this.loaded.delete(stem));
      this.loaded.set(stem, pending);
    }
    return pending;
  }

  /** Misspelled words and repeated words, with UTF-16 offsets into `text`. */
  async check(text: string, language: string): Promise<IncorrectWord[]> {
    const { name, stem } = this.resolve(language);
    const hunspell = await this.dictionary(stem);
    const out: IncorrectWord[] = [];
    let previous: { word: string; end: number } | undefined;
    for (const match of text.matchAll(/[\p{L}\p{M}][\p{L}\p{M}\p{N}'’-]*[\p{L}\p{M}\p{N}]|[\p{L}\p{M}]/gu)) {
      const word = match[0];
      const start = match.index!;
      const repeated = previous !== undefined && previous.word.toLowerCase() === word.toLowerCase() && /^\s+$/.test(text.slice(previous.end, start));
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
   * doubled letter is the commonest slip), then Hunspell's own order.
   */
  async suggest(word: string, language: string, max: number): Promise<string[]> {
    const { stem } = this.resolve(language);
    const hunspell = await this.dictionary(stem);
    const ranked = hunspell.suggest(word).map((candidate, index) => ({ candidate, index, distance: editDistance(word, candidate), prefix: sharedStart(word, candidate) }));
    const spaced = (x: string) => (x.includes(' ') ? 1 : 0);
    ranked.sort((a, b) => a.distance - b.distance || spaced(a.candidate) - spaced(b.candidate) || b.prefix - a.prefix
      || a.candidate.length - b.candidate.length || a.index - b.index);
    return ranked.slice(0, max).map((r) => r.candidate);
  }
}

function sharedStart(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Damerau-Levenshtein distance (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
