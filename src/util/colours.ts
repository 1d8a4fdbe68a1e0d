import named from 'color-name';

const hex2 = (n: number) =>
  Math.min(255, Math.max(0, Math.round(n)))
    .toString(16)
    .padStart(2, '0');

/**
 * A CSS colour as Word's six hex digits (`FFA500`): any of the CSS named colours, `#rgb`,
 * `#rrggbb` or `rgb()`/`rgba()`; undefined for anything else. One table for every place a user
 * names a colour (HTML values, barcodes).
 */
export function cssColour(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  const rgb = Object.prototype.hasOwnProperty.call(named, v) ? named[v] : undefined;
  if (rgb) return rgb.map(hex2).join('').toUpperCase();
  const hex = /^#([0-9a-f]{6}|[0-9a-f]{3})$/.exec(v);
  if (hex) return (hex[1]!.length === 3 ? [...hex[1]!].map((c) => c + c).join('') : hex[1]!).toUpperCase();
  const fn = /^rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)/.exec(v);
  if (fn)
    return fn
      .slice(1, 4)
      .map((n) => hex2(Number(n)))
      .join('')
      .toUpperCase();
  return undefined;
}
