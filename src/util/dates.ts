/** The one date form the wire uses: `YYYY-MM-DDTHH:MM:SS+00:00`. */
export function formatWireDate(date: Date): string {
  return date.toISOString().slice(0, 19) + '+00:00';
}

/** Parses `...Z`, `...+02:00` or offset-less (taken as UTC) ISO dates; null when invalid. */
export function parseWireDate(text: string): Date | null {
  const trimmed = text.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(trimmed);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}${zone ? normaliseZone(zone) : 'Z'}`;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

function normaliseZone(zone: string): string {
  if (zone.toUpperCase() === 'Z') return 'Z';
  return zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
}
