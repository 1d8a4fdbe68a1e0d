/**
 * Word's `=` (formula) field over numbers: `{ = {MERGEFIELD qty} * {MERGEFIELD price} \# "0.00" }`.
 * Arithmetic (+ - * / ^, % after a number), comparisons (= <> < > <= >=, giving 1 or 0),
 * parentheses and Word's functions (ABS, AND, AVERAGE, COUNT, DEFINED, FALSE, IF, INT, MAX, MIN,
 * MOD, NOT, OR, PRODUCT, ROUND, SIGN, SUM, TRUE). References to table cells and bookmarks (A1,
 * ABOVE, a bookmark's name) are not read: such a field is kept as it is.
 */

/** Something the formula names that a merge cannot read (a cell, a bookmark): the field stays. */
export class Unreadable extends Error {}

type Token = { kind: 'number'; value: number } | { kind: 'op'; value: string } | { kind: 'name'; value: string };

const MAX_TOKENS = 2000;
const MAX_DEPTH = 50;

function tokenize(text: string, number: (text: string) => number | undefined): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === '\u201c' || ch === '\u201d') {
      // A nested field's value (or a quoted number): a number, or the formula cannot be read.
      let end = i + 1;
      while (end < text.length && !['"', '\u201c', '\u201d'].includes(text[end]!)) end += text[end] === '\\' ? 2 : 1;
      const value = number(text.slice(i + 1, end).replace(/\\(.)/g, '$1'));
      if (value === undefined) throw new Unreadable('a value that is not a number');
      tokens.push({ kind: 'number', value });
      i = end + 1;
    } else if (/[\d.]/.test(ch)) {
      const m = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i.exec(text.slice(i))!;
      tokens.push({ kind: 'number', value: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][\w]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'name', value: m[0].toUpperCase() });
      i += m[0].length;
    } else {
      const two = text.slice(i, i + 2);
      const op = ['<>', '<=', '>='].includes(two) ? two : ch;
      if (!'+-*/^%=<>(),;'.includes(op[0]!)) throw new Unreadable(`"${ch}"`);
      tokens.push({ kind: 'op', value: op === ';' ? ',' : op });
      i += op.length;
    }
    if (tokens.length > MAX_TOKENS) throw new Unreadable('too long');
  }
  return tokens;
}

const truth = (x: number) => (x !== 0 ? 1 : 0);

const FUNCTIONS: Record<string, (args: number[]) => number> = {
  ABS: ([x]) => Math.abs(x!),
  AND: ([a, b]) => truth(a!) & truth(b!),
  AVERAGE: (xs) => xs.reduce((s, x) => s + x, 0) / xs.length,
  COUNT: (xs) => xs.length,
  DEFINED: () => 1,
  FALSE: () => 0,
  IF: ([c, a, b]) => (c !== 0 ? a! : b!),
  INT: ([x]) => Math.trunc(x!),
  MAX: (xs) => Math.max(...xs),
  MIN: (xs) => Math.min(...xs),
  MOD: ([x, y]) => x! % y!,
  NOT: ([x]) => (x === 0 ? 1 : 0),
  OR: ([a, b]) => truth(a!) | truth(b!),
  PRODUCT: (xs) => xs.reduce((p, x) => p * x, 1),
  ROUND: ([x, n]) => {
    const f = 10 ** Math.trunc(n ?? 0);
    return (Math.sign(x!) * Math.round(Math.abs(x!) * f)) / f;
  },
  SIGN: ([x]) => Math.sign(x!),
  SUM: (xs) => xs.reduce((s, x) => s + x, 0),
  TRUE: () => 1,
};

const ARITY: Record<string, [number, number]> = {
  ABS: [1, 1],
  AND: [2, 2],
  DEFINED: [1, 1],
  FALSE: [0, 0],
  IF: [3, 3],
  INT: [1, 1],
  MOD: [2, 2],
  NOT: [1, 1],
  OR: [2, 2],
  ROUND: [2, 2],
  SIGN: [1, 1],
  TRUE: [0, 0],
};

/** The value of a formula (the text after `=`, before its switches); `number` reads a nested field's value. */
export function evaluateFormula(expression: string, number: (text: string) => number | undefined): number {
  const tokens = tokenize(expression, number);
  let at = 0;
  let depth = 0;
  const peek = () => tokens[at];
  const isOp = (value: string) => peek()?.kind === 'op' && peek()!.value === value;
  const take = (value: string) => {
    if (!isOp(value)) throw new Unreadable(`"${value}" expected`);
    at++;
  };
  const nested = <T>(f: () => T): T => {
    if (++depth > MAX_DEPTH) throw new Unreadable('nested too deep');
    try {
      return f();
    } finally {
      depth--;
    }
  };
  const comparison = (): number => {
    const left = additive();
    const op = peek();
    if (op?.kind === 'op' && ['=', '<>', '<', '>', '<=', '>='].includes(op.value)) {
      at++;
      const right = additive();
      const result = {
        '=': left === right,
        '<>': left !== right,
        '<': left < right,
        '>': left > right,
        '<=': left <= right,
        '>=': left >= right,
      }[op.value as '='];
      return result ? 1 : 0;
    }
    return left;
  };
  const additive = (): number => {
    let value = multiplicative();
    while (isOp('+') || isOp('-')) value = tokens[at++]!.value === '+' ? value + multiplicative() : value - multiplicative();
    return value;
  };
  const multiplicative = (): number => {
    let value = power();
    while (isOp('*') || isOp('/')) value = tokens[at++]!.value === '*' ? value * power() : value / power();
    return value;
  };
  const power = (): number => {
    const base = unary();
    if (!isOp('^')) return base;
    at++;
    return base ** nested(power);
  };
  const unary = (): number => {
    if (isOp('-') || isOp('+')) return tokens[at++]!.value === '-' ? -nested(unary) : nested(unary);
    let value = primary();
    while (isOp('%')) {
      at++;
      value /= 100;
    }
    return value;
  };
  const primary = (): number => {
    const token = tokens[at++];
    if (!token) throw new Unreadable('the formula ends early');
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.value === '(') {
      const value = nested(comparison);
      take(')');
      return value;
    }
    if (token.kind === 'name' && FUNCTIONS[token.value]) {
      const args: number[] = [];
      if (isOp('(')) {
        at++;
        if (!isOp(')')) {
          args.push(nested(comparison));
          while (isOp(',')) {
            at++;
            args.push(nested(comparison));
          }
        }
        take(')');
      }
      const [min, max] = ARITY[token.value] ?? [1, Infinity];
      if (args.length < min || args.length > max) throw new Unreadable(`${token.value} takes ${min}-${max} arguments`);
      return FUNCTIONS[token.value]!(args);
    }
    // A cell (A1, ABOVE) or a bookmark: not the merge's to read.
    throw new Unreadable(token.kind === 'name' ? token.value : `"${token.value}"`);
  };
  const value = comparison();
  if (at !== tokens.length) throw new Unreadable('more after the formula');
  if (!Number.isFinite(value)) throw new Unreadable('not a finite number');
  return value;
}
