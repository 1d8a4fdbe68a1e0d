import type { Culture } from './culture.js';

/**
 * .NET-style number formatting: standard formats (C2, N0, P1, F3, D5, G, E2) and custom
 * pictures (`#,##0.00;(#,##0.00)`, `$#,###.00`, `0.0%`), with the culture's separators.
 */
export function formatNumber(value: number, picture: string, c: Culture): string {
  const standard = /^([CcNnPpFfDdGgEeXx])(\d{0,2})$/.exec(picture.trim());
  if (standard) return formatStandard(value, standard[1]!.toUpperCase(), standard[2] ? Number(standard[2]) : undefined, c);
  return formatCustom(value, picture, c);
}

function groupDigits(integer: string, group: string): string {
  return integer.replace(/\B(?=(\d{3})+(?!\d))/g, group);
}

function fixed(value: number, digits: number, c: Culture, grouped: boolean): string {
  const [int, frac] = Math.abs(value).toFixed(digits).split('.');
  const body = (grouped ? groupDigits(int!, c.group) : int!) + (frac ? c.decimal + frac : '');
  return value < 0 && Number(Math.abs(value).toFixed(digits)) !== 0 ? c.minus + body : body;
}

function formatStandard(value: number, kind: string, digits: number | undefined, c: Culture): string {
  switch (kind) {
    case 'C':
      return c.formatCurrency(value, digits ?? 2);
    case 'N':
      return fixed(value, digits ?? 2, c, true);
    case 'F':
      return fixed(value, digits ?? 2, c, false);
    case 'P':
      return `${fixed(value * 100, digits ?? 2, c, true)} %`.replace(/ %$/, c.name.startsWith('en') ? '%' : ' %');
    case 'D': {
      const int = Math.trunc(Math.abs(value))
        .toString()
        .padStart(digits ?? 1, '0');
      return value < 0 ? c.minus + int : int;
    }
    case 'E':
      return value
        .toExponential(digits ?? 6)
        .replace('.', c.decimal)
        .replace(/e([+-])(\d)$/, 'E$10$2')
        .replace(/e/, 'E');
    case 'X':
      return Math.trunc(value)
        .toString(16)
        .toUpperCase()
        .padStart(digits ?? 0, '0');
    default:
      return String(value).replace('.', c.decimal);
  }
}

interface Section {
  tokens: Token[];
  integerDigits: number;
  requiredIntegerDigits: number;
  fractionDigits: number;
  requiredFractionDigits: number;
  grouped: boolean;
  scale: number;
  percent: boolean;
}

type Token = { literal: string } | { digit: '0' | '#' } | { decimal: true } | { group: true };

function splitSections(picture: string): string[] {
  const sections: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < picture.length; i++) {
    const ch = picture[i]!;
    if (quote) {
      current += ch;
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === '\\' && i + 1 < picture.length) {
      current += ch + picture[++i];
    } else if (ch === ';') {
      sections.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  sections.push(current);
  return sections;
}

function parseSection(text: string): Section {
  const tokens: Token[] = [];
  let seenDecimal = false;
  let integerDigits = 0;
  let requiredIntegerDigits = 0;
  let fractionDigits = 0;
  let requiredFractionDigits = 0;
  let grouped = false;
  let percent = false;
  let pendingCommas = 0;
  let scale = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'") {
      const end = text.indexOf(ch, i + 1);
      tokens.push({ literal: text.slice(i + 1, end < 0 ? text.length : end) });
      i = end < 0 ? text.length : end;
    } else if (ch === '\\') {
      tokens.push({ literal: text[++i] ?? '' });
    } else if (ch === '0' || ch === '#') {
      if (pendingCommas) {
        if (!seenDecimal) grouped = true;
        pendingCommas = 0;
      }
      tokens.push({ digit: ch });
      if (seenDecimal) {
        fractionDigits++;
        if (ch === '0') requiredFractionDigits = fractionDigits;
      } else {
        integerDigits++;
        if (ch === '0' || requiredIntegerDigits > 0) requiredIntegerDigits++;
      }
    } else if (ch === '.') {
      if (!seenDecimal) {
        // Commas right before the decimal point scale by 1000 each.
        scale /= 1000 ** pendingCommas;
        pendingCommas = 0;
        seenDecimal = true;
        tokens.push({ decimal: true });
      }
    } else if (ch === ',') {
      if (integerDigits > 0 && !seenDecimal) pendingCommas++;
    } else if (ch === '%') {
      percent = true;
      scale *= 100;
      tokens.push({ literal: '%' });
    } else {
      tokens.push({ literal: ch });
    }
  }
  if (pendingCommas && !seenDecimal) scale /= 1000 ** pendingCommas;
  return { tokens, integerDigits, requiredIntegerDigits, fractionDigits, requiredFractionDigits, grouped, scale, percent };
}

function formatCustom(value: number, picture: string, c: Culture): string {
  const sections = splitSections(picture);
  let sectionText = sections[0]!;
  let negativeHasOwnSection = false;
  if (value < 0 && sections.length > 1 && sections[1] !== '') {
    sectionText = sections[1]!;
    negativeHasOwnSection = true;
  }
  let section = parseSection(sectionText);
  // A value that shows as zero in its section (-0.001 as 0.00) takes the zero section, as in Word.
  if (sections.length > 2 && sections[2] !== '' && Number((Math.abs(value) * section.scale).toFixed(section.fractionDigits)) === 0) {
    sectionText = sections[2]!;
    negativeHasOwnSection = false;
    section = parseSection(sectionText);
  }
  const scaled = Math.abs(value) * section.scale;
  const rounded = scaled.toFixed(section.fractionDigits);
  let [intPart, fracPart = ''] = rounded.split('.');
  if (intPart === '0' && section.requiredIntegerDigits === 0) intPart = '';
  intPart = intPart!.padStart(section.requiredIntegerDigits, '0');
  // Trailing optional fraction digits (#) drop their zeros.
  while (fracPart.length > section.requiredFractionDigits && fracPart.endsWith('0')) fracPart = fracPart.slice(0, -1);
  const integerText = section.grouped ? groupDigits(intPart, c.group) : intPart;

  let out = '';
  let integerEmitted = false;
  let fractionIndex = 0;
  let inFraction = false;
  for (const token of section.tokens) {
    if ('literal' in token) out += token.literal;
    else if ('decimal' in token) {
      inFraction = true;
      if (fracPart.length > 0) out += c.decimal;
    } else if ('digit' in token) {
      if (!inFraction) {
        if (!integerEmitted) {
          out += integerText;
          integerEmitted = true;
        }
      } else {
        out += fracPart[fractionIndex++] ?? '';
      }
    }
  }
  if (!integerEmitted && section.integerDigits === 0 && !inFraction && section.fractionDigits === 0 && !/\d/.test(out)) {
    // A picture without digit placeholders: the literal text only.
    return out;
  }
  const isNegative = value < 0 && Number(rounded) !== 0;
  return isNegative && !negativeHasOwnSection ? c.minus + out : out;
}
