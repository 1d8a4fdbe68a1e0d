/**
 * Carbone's tags: `{d.name}`, `{d.a.b}`, repetition of table rows and paragraphs by `[i]` and
 * `[i+1]` (`{d.items[i].name}` in the rows that repeat, `{d.items[i+1]...}` in the one after
 * them, which goes), nested too, and the formatters that are merge field switches. Braces that
 * are not Carbone tags stay text, as Carbone leaves them. What is not run is a 400 naming it.
 */
import { InputError } from '../../errors.js';
import { attr, element, setAttr, text, type XmlElement, type XmlNode } from '../../ooxml/xml.js';
import {
  bookmarkEnd,
  bookmarkStart,
  BookmarkIds,
  complexField,
  MAX_BLOCK_DEPTH,
  MAX_BLOCKS,
  mergeField,
  quoted,
  type InstructionPart,
} from './markup.js';
import { findTags, rewriteParagraph, type Delimiters, type Tag, type TaggedParagraph } from './tags.js';
import { localisedDateFormats } from './dates.js';
import type { TagContext } from './meaning.js';
import { SHARED_VALUES } from '../scope.js';
import { filteredName, type FilterOperator, type RowCondition } from '../filter.js';

export const CARBONE_DELIMITERS: Delimiters = { start: '{', end: '}', isTag: (text) => /^\s*[dct]\s*[.[(]/.test(text) };

interface Step {
  key: string;
  /** `[i]`, `[i+1]`, or none. */
  index?: 'i' | 'i+1';
  /** The conditions after the index (`[i, type='fruit']`): only the elements that meet them repeat. */
  filter?: RowCondition[];
  /** Conditions without an index (`[type='fruit']`): the first element that meets them. */
  find?: RowCondition[];
}

const FILTER_CONDITION = /^\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(==|=|!=|>=|<=|>|<)\s*(.*?)\s*$/s;

/** `type='fruit'`, `qty > 10`, `i < 2` (the position; -1 the last): a condition of a filter. */
function filterCondition(text: string): RowCondition {
  const m = FILTER_CONDITION.exec(text);
  if (!m) throw new Refused(`"${text.trim()}" is not a filter like type='fruit' or qty > 10`);
  return { key: m[1] === 'i' ? '#' : m[1]!, op: (m[2] === '==' ? '=' : m[2]) as FilterOperator, value: unquoted(m[3]!) };
}

/** `ifEQ(v):show(a):elseShow(b)` and kin: what shows when the value compares so, and otherwise (absent: the value). */
interface Condition {
  op: string;
  right: string;
  then?: string;
  else?: string;
}

interface CarboneTag {
  tag: Tag;
  steps: Step[];
  /** MERGEFIELD switches the formatters make. */
  switches: string;
  /** `add(2)`, `mul(.price)`, `round(2)`: arithmetic on the value, before its number format (an = field). */
  math?: MathStep[];
  condition?: Condition;
  /** `print(x)`: this text instead of the value. */
  printed?: string;
}

/** Carbone's arithmetic formatters; the argument a number or a sibling value (`.price`). */
const MATH: Record<string, string> = { add: '+', sub: '-', mul: '*', div: '/', round: 'ROUND' };

interface MathStep {
  op: string;
  /** A number as written, or the sibling field's name. */
  arg: { number: string } | { sibling: string };
}

function mathStep(name: string, args: string[]): MathStep {
  const [arg] = args;
  if (args.length !== 1 || arg === undefined || arg === '')
    throw new Refused(`${name} takes one number, or a value of the same object (.price)`);
  if (/^[-+]?(\d+\.?\d*|\.\d+)$/.test(arg)) {
    if (name === 'round' && !/^\d{1,2}$/.test(arg)) throw new Refused('round takes a number of decimals from 0 to 99');
    return { op: MATH[name]!, arg: { number: arg } };
  }
  if (name !== 'round' && /^\.[A-Za-z_$][\w$]*$/.test(arg)) return { op: MATH[name]!, arg: { sibling: arg.slice(1) } };
  throw new Refused(`${name}(${arg}): the argument is a number or a value of the same object (.price); expressions are not supported yet`);
}

const CONDITIONS: Record<string, string> = { ifEQ: '=', ifNE: '<>', ifGT: '>', ifGTE: '>=', ifLT: '<', ifLTE: '<=' };

class Refused extends Error {}

/** Splits on `separator` outside quotes, parentheses and brackets. */
function splitOutside(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let current = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === separator && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts;
}

/** A value in single or double quotes without them; anything else through `otherwise` (as it is by default). */
function unquoted(text: string, otherwise = (t: string) => t): string {
  return /^'.*'$|^".*"$/s.test(text) ? text.slice(1, -1) : otherwise(text);
}

/** A formatter's arguments: quoted ones as written, others without white space (as Carbone reads them). */
function argumentsOf(text: string): string[] {
  if (text.trim() === '') return [];
  return splitOutside(text, ',').map((a) => unquoted(a.trim(), (t) => t.replace(/\s+/g, '')));
}

const quoteSwitch = (value: string) => `"${value.replace(/"/g, '\\"')}"`;

function precision(args: string[], fallback: number, name: string): number {
  const value = args[0] === undefined || args[0] === '' ? fallback : Number(args[0]);
  if (!Number.isInteger(value) || value < 0 || value > 20) throw new Refused(`${name} takes a number of decimals from 0 to 20`);
  return value;
}

// Day.js tokens (Carbone's formatD) as .NET date pictures (merge fields' \@), longest first.
const DATE_TOKENS: [string, string][] = [
  ['YYYY', 'yyyy'],
  ['YY', 'yy'],
  ['MMMM', 'MMMM'],
  ['MMM', 'MMM'],
  ['MM', 'MM'],
  ['M', 'M'],
  ['DD', 'dd'],
  ['D', 'd'],
  ['dddd', 'dddd'],
  ['ddd', 'ddd'],
  ['HH', 'HH'],
  ['H', 'H'],
  ['hh', 'hh'],
  ['h', 'h'],
  ['mm', 'mm'],
  ['m', 'm'],
  ['ss', 'ss'],
  ['s', 's'],
  ['A', 'tt'],
];

/** A Day.js pattern as a .NET one, its localised formats (L, LL, LT…) spelt out for the culture; every other character a quoted literal, as Day.js prints it. */
function datePicture(written: string, culture: string): string {
  const pattern = localisedDateFormats(written, culture);
  let out = '';
  for (let i = 0; i < pattern.length;) {
    if (pattern[i] === '[') {
      const end = pattern.indexOf(']', i);
      const literal = end < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, end);
      out += `'${literal}'`;
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    const token = DATE_TOKENS.find(([t]) => pattern.startsWith(t, i));
    if (token) {
      out += token[1];
      i += token[0].length;
    } else {
      out += /[A-Za-z]/.test(pattern[i]!) ? pattern[i] : `'${pattern[i]}'`;
      i++;
    }
  }
  return out;
}

function formatterParts(formatter: string): { name: string; args: string[] } {
  const m = /^\s*([A-Za-z]+)\s*(?:\((.*)\))?\s*$/s.exec(formatter);
  if (!m) throw new Refused(`":${formatter}" is not a formatter`);
  return { name: m[1]!, args: argumentsOf(m[2] ?? '') };
}

/** The switch a value formatter is; undefined for one that is not. */
function formatterSwitch(name: string, args: string[], culture: string): string | undefined {
  switch (name) {
    case 'formatN':
      return `\\# "N${precision(args, 3, 'formatN')}"`;
    case 'formatC':
      return `\\# "C${precision(args, 2, 'formatC')}"`;
    case 'formatD':
      if (args.length !== 1) throw new Refused('formatD takes one pattern, e.g. formatD(DD/MM/YYYY)');
      return `\\@ ${quoteSwitch(datePicture(args[0]!, culture))}`;
    case 'convDate': {
      if (args.length !== 2)
        throw new Refused('convDate takes the pattern the data is written in and the one to show, e.g. convDate(YYYYMMDD, L)');
      if (/[Zx"]|X/.test(args[0]!)) throw new Refused('convDate reads dates without an offset (no Z, X or x in the first pattern)');
      return `\\* ${quoteSwitch(`docsmith:parse(${args[0]})`)} \\@ ${quoteSwitch(datePicture(args[1]!, culture))}`;
    }
    case 'substr': {
      if (args.length < 1 || args.length > 2 || args.some((a) => !/^-?\d{1,9}$/.test(a)))
        throw new Refused('substr takes where to begin and, if wanted, where to end, as whole numbers: substr(0,3)');
      return `\\* ${quoteSwitch(`docsmith:substr(${args.join(',')})`)}`;
    }
    case 'upperCase':
      return '\\* Upper';
    case 'lowerCase':
      return '\\* Lower';
    case 'ucFirst':
      return '\\* FirstCap';
    case 'ucWords':
      return '\\* Caps';
    default:
      return undefined;
  }
}

/** A switch that formats the value as a number or a date (formatN, formatC, formatD, convDate). */
const formatsValue = (sw: string) => /^\\[#@]|docsmith:parse/.test(sw);
/** A switch after which the text is not the value's own (a format, or substr). */
const changesText = (sw: string) => formatsValue(sw) || sw.includes('docsmith:substr');

/** A tag's formatters, in order: value formatters as switches, then one condition with what it shows, or print. */
function formattersOf(formatters: string[], culture: string): Pick<CarboneTag, 'switches' | 'condition' | 'printed' | 'math'> {
  const switches: string[] = [];
  const math: MathStep[] = [];
  let condition: Condition | undefined;
  let printed: string | undefined;
  for (const formatter of formatters) {
    const { name, args } = formatterParts(formatter);
    if (MATH[name] && switches.length === 0 && !condition && printed === undefined) {
      math.push(mathStep(name, args));
      continue;
    }
    if (math.length && !['formatN', 'formatC'].includes(name))
      throw new Refused(`"${name}" after add, sub, mul, div or round is not supported yet: only formatN or formatC`);
    const value = !condition && printed === undefined ? formatterSwitch(name, args, culture) : undefined;
    if (value && formatsValue(value) && switches.some(changesText))
      throw new Refused(`"${name}" after substr or another number or date formatter is not supported; format first, then substr`);
    if (value) switches.push(value);
    else if (name === 'ifEmpty' && !condition && printed === undefined) condition = { op: '=', right: '', then: args[0] ?? '' };
    else if (CONDITIONS[name] && !condition && printed === undefined) {
      // Carbone compares the text formatN, formatC or formatD made (1,234.50 is not a number to it): not followed here.
      if (switches.some(changesText))
        throw new Refused(
          `"${name}" after a number or date formatter compares Carbone's formatted text; compare the value itself (the condition first)`,
        );
      condition = { op: CONDITIONS[name], right: args[0] ?? '' };
    } else if (name === 'show' && condition && condition.then === undefined) condition.then = args[0] ?? '';
    else if (name === 'elseShow' && condition && condition.else === undefined) condition.else = args[0] ?? '';
    else if (name === 'print' && !condition && printed === undefined) printed = args[0] ?? '';
    else if (
      formatterSwitch(name, args, culture) ||
      CONDITIONS[name] ||
      MATH[name] ||
      ['ifEmpty', 'show', 'elseShow', 'print'].includes(name)
    )
      throw new Refused(
        `"${name}" is not supported in that place: value formatters first, then one condition with its show and elseShow, or print alone`,
      );
    else throw new Refused(`the formatter "${name}" is not supported yet`);
  }
  return {
    switches: switches.join(' '),
    ...(math.length ? { math } : {}),
    ...(condition ? { condition } : {}),
    ...(printed !== undefined ? { printed } : {}),
  };
}

function parsePath(path: string): Step[] {
  const text = path.trim();
  const complement = /^c\s*\./.test(text);
  if (!complement && !/^d\s*[.[]/.test(text)) throw new Refused('a Carbone tag starts with d. (the data) or c. (the complement)');
  // The complement is the merge's shared values (MergeOptions.complement), fields $c.….
  const steps: Step[] = complement ? [{ key: SHARED_VALUES }] : [];
  const re = /\.\s*([^.[\]\s]+)\s*|\[\s*([^\]]*?)\s*\]/gy;
  re.lastIndex = 1;
  let m: RegExpExecArray | null;
  while (re.lastIndex < text.length && (m = re.exec(text))) {
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else {
      const [written, ...conditions] = splitOutside(m[2]!, ',');
      const index = written!.replace(/\s+/g, '');
      const last = steps[steps.length - 1];
      if (!last || last.index) throw new Refused('an index follows a name, as in d.items[i]');
      if ((index === 'i' || index === 'i+1') && conditions.length) {
        if (conditions.length > 20) throw new Refused('a filter has at most 20 conditions');
        last.index = index;
        last.filter = conditions.map(filterCondition);
        continue;
      }
      if (/^\d{1,9}$/.test(index)) {
        // An element by its position: a step of the path (items.2), read by the scope.
        steps.push({ key: String(Number(index)) });
        continue;
      }
      if (FILTER_CONDITION.test(written!)) {
        const all = [written!, ...conditions];
        if (all.length > 20) throw new Refused('a filter has at most 20 conditions');
        last.find = all.map(filterCondition);
        if (last.find.some((c) => c.key === '#')) throw new Refused('a filter without i finds one element by its values, not by i');
        continue;
      }
      if (index !== 'i' && index !== 'i+1')
        throw new Refused(`the index [${m[2]}] is not supported yet; repeat with [i] and [i+1], or name an element by its position, [0]`);
      last.index = index;
    }
  }
  if (re.lastIndex !== text.length || steps.length === (complement ? 1 : 0))
    throw new Refused(`"${text}" is not a path like d.name, d.items[i].name or c.name`);
  if (complement && steps.some((s) => s.index)) throw new Refused('the complement is not repeated over; repeat lists of the data (d.)');
  const found = steps.findIndex((s) => s.find);
  if (found >= 0 && steps.slice(found).some((s) => s.index))
    throw new Refused('a list is repeated after a filter without i; repeat it first, or find the element inside the repetition');
  if (steps.filter((s) => s.find).length > MAX_BLOCK_DEPTH) throw new Refused(`more than ${MAX_BLOCK_DEPTH} filters in one tag`);
  return steps;
}

function carboneTag(tag: Tag, context: TagContext): CarboneTag {
  if (/^\s*t\s*\(/.test(tag.text)) {
    // As Carbone: the text between the first "(" and the last ")", translated when the table has it.
    const key = /\((.*)\)/s.exec(tag.text)?.[1];
    if (key === undefined) throw new Refused('a translation is written t(text)');
    const translated = context.translations?.[key];
    return { tag, steps: [], switches: '', printed: translated ? translated : key };
  }
  const [path, ...formatters] = splitOutside(tag.text, ':');
  const typed = { tag, steps: parsePath(path!), ...formattersOf(formatters, context.culture) };
  // Not found, the element's block is empty: a condition inside it could not show its "empty" side.
  if ((typed.condition || typed.printed !== undefined) && typed.steps.some((s) => s.find))
    throw new Refused('a condition or print on an element found by a filter without i is not supported yet');
  return typed;
}

/** The array a repetition tag repeats (keys up to its `[i]`/`[i+1]` at `level`, with their filters), as a key. */
const arrayKey = (steps: Step[], level: number) =>
  steps
    .slice(0, level + 1)
    .map((s) => (s.filter ? `${s.key}${JSON.stringify(s.filter)}` : s.key))
    .join('.');

/** The levels of a tag's path that repeat: the positions of its steps with an index. */
const repeatLevels = (steps: Step[]) => steps.flatMap((s, i) => (s.index ? [i] : []));

const nearest = (p: TaggedParagraph, name: string) => [...p.ancestors].reverse().find((a) => a.name === name);

/** Turns one part's Carbone tags into merge fields and blocks; false when it has none. */
export function translateCarbonePart(root: XmlElement, where: string, context: TagContext): boolean {
  const paragraphs = findTags(root, CARBONE_DELIMITERS, where);
  const pictures = namePictures(root, where);
  if (paragraphs.length === 0) return pictures;
  const tags: CarboneTag[] = [];
  for (const paragraph of paragraphs)
    for (const tag of paragraph.tags) {
      try {
        tags.push(carboneTag(tag, context));
      } catch (error) {
        if (!(error instanceof Refused)) throw error;
        throw new InputError(`${where}, paragraph ${paragraph.number}: the tag "{${tag.text}}" cannot be merged: ${error.message}.`);
      }
    }
  const label = (t: CarboneTag) => `"{${t.tag.text}}" (paragraph ${t.tag.paragraph.number})`;
  const removed = new Set<XmlElement>();
  const gone = (p: TaggedParagraph) => removed.has(p.element) || p.ancestors.some((a) => removed.has(a));
  const ids = new BookmarkIds();
  // Each repeated array, outer ones first: its [i] part becomes a block, its [i+1] part goes.
  const arrays = new Map<string, { level: number; current: CarboneTag[]; next: CarboneTag[] }>();
  for (const t of tags) {
    const levels = repeatLevels(t.steps);
    if (levels.length > MAX_BLOCK_DEPTH) throw new InputError(`${where}: ${label(t)} repeats more than ${MAX_BLOCK_DEPTH} lists deep.`);
    for (const level of levels) {
      // A tag inside an [i+1] part goes with it: it names no part of its own.
      if (t.steps.slice(0, level).some((s) => s.index === 'i+1')) break;
      const key = arrayKey(t.steps, level);
      const entry = arrays.get(key) ?? { level, current: [], next: [] };
      arrays.set(key, entry);
      (t.steps[level]!.index === 'i' ? entry.current : entry.next).push(t);
    }
  }
  if (arrays.size > MAX_BLOCKS) throw new InputError(`${where}: more than ${MAX_BLOCKS} repeated lists in one part.`);
  for (const { level, current: all, next: allNext } of [...arrays.values()].sort((a, b) => a.level - b.level)) {
    const current = all.filter((t) => !gone(t.tag.paragraph));
    const next = allNext.filter((t) => !gone(t.tag.paragraph));
    if (current.length === 0) continue;
    const first = current[0]!;
    if (next.length === 0)
      throw new InputError(
        `${where}: ${label(first)} repeats with no "[i+1]" tag after the part to repeat${first.steps[level]!.filter ? ' (the [i+1] tag repeats the filter: [i+1, …])' : ''}.`,
      );
    const after = next[0]!;
    const lastNext = next[next.length - 1]!;
    const [unit, container] = repeatedUnit(
      first.tag.paragraph,
      after.tag.paragraph,
      lastNext.tag.paragraph,
      () =>
        new InputError(
          `${where}: ${label(first)} and ${label(after)} must be in rows of one table, or in paragraphs one after another; repetition inside one paragraph or row is not supported yet.`,
        ),
    );
    const id = ids.take();
    const step = first.steps[level]!;
    const name = filteredName(step.key, { where: step.filter ?? [] });
    const { repeat, drop } = unit;
    container.children.splice(container.children.indexOf(repeat[0]!), 0, bookmarkStart(id, 'rows', name));
    container.children.splice(container.children.indexOf(repeat[repeat.length - 1]!) + 1, 0, bookmarkEnd(id));
    for (const element of drop) {
      container.children.splice(container.children.indexOf(element), 1);
      removed.add(element);
    }
  }
  const byTag = new Map(tags.map((t) => [t.tag, t]));
  for (const paragraph of paragraphs) {
    if (gone(paragraph)) continue;
    rewriteParagraph(paragraph, (tag) => {
      const t = byTag.get(tag)!;
      return inFoundElements(t, fieldFor(t), ids);
    });
  }
  return true;
}

/**
 * Pictures whose description (alternative text) holds a tag, as Carbone marks them: named after
 * the field (within its repeated list), the name a picture placeholder is found by. A tag there
 * makes a part translate even without tags in its text.
 */
function namePictures(root: XmlElement, where: string): boolean {
  let named = false;
  const visit = (node: XmlElement) => {
    if (node.name === 'wp:docPr') {
      const descr = attr(node, 'descr') ?? '';
      const m = /^\s*\{([^{}]*)\}\s*$/.exec(descr);
      if (m && CARBONE_DELIMITERS.isTag!(m[1]!)) {
        let steps: Step[];
        try {
          steps = parsePath(m[1]!);
          if (steps.some((s) => s.find)) throw new Refused('a picture is not found by a filter without i; repeat it with [i, …]');
        } catch (error) {
          if (!(error instanceof Refused)) throw error;
          throw new InputError(`${where}: the picture described "${descr}" cannot be merged: ${error.message}.`);
        }
        const name = fieldName(steps);
        setAttr(node, 'name', name);
        named = true;
      }
      return;
    }
    for (const child of node.children) if (child.kind === 'element') visit(child);
  };
  visit(root);
  return named;
}

/** The levels of a tag's path whose element the scope enters: repeated lists, then lists an element is found in. */
const scopeLevels = (steps: Step[]) => steps.flatMap((s, i) => (s.index || s.find ? [i] : []));

/** A tag's field name: its path within the innermost list it is in (repeated or found in); `value` for a list's plain values. */
function fieldName(steps: Step[]): string {
  const levels = scopeLevels(steps);
  const from = levels.length ? levels[levels.length - 1]! + 1 : 0;
  const rest = steps.slice(from);
  return rest.length ? rest.map((s) => s.key).join('.') : 'value';
}

/**
 * The field inside one-element blocks, one for each list an element is found in
 * (`{d.items[type='fruit'].name}`): the block keeps the first element that meets the filter,
 * its name the path from the list (or element) before it.
 */
function inFoundElements(t: CarboneTag, field: XmlNode[], ids: BookmarkIds): XmlNode[] {
  const levels = scopeLevels(t.steps);
  let nodes = field;
  for (let k = levels.length - 1; k >= 0; k--) {
    const level = levels[k]!;
    const step = t.steps[level]!;
    if (!step.find) break;
    const from = k > 0 ? levels[k - 1]! + 1 : 0;
    const path = t.steps
      .slice(from, level + 1)
      .map((s) => s.key)
      .join('.');
    const id = ids.take();
    nodes = [bookmarkStart(id, 'section', filteredName(path, { where: step.find, first: true })), ...nodes, bookmarkEnd(id)];
  }
  return nodes;
}

/** The field a value tag is: its name within the innermost repeated array it is in; a condition an IF around it. */
function fieldFor(t: CarboneTag): XmlNode[] {
  if (t.printed !== undefined)
    return [element('w:r', [], [...(t.tag.rPr ? [t.tag.rPr] : []), element('w:t', [['xml:space', 'preserve']], [text(t.printed)])])];
  const name = fieldName(t.steps);
  if (t.math) return arithmetic(t, name);
  const value = () => mergeField(name, t.switches || undefined, t.tag, CARBONE_DELIMITERS);
  const c = t.condition;
  if (!c) return value();
  // IF "<value>" op "x" "then" "else": the value's own field nested where it shows.
  const shown = (text: string | undefined): InstructionPart[] => (text === undefined ? ['"', value(), '"'] : [quoted(text)]);
  return complexField(
    [' IF "', value(), `" ${c.op} ${quoted(c.right)} `, ...shown(c.then), ' ', ...shown(c.else), ' '],
    t.tag,
    CARBONE_DELIMITERS,
  );
}

/**
 * Arithmetic as Word's = field, inside an IF that shows nothing for a missing or empty value (as
 * Carbone does): `IF "{v}" = "" "" "{= ROUND(({v} * {price}), 2) \# "N2"}"`.
 */
function arithmetic(t: CarboneTag, name: string): XmlNode[] {
  const field = (fieldName: string) => mergeField(fieldName, undefined, t.tag, CARBONE_DELIMITERS);
  const sibling = (key: string) => (name.includes('.') ? `${name.slice(0, name.lastIndexOf('.'))}.${key}` : key);
  let expression: InstructionPart[] = ['"', field(name), '"'];
  for (const step of t.math!) {
    const arg: InstructionPart[] = 'number' in step.arg ? [step.arg.number] : ['"', field(sibling(step.arg.sibling)), '"'];
    expression = step.op === 'ROUND' ? ['ROUND(', ...expression, ', ', ...arg, ')'] : ['(', ...expression, ` ${step.op} `, ...arg, ')'];
  }
  const formula = complexField([' = ', ...expression, t.switches ? ` ${t.switches} ` : ' '], t.tag, CARBONE_DELIMITERS, '');
  return complexField([' IF "', field(name), '" = "" "" "', formula, '" '], t.tag, CARBONE_DELIMITERS);
}

/**
 * The elements that repeat (from the one holding the first `[i]` tag to the one before the
 * one holding the first `[i+1]` tag) and those that go (through the one holding the last
 * `[i+1]` tag): rows of one table, or paragraphs of one container.
 */
function repeatedUnit(
  first: TaggedParagraph,
  next: TaggedParagraph,
  lastNext: TaggedParagraph,
  refuse: () => Error,
): [{ repeat: XmlElement[]; drop: XmlElement[] }, XmlElement] {
  const rows = [first, next, lastNext].map((p) => nearest(p, 'w:tr'));
  const rowTable = rows[0] && nearest(first, 'w:tbl');
  const inRows = rows.every((r) => r !== undefined) && rowTable && [next, lastNext].every((p) => nearest(p, 'w:tbl') === rowTable);
  const [a, b, c, container] = inRows
    ? [rows[0]!, rows[1]!, rows[2]!, rowTable]
    : [first.element, next.element, lastNext.element, first.parent];
  if (!inRows && (next.parent !== container || lastNext.parent !== container)) throw refuse();
  const children = container.children;
  const [ia, ib, ic] = [children.indexOf(a), children.indexOf(b), children.indexOf(c)];
  if (ia < 0 || ib <= ia || ic < ib) throw refuse();
  const elements = (from: number, to: number) =>
    children.slice(from, to + 1).filter((n): n is XmlElement => n.kind === 'element' && n.name !== 'w:tblPr' && n.name !== 'w:tblGrid');
  return [{ repeat: elements(ia, ib - 1), drop: elements(ib, ic) }, container];
}
