/**
 * Day.js's localised date formats (L, LL, LLL, LLLL, LT, LTS and the short l…llll), which Carbone's
 * formatD takes, spelt out for a culture from Day.js's own locale tables, so that a date prints as
 * Carbone prints it in that language.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Formats = Partial<Record<'LT' | 'LTS' | 'L' | 'LL' | 'LLL' | 'LLLL' | 'l' | 'll' | 'lll' | 'llll', string>>;

/** Day.js's formats for English, the locale without a table. */
const ENGLISH: Formats = {
  LTS: 'h:mm:ss A',
  LT: 'h:mm A',
  L: 'MM/DD/YYYY',
  LL: 'MMMM D, YYYY',
  LLL: 'MMMM D, YYYY h:mm A',
  LLLL: 'dddd, MMMM D, YYYY h:mm A',
};

const known = new Set((require('dayjs/locale.json') as { key: string }[]).map((l) => l.key));
const tables = new Map<string, Formats>();

/** The locale's formats, found as Day.js finds a locale: the whole name, then its language; English otherwise. */
function formatsFor(culture: string): Formats {
  const name = culture.toLowerCase();
  const key = known.has(name) ? name : known.has(name.split('-')[0]!) ? name.split('-')[0]! : 'en';
  let formats = tables.get(key);
  if (!formats) {
    formats = key === 'en' ? ENGLISH : ((require(`dayjs/locale/${key}.js`) as { formats?: Formats }).formats ?? ENGLISH);
    tables.set(key, formats);
  }
  return formats;
}

/** The short form of a long format, as Day.js makes it: MMMM, MM, DD and dddd lose a letter. */
const shortened = (format: string) =>
  format.replace(/(\[[^\]]+\])|(MMMM|MM|DD|dddd)/g, (_, literal: string, token: string) => literal ?? token.slice(1));

/** `pattern` with its localised tokens replaced by the culture's patterns; literals in brackets stay. */
export function localisedDateFormats(pattern: string, culture: string): string {
  if (!/[Ll]/.test(pattern)) return pattern;
  const formats = formatsFor(culture);
  return pattern.replace(/(\[[^\]]+\])|(LTS?|l{1,4}|L{1,4})/g, (_, literal: string | undefined, token: keyof Formats) => {
    if (literal) return literal;
    const upper = token.toUpperCase() as keyof Formats;
    return formats[token] ?? ENGLISH[token] ?? shortened(formats[upper] ?? ENGLISH[upper]!);
  });
}
