import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

export interface JsonProblem {
  from: number;
  to: number;
  message: string;
}

const WORDS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'a number is malformed',
  PropertyNameExpected: 'a property name in double quotes is expected (no trailing comma)',
  ValueExpected: 'a value is expected',
  ColonExpected: 'a colon (:) is expected',
  CommaExpected: 'a comma is expected',
  CloseBraceExpected: 'a closing } is expected',
  CloseBracketExpected: 'a closing ] is expected',
  EndOfFileExpected: 'nothing may follow the data',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'a number is cut off',
  InvalidUnicode: 'a \\u escape is invalid',
  InvalidEscapeCharacter: 'a \\ escape is invalid',
  InvalidCharacter: 'a control character (such as a tab or new line) is inside a string',
};

/** Where and why the text is not JSON, for the editor's marks and the message under it. */
export function jsonProblems(text: string): JsonProblem[] {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors.map((e) => ({
    from: e.offset,
    to: Math.min(text.length, e.offset + Math.max(1, e.length)),
    message: WORDS[printParseErrorCode(e.error)] ?? 'not valid JSON',
  }));
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

export type Checked = { ok: true; records: object[] } | { ok: false; message: string };

/** The editor's text as mergeData (one record or a list of records), or why it is not. */
export function checkMergeData(text: string): Checked {
  const [problem] = jsonProblems(text);
  let value: unknown;
  try {
    if (problem) throw new Error(problem.message);
    value = JSON.parse(text);
  } catch (error) {
    const at = problem ? lineAndColumn(text, problem.from) : undefined;
    return {
      ok: false,
      message: `The data is not valid JSON: ${problem?.message ?? (error as Error).message}${at ? ` (line ${at.line}, column ${at.column})` : ''}.`,
    };
  }
  const records = Array.isArray(value) ? value : [value];
  if (records.length === 0) return { ok: false, message: 'The data is an empty list; add at least one record (a JSON object).' };
  const bad = records.findIndex((r) => typeof r !== 'object' || r === null || Array.isArray(r));
  if (bad >= 0)
    return {
      ok: false,
      message: Array.isArray(value)
        ? `Record ${bad + 1} is not a JSON object ({ … }).`
        : 'The data must be a record ({ … }) or a list of records ([{ … }]).',
    };
  return { ok: true, records: records as object[] };
}
