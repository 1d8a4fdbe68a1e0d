import { InputError } from '../../errors.js';

/** What number and date formatting needs from a culture, taken from Intl (ICU) data. */
export interface Culture {
  name: string;
  decimal: string;
  group: string;
  percent: string;
  minus: string;
  currency: string;
  /** Formats a number as currency with `digits` decimals, the culture's own pattern. */
  formatCurrency(value: number, digits: number): string;
  monthNames: string[];
  monthAbbreviations: string[];
  dayNames: string[];
  dayAbbreviations: string[];
  am: string;
  pm: string;
  shortDate: Intl.DateTimeFormat;
  longDate: Intl.DateTimeFormat;
  shortTime: Intl.DateTimeFormat;
  longTime: Intl.DateTimeFormat;
}

// Intl has no region -> currency table; these are the currencies of the regions clients send.
const EURO = ['AT', 'BE', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK'];
const CURRENCIES: Record<string, string> = {
  US: 'USD',
  GB: 'GBP',
  JP: 'JPY',
  CH: 'CHF',
  CA: 'CAD',
  AU: 'AUD',
  NZ: 'NZD',
  CN: 'CNY',
  IN: 'INR',
  BR: 'BRL',
  MX: 'MXN',
  SE: 'SEK',
  NO: 'NOK',
  DK: 'DKK',
  PL: 'PLN',
  CZ: 'CZK',
  HU: 'HUF',
  RU: 'RUB',
  TR: 'TRY',
  ZA: 'ZAR',
  KR: 'KRW',
  TW: 'TWD',
  HK: 'HKD',
  SG: 'SGD',
  IL: 'ILS',
  AE: 'AED',
  SA: 'SAR',
  AR: 'ARS',
  CL: 'CLP',
  CO: 'COP',
  UA: 'UAH',
  RO: 'RON',
  BG: 'BGN',
  ...Object.fromEntries(EURO.map((r) => [r, 'EUR'])),
};

/** ICU puts no-break spaces in numbers; documents want plain spaces, as people type them. */
const plainSpaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

const cache = new Map<string, Culture>();

export function culture(name: string | undefined): Culture {
  const requested = name && name.trim() ? name.trim() : 'en-US';
  const hit = cache.get(requested);
  if (hit) return hit;
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(requested);
    if (!Intl.NumberFormat.supportedLocalesOf([requested]).length) throw new RangeError('unsupported');
  } catch {
    throw new InputError(`mergeSettings.culture "${requested}" is not a culture name we know (use e.g. en-US, de-DE, fr-FR).`);
  }
  const region = locale.maximize().region ?? 'US';
  const currency = CURRENCIES[region] ?? 'USD';
  const parts = new Intl.NumberFormat(requested).formatToParts(-12345.6);
  const part = (type: string, fallback: string) => plainSpaces(parts.find((p) => p.type === type)?.value ?? fallback);
  const names = (options: Intl.DateTimeFormatOptions, count: number, at: (i: number) => Date) => {
    const format = new Intl.DateTimeFormat(requested, { ...options, timeZone: 'UTC' });
    return Array.from({ length: count }, (_, i) => format.format(at(i)));
  };
  const month = (i: number) => new Date(Date.UTC(2021, i, 15));
  const day = (i: number) => new Date(Date.UTC(2021, 7, 1 + i)); // 2021-08-01 was a Sunday
  const dayPeriods = new Intl.DateTimeFormat(requested, { hour: 'numeric', hour12: true, timeZone: 'UTC' });
  const period = (hour: number) =>
    dayPeriods.formatToParts(new Date(Date.UTC(2021, 0, 1, hour))).find((p) => p.type === 'dayPeriod')?.value ?? (hour < 12 ? 'AM' : 'PM');
  const result: Culture = {
    name: requested,
    decimal: part('decimal', '.'),
    group: part('group', ','),
    percent: '%',
    minus: part('minusSign', '-'),
    currency,
    formatCurrency: (value, digits) =>
      plainSpaces(
        new Intl.NumberFormat(requested, {
          style: 'currency',
          currency,
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        }).format(value),
      ),
    monthNames: names({ month: 'long' }, 12, month),
    monthAbbreviations: names({ month: 'short' }, 12, month),
    dayNames: names({ weekday: 'long' }, 7, day),
    dayAbbreviations: names({ weekday: 'short' }, 7, day),
    am: period(9),
    pm: period(15),
    shortDate: new Intl.DateTimeFormat(requested, { dateStyle: 'short', timeZone: 'UTC' }),
    longDate: new Intl.DateTimeFormat(requested, { dateStyle: 'full', timeZone: 'UTC' }),
    shortTime: new Intl.DateTimeFormat(requested, { timeStyle: 'short', timeZone: 'UTC' }),
    longTime: new Intl.DateTimeFormat(requested, { timeStyle: 'medium', timeZone: 'UTC' }),
  };
  cache.set(requested, result);
  return result;
}
