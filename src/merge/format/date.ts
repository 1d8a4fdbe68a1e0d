import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat.js';
import utc from 'dayjs/plugin/utc.js';
import type { Culture } from './culture.js';

dayjs.extend(customParseFormat);
dayjs.extend(utc);

/** A wall-clock moment as written in the data (its offset, if any, is not applied). */
export interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * ISO 8601 first, then the culture's short date (numeric day, month, year in its order). With a
 * time zone, an ISO value that says its offset is the moment it names, shown as clocks there show it.
 */
export function parseDateValue(value: string, c: Culture, timeZone?: string): WallClock | null {
  const text = value.trim();
  const iso = ISO.exec(text);
  if (iso) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', f = '0', offset] = iso;
    const written = valid({
      year: +y!,
      month: +mo!,
      day: +d!,
      hour: +h,
      minute: +mi,
      second: +s,
      millisecond: Math.round(Number(`0.${f}`) * 1000),
    });
    if (!written || !timeZone || !offset) return written;
    const minutes =
      offset.toUpperCase() === 'Z' ? 0 : (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(-2)));
    return inZone(asUtc(written).getTime() - minutes * 60_000, written.millisecond, timeZone);
  }
  const numbers = text.match(/\d+/g);
  if (!numbers || numbers.length < 3 || !/^[\d\s./-]+(\s+\d{1,2}:\d{2}(:\d{2})?)?$/.test(text)) return null;
  const order = c.shortDate
    .formatToParts(new Date(Date.UTC(2003, 10, 22)))
    .filter((p) => p.type === 'year' || p.type === 'month' || p.type === 'day')
    .map((p) => p.type);
  const fields: Record<string, number> = {};
  order.forEach((type, i) => (fields[type] = Number(numbers[i])));
  let year = fields.year ?? 0;
  if (year < 100) year += year < 50 ? 2000 : 1900;
  const [hour = 0, minute = 0, second = 0] = numbers.slice(3).map(Number);
  return valid({ year, month: fields.month ?? 0, day: fields.day ?? 0, hour, minute, second, millisecond: 0 });
}

/**
 * A value read by a Day.js pattern (Carbone's convDate: `YYYYMMDD`, `DD-MM-YYYY HH:mm`), as
 * written; null when it does not fit. Patterns with an offset are refused where they are typed.
 */
export function parseDatePattern(value: string, pattern: string): WallClock | null {
  const d = dayjs.utc(value.trim(), pattern);
  if (!d.isValid()) return null;
  return valid({
    year: d.year(),
    month: d.month() + 1,
    day: d.date(),
    hour: d.hour(),
    minute: d.minute(),
    second: d.second(),
    millisecond: d.millisecond(),
  });
}

function valid(w: WallClock): WallClock | null {
  const date = new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second));
  return date.getUTCFullYear() === w.year &&
    date.getUTCMonth() === w.month - 1 &&
    date.getUTCDate() === w.day &&
    w.hour < 24 &&
    w.minute < 60 &&
    w.second < 60
    ? w
    : null;
}

export function wallClockOf(date: Date): WallClock {
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hour: date.getHours(),
    minute: date.getMinutes(),
    second: date.getSeconds(),
    millisecond: date.getMilliseconds(),
  };
}

const zoneClocks = new Map<string, Intl.DateTimeFormat>();

/** The wall clock in `timeZone` at the moment `epochMs`. */
function inZone(epochMs: number, millisecond: number, timeZone: string): WallClock {
  let clock = zoneClocks.get(timeZone);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (zoneClocks.size >= 256) zoneClocks.clear(); // names are checked, but their spellings (case) are many
    zoneClocks.set(timeZone, clock);
  }
  const parts = Object.fromEntries(clock.formatToParts(new Date(epochMs)).map((p) => [p.type, p.value]));
  const n = (type: string) => Number(parts[type]);
  return { year: n('year'), month: n('month'), day: n('day'), hour: n('hour'), minute: n('minute'), second: n('second'), millisecond };
}

/** Whether `name` is a time zone this runtime knows (an IANA name such as Europe/Paris, or UTC). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const asUtc = (w: WallClock) => new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond));

/** .NET-style date/time pictures (`dd.MM.yyyy`, `dddd, d. MMMM yyyy`, `h:mm tt`) and standard formats. */
export function formatDate(w: WallClock, picture: string, c: Culture): string {
  const p = picture.trim();
  if (p.length === 1) {
    const at = asUtc(w);
    switch (p) {
      case 'd':
        return c.shortDate.format(at);
      case 'D':
        return c.longDate.format(at);
      case 't':
        return c.shortTime.format(at);
      case 'T':
        return c.longTime.format(at);
      case 'g':
        return `${c.shortDate.format(at)} ${c.shortTime.format(at)}`;
      case 'G':
        return `${c.shortDate.format(at)} ${c.longTime.format(at)}`;
      case 'f':
        return `${c.longDate.format(at)} ${c.shortTime.format(at)}`;
      case 'F':
        return `${c.longDate.format(at)} ${c.longTime.format(at)}`;
      case 'o':
      case 'O':
        return at.toISOString().replace('Z', '');
      case 's':
        return at.toISOString().slice(0, 19);
    }
  }
  const weekday = asUtc(w).getUTCDay();
  let out = '';
  for (let i = 0; i < p.length;) {
    const ch = p[i]!;
    if (ch === '"' || ch === "'") {
      const end = p.indexOf(ch, i + 1);
      out += p.slice(i + 1, end < 0 ? p.length : end);
      i = end < 0 ? p.length : end + 1;
      continue;
    }
    if (ch === '\\') {
      out += p[i + 1] ?? '';
      i += 2;
      continue;
    }
    // Word's AM/PM picture.
    if (/^am\/pm/i.test(p.slice(i))) {
      out += w.hour < 12 ? c.am : c.pm;
      i += 5;
      continue;
    }
    let run = 1;
    while (p[i + run] === ch) run++;
    i += run;
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    switch (ch) {
      case 'd':
        out += run === 1 ? w.day : run === 2 ? pad(w.day, 2) : run === 3 ? c.dayAbbreviations[weekday] : c.dayNames[weekday];
        break;
      case 'M':
        out +=
          run === 1 ? w.month : run === 2 ? pad(w.month, 2) : run === 3 ? c.monthAbbreviations[w.month - 1] : c.monthNames[w.month - 1];
        break;
      case 'y':
        out += run <= 2 ? pad(w.year % 100, run) : pad(w.year, run);
        break;
      case 'h':
        out += pad(w.hour % 12 || 12, Math.min(run, 2));
        break;
      case 'H':
        out += pad(w.hour, Math.min(run, 2));
        break;
      case 'm':
        out += pad(w.minute, Math.min(run, 2));
        break;
      case 's':
        out += pad(w.second, Math.min(run, 2));
        break;
      case 'f':
      case 'F':
        out += pad(w.millisecond, 3).padEnd(run, '0').slice(0, run);
        break;
      case 't': {
        const period = w.hour < 12 ? c.am : c.pm;
        out += run === 1 ? period.charAt(0) : period;
        break;
      }
      default:
        out += ch.repeat(run);
    }
  }
  return out;
}
