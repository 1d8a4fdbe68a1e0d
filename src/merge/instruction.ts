/**
 * Field instructions: `MERGEFIELD  "Unit Price" \# "$#,##0.00" \* MERGEFORMAT` and friends.
 * Parsing knows nothing of documents; it turns one instruction string into its parts.
 */
export interface FieldInstruction {
  /** Upper-case field type: MERGEFIELD, IF, NEXT, DATE, PAGE, ... */
  type: string;
  /** Arguments before the first switch, quotes removed. */
  args: string[];
  /** Switches in order; `\* MERGEFORMAT` is `{ name: '*', value: 'MERGEFORMAT' }`. */
  switches: { name: string; value: string | undefined }[];
  /** docsmith's own steps (`\* "docsmith:substr(0,3)"`) by name, with their argument; absent when there are none. */
  steps?: Record<string, string>;
  /** A MERGEFIELD whose value shows as it is (no switch but MERGEFORMAT or CHARFORMAT, no step): its name. */
  plain?: string;
}

const DOCSMITH_STEP = /^docsmith:(\w+)\((.*)\)$/s;

/** Splits on white space, keeping quoted strings (with `\"` escapes) as one token. */
export function tokenize(instruction: string): { text: string; quoted: boolean }[] {
  const tokens: { text: string; quoted: boolean }[] = [];
  let i = 0;
  const s = instruction;
  while (i < s.length) {
    const ch = s[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '"' || ch === '\u201c' || ch === '\u201d') {
      let out = '';
      i++;
      while (i < s.length && s[i] !== '"' && s[i] !== '\u201d' && s[i] !== '\u201c') {
        if (s[i] === '\\' && (s[i + 1] === '"' || s[i + 1] === '\\')) i++;
        out += s[i++];
      }
      i++;
      tokens.push({ text: out, quoted: true });
    } else {
      let out = '';
      while (i < s.length && !/\s/.test(s[i]!) && s[i] !== '"') out += s[i++];
      tokens.push({ text: out, quoted: false });
    }
  }
  return tokens;
}

const VALUE_SWITCHES = new Set(['b', 'f', '*', '#', '@']);

export function parseInstruction(instruction: string): FieldInstruction {
  const tokens = tokenize(instruction);
  const type = (tokens.shift()?.text ?? '').toUpperCase();
  const args: string[] = [];
  const switches: FieldInstruction['switches'] = [];
  let steps: Record<string, string> | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!token.quoted && /^\\./.test(token.text)) {
      const name =
        token.text.slice(1, 2).toLowerCase() === token.text.slice(1, 2) ? token.text.slice(1, 2) : token.text.slice(1, 2).toLowerCase();
      // `\#"0.00"` glued to its value, or the value as the next token.
      const glued = token.text.slice(2);
      let value: string | undefined = glued || undefined;
      if (value === undefined && VALUE_SWITCHES.has(name) && i + 1 < tokens.length) value = tokens[++i]!.text;
      switches.push({ name, value });
      const step = name === '*' && value !== undefined ? DOCSMITH_STEP.exec(value) : null;
      if (step) (steps ??= {})[step[1]!] = step[2]!;
    } else if (switches.length === 0) {
      args.push(token.text);
    }
  }
  if (steps) return { type, args, switches, steps };
  const name = args[0];
  const plain =
    type === 'MERGEFIELD' &&
    name !== undefined &&
    name !== '' &&
    !isBlockMarker(name) &&
    switches.every((s) => s.name === '*' && s.value !== undefined && /^(MERGEFORMAT|CHARFORMAT)$/i.test(s.value));
  return plain ? { type, args, switches, plain: name } : { type, args, switches };
}

/** Whether a MERGEFIELD's name opens or closes a block (`TableStart:Items`, `TableEnd:Items`) rather than naming a value. */
export function isBlockMarker(name: string): boolean {
  return /^Table(Start|End):/i.test(name);
}

/** The switch value, or undefined. */
export function switchValue(field: FieldInstruction, name: string): string | undefined {
  return field.switches.find((s) => s.name === name && s.value !== undefined)?.value;
}

/** `\* Upper` and friends (MERGEFORMAT and CHARFORMAT are formatting, not case; docsmith's own steps neither). */
export function caseSwitch(field: FieldInstruction): string | undefined {
  return field.switches.find((s) => s.name === '*' && s.value && !/^(MERGEFORMAT|CHARFORMAT|docsmith:)/i.test(s.value))?.value;
}

/**
 * What typed tags ask that no Word switch does (Carbone's substr, convDate's input pattern), as
 * `\* "docsmith:name(argument)"` in the translated template only (read once, with the instruction):
 * the argument of `name`, or undefined.
 */
export function docsmithStep(field: FieldInstruction, name: string): string | undefined {
  return field.steps?.[name];
}

/** A kept field's markup without docsmith's steps, which Word would not read. */
export const withoutDocsmithSteps = (xml: string): string => xml.replace(/ \\\* "docsmith:[^"]*"/g, '');
