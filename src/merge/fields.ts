import type { Culture } from './format/culture.js';
import { evaluateFormula, Unreadable } from './formula.js';
import { compareValues, isNumeric, numberIn } from './compare.js';
import { formatNumber } from './format/number.js';
import { formatDate, parseDatePattern, parseDateValue, wallClockOf } from './format/date.js';
import { caseSwitch, docsmithStep, isBlockMarker, parseInstruction, switchValue, tokenize, type FieldInstruction } from './instruction.js';
import { MISSING, type Json, type Scope } from './scope.js';
import type { FieldNode } from './template.js';
import { wordBarcodeSpec, type WordBarcodeSpec } from './barcodes.js';

/** What a field comes to for one record. */
export type FieldResult =
  | { kind: 'text'; text: string }
  /** The data has no value for the field ("empty field"). */
  | { kind: 'missing' }
  /** Not ours to evaluate (PAGE, TOC, REF...): left for the office to update. */
  | { kind: 'keep' }
  /** MERGEBARCODE / DISPLAYBARCODE: the value drawn as a barcode. */
  | { kind: 'barcode'; value: string; spec: WordBarcodeSpec; field: string }
  /** docxtemplater's `{@x}`: the value as markup in place of its paragraph, unchecked yet (merge/rawxml.ts). */
  | { kind: 'raw'; xml: string; field: string };

export interface FieldContext {
  scope: Scope;
  culture: Culture;
  now: Date;
  /** An IANA time zone: a date value written with an offset (Z, +02:00) shows its time there. */
  timeZone?: string;
  /** Moves to the next record within the document (NEXT, NEXTIF); false when none is left. */
  nextRecord?: () => boolean;
}

const KEEP: FieldResult = { kind: 'keep' };
const MISSING_RESULT: FieldResult = { kind: 'missing' };

/**
 * The instruction text with nested fields evaluated: inside quotes a nested value goes in as
 * text; outside quotes it goes in quoted, so spaces in it keep it one argument.
 */
function expandedInstruction(field: FieldNode, ctx: FieldContext): string {
  let text = '';
  for (const part of field.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const result = evaluateField(part, ctx);
    const value = result.kind === 'text' ? result.text : '';
    if (result.kind === 'keep') continue;
    const insideQuotes = (text.match(/(?<!\\)["\u201c\u201d]/g) ?? []).length % 2 === 1;
    text += insideQuotes ? value.replace(/"/g, '\\"') : ` "${value.replace(/"/g, '\\"')}" `;
  }
  return text;
}

function instructionOf(field: FieldNode, ctx: FieldContext): FieldInstruction {
  return field.parsed ?? parseInstruction(expandedInstruction(field, ctx));
}

export function evaluateField(field: FieldNode, ctx: FieldContext): FieldResult {
  const instruction = instructionOf(field, ctx);
  // Most fields: a name, its value shown as it is (what formatValue and decorate come to without switches).
  if (instruction.plain !== undefined) {
    const value = ctx.scope.get(instruction.plain);
    if (value === MISSING) return MISSING_RESULT;
    return { kind: 'text', text: plainText(value) };
  }
  if (instruction.type.startsWith('=')) return formulaResult(field, instruction, ctx);
  switch (instruction.type) {
    case 'MERGEFIELD': {
      const name = instruction.args[0];
      if (!name || isBlockMarker(name)) return MISSING_RESULT;
      const value = ctx.scope.get(name);
      if (docsmithStep(instruction, 'raw') !== undefined) return { kind: 'raw', xml: typeof value === 'string' ? value : '', field: name };
      if (value === MISSING) return MISSING_RESULT;
      return { kind: 'text', text: decorate(formatValue(value, instruction, ctx.culture, ctx.timeZone), instruction) };
    }
    case 'IF':
      return { kind: 'text', text: evaluateIf(field, ctx) };
    case 'DATE':
    case 'TIME':
    case 'CREATEDATE':
    case 'SAVEDATE':
    case 'PRINTDATE': {
      const picture = switchValue(instruction, '@') ?? (instruction.type === 'TIME' ? 't' : 'd');
      return { kind: 'text', text: formatDate(wallClockOf(ctx.now), picture, ctx.culture) };
    }
    case 'NEXT':
      ctx.nextRecord?.();
      return { kind: 'text', text: '' };
    case 'NEXTIF':
      if (evaluateCondition(field, ctx, 'NEXTIF')) ctx.nextRecord?.();
      return { kind: 'text', text: '' };
    case 'MERGEREC':
    case 'MERGESEQ':
      return { kind: 'text', text: '' };
    case 'MERGEBARCODE':
    case 'DISPLAYBARCODE': {
      const tokens = tokenize(expandedInstruction(field, ctx)).slice(1);
      const [data, type] = tokens;
      if (!data) return MISSING_RESULT;
      let value: string;
      if (instruction.type === 'DISPLAYBARCODE') {
        value = data.text;
      } else {
        const found = ctx.scope.get(data.text);
        if (found === MISSING || found === null || typeof found === 'object') return MISSING_RESULT;
        value = String(found);
      }
      if (value === '') return MISSING_RESULT;
      const name = `${instruction.type} ${data.text}`;
      return { kind: 'barcode', value, spec: wordBarcodeSpec(type?.text, barcodeSwitches(tokens.slice(2)), name), field: name };
    }
    default:
      return KEEP;
  }
}

/** Barcode switches: `\t`, `\d`, `\x` stand alone; the others take the next token. */
function barcodeSwitches(tokens: { text: string; quoted: boolean }[]): { name: string; value: string | undefined }[] {
  const switches: { name: string; value: string | undefined }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.quoted || !token.text.startsWith('\\')) continue;
    const name = token.text.slice(1, 2).toLowerCase();
    const glued = token.text.slice(2);
    const takesValue = !['t', 'd', 'x'].includes(name);
    const value = glued || (takesValue && i + 1 < tokens.length ? tokens[++i]!.text : undefined);
    switches.push({ name, value });
  }
  return switches;
}

/** An `=` field's value, in its `\#` picture or as Word writes a plain number; kept when it names what a merge cannot read. */
function formulaResult(field: FieldNode, instruction: FieldInstruction, ctx: FieldContext): FieldResult {
  const text = expandedInstruction(field, ctx);
  // The expression runs from the "=" to the first switch outside quotes.
  let end = text.indexOf('=') + 1;
  for (let quoted = false; end < text.length; end++) {
    const ch = text[end]!;
    if (ch === '"') quoted = !quoted;
    else if (ch === '\\' && quoted) end++;
    else if (ch === '\\') break;
  }
  let value: number;
  try {
    value = evaluateFormula(text.slice(text.indexOf('=') + 1, end), (t) => numberIn(t, ctx.culture));
  } catch (error) {
    if (error instanceof Unreadable) return KEEP;
    throw error;
  }
  // To 15 significant digits first, as Word computes: 1234.5 * 1.19 is 1469.055, not 1469.0549999999998.
  const exact = Number(value.toPrecision(15));
  const picture = switchValue(instruction, '#');
  if (picture !== undefined) return { kind: 'text', text: formatNumber(exact, picture, ctx.culture) };
  const plain = String(exact);
  return { kind: 'text', text: plain.replace('-', ctx.culture.minus).replace('.', ctx.culture.decimal) };
}

/** A JSON value as text without pictures: nothing for null, a list or an object. */
function plainText(value: Json): string {
  if (value === null || typeof value === 'object') return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

/** Renders a JSON value as text, applying `\#` and `\@` pictures. */
export function formatValue(value: Json, instruction: FieldInstruction, culture: Culture, timeZone?: string): string {
  if (value === null || typeof value === 'object') return '';
  const numeric = switchValue(instruction, '#');
  const dated = switchValue(instruction, '@');
  if (numeric !== undefined && (typeof value === 'number' || (typeof value === 'string' && isNumeric(value)))) {
    return formatNumber(Number(value), numeric, culture);
  }
  if (dated !== undefined && typeof value === 'string') {
    const pattern = docsmithStep(instruction, 'parse');
    const when = pattern === undefined ? parseDateValue(value, culture, timeZone) : parseDatePattern(value, pattern);
    if (when) return formatDate(when, dated, culture);
  }
  return plainText(value);
}

/** `docsmith:substr(begin,end)`: as String.slice, on what the value shows. */
function sliced(text: string, instruction: FieldInstruction): string {
  const range = docsmithStep(instruction, 'substr');
  if (range === undefined) return text;
  const [begin, end] = range.split(',').map((n) => (n === '' ? undefined : Number(n)));
  return text.slice(begin, end);
}

function decorate(text: string, instruction: FieldInstruction): string {
  if (text === '') return '';
  let out = sliced(text, instruction);
  if (out === '') return '';
  const kase = caseSwitch(instruction)?.toLowerCase();
  if (kase === 'upper') out = out.toUpperCase();
  else if (kase === 'lower') out = out.toLowerCase();
  else if (kase === 'firstcap') out = out.charAt(0).toUpperCase() + out.slice(1);
  else if (kase === 'caps') out = out.replace(/(^|\s)(\S)/g, (_m, space: string, ch: string) => space + ch.toUpperCase());
  return (switchValue(instruction, 'b') ?? '') + out + (switchValue(instruction, 'f') ?? '');
}

/** `IF expr1 op expr2 "true" "false"` with field names, literals and nested fields. */
function evaluateIf(field: FieldNode, ctx: FieldContext): string {
  const tokens = conditionTokens(field, ctx, 'IF');
  const holds = compare(tokens, ctx);
  return (holds ? tokens[3]?.text : tokens[4]?.text) ?? '';
}

function evaluateCondition(field: FieldNode, ctx: FieldContext, keyword: string): boolean {
  return compare(conditionTokens(field, ctx, keyword), ctx);
}

function conditionTokens(field: FieldNode, ctx: FieldContext, keyword: string): { text: string; quoted: boolean }[] {
  const raw = field.parsed ? field.parts.join('') : expandedInstruction(field, ctx);
  return tokenize(raw.replace(new RegExp(`^\\s*${keyword}\\b`, 'i'), '').replace(/(<>|<=|>=|=|<|>)/, ' $1 '));
}

function compare(tokens: { text: string; quoted: boolean }[], ctx: FieldContext): boolean {
  const [left, op, right] = tokens;
  if (!left || !op || !right) return false;
  // The first operand is a field's value when it names a field, quoted or not (TX Text Control
  // writes IF "TotalDue" > "2000" ...); the second only when bare, so "Germany" stays a text.
  const resolve = (t: { text: string; quoted: boolean }, first: boolean): string => {
    if (t.quoted && !first) return t.text;
    const value = ctx.scope.get(t.text);
    if (value === MISSING) return t.text;
    return value === null || typeof value === 'object' ? '' : String(value);
  };
  const a = resolve(left, true);
  const b = resolve(right, false);
  return compareValues(a, op.text, b, ctx.culture);
}
