import { isLinkingField } from './fields.js';
import { inertPicture } from './pictures.js';

/** Documents embedded as OLE objects (`\objdata`) are made inert by the caller's rules. */
export interface RtfOptions {
  depth: number;
  nested(bytes: Buffer, depth: number): Buffer;
}

/**
 * RTF made inert: field instructions that include or link another file lose their instruction
 * (the field's last result stays as plain text), linked OLE objects and the attached template
 * are dropped, shape properties that name a picture file are renamed away, and pictures are
 * judged by their bytes (an SVG behind `\pngblip` loses its references, see pictures.ts), and so
 * are the documents of embedded objects (`\objdata`: a workbook or document with pictures). The scanner
 * follows groups, escapes and `\binN` data the way an RTF reader does, so an instruction split
 * over groups or written in `\'hh` and `\u` escapes is still recognised.
 */
export function inertRtf(input: Buffer, options?: RtfOptions): Buffer {
  const rtf = input.toString('latin1');
  const edits = findEdits(rtf, options);
  if (edits.length === 0) return input;
  edits.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) continue; // inside an edit already made
    out += rtf.slice(at, edit.start) + edit.replacement;
    at = edit.end;
  }
  return Buffer.from(out + rtf.slice(at), 'latin1');
}

interface Edit {
  start: number;
  end: number;
  replacement: string;
}

interface Group {
  start: number;
  /** Control words before the group's first text: they say what the group is. */
  leading: string[];
  seenText: boolean;
  linkedObject: boolean;
}

/** Destinations whose content names another file. */
const DROPPED_DESTINATIONS = new Set(['template']);
/** Shape properties that point a picture at a file. */
const LINKED_SHAPE_PROPERTIES = new Set(['pibname', 'piblinkname']);

function findEdits(rtf: string, options?: RtfOptions): Edit[] {
  const edits: Edit[] = [];
  const stack: Group[] = [];
  let i = 0;
  while (i < rtf.length) {
    const c = rtf[i]!;
    if (c === '{') {
      stack.push({ start: i, leading: [], seenText: false, linkedObject: false });
      i++;
    } else if (c === '}') {
      const group = stack.pop();
      i++;
      if (group) judge(rtf, group, i, edits, options);
    } else if (c === '\\') {
      const word = /^\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(rtf.slice(i, i + 48));
      const top = stack[stack.length - 1];
      if (!word) {
        if (top && rtf[i + 1] !== '*') top.seenText = true;
        i += rtf[i + 1] === "'" ? 4 : 2;
        continue;
      }
      const name = word[1]!.toLowerCase();
      i += word[0].length;
      if (name === 'bin') {
        i += Math.max(0, Number(word[2] ?? 0));
        continue;
      }
      if (top && !top.seenText) top.leading.push(name);
      if (name === 'objlink' || name === 'objautlink') {
        for (let k = stack.length - 1; k >= 0; k--) {
          if (stack[k]!.leading.includes('object')) {
            stack[k]!.linkedObject = true;
            break;
          }
        }
      }
    } else {
      const top = stack[stack.length - 1];
      if (top && c !== '\r' && c !== '\n') top.seenText = true;
      i++;
    }
  }
  return edits;
}

function judge(rtf: string, group: Group, end: number, edits: Edit[], options?: RtfOptions): void {
  const lead = group.leading;
  if (lead.includes('fldinst')) {
    if (isLinkingField(groupText(rtf.slice(group.start, end)))) {
      edits.push({ start: group.start, end, replacement: '{\\*\\fldinst  }' });
    }
  } else if (lead.includes('object') && group.linkedObject) {
    edits.push({ start: group.start, end, replacement: '' });
  } else if (lead.includes('pict')) {
    const replacement = inertPict(rtf, group.start, end);
    if (replacement !== undefined) edits.push({ start: group.start, end, replacement });
  } else if (lead.includes('objdata') && options && options.depth > 0) {
    const { data } = groupData(rtf, group.start, end);
    const made = inertOle1(data, options);
    if (made !== data) edits.push({ start: group.start, end, replacement: `{\\*\\objdata ${made.toString('hex')}}` });
  } else if (lead.some((word) => DROPPED_DESTINATIONS.has(word))) {
    edits.push({ start: group.start, end, replacement: '' });
  } else if (lead[0] === 'sn' && LINKED_SHAPE_PROPERTIES.has(groupText(rtf.slice(group.start, end)).trim().toLowerCase())) {
    edits.push({ start: group.start, end, replacement: '{\\sn docsmithRemovedLink}' });
  }
}

/** Text up to the next brace or control word, from a position (sticky). */
const TEXT_RUN = /[^{}\\]*/y;

/**
 * A `\pict` group whose picture needs changing, rewritten: its control words, then the inert
 * picture in hex (nested groups, picture properties among them, are left out). Undefined when
 * the picture is safe as it is.
 */
function inertPict(rtf: string, start: number, end: number): string | undefined {
  const { head, data } = groupData(rtf, start, end);
  const made = inertPicture(data);
  if (made === data) return undefined;
  return `{${head} ${Buffer.from(made).toString('hex')}}`;
}

/** A group's control words (nested groups left out) and its data: hex digits and `\binN` bytes. */
function groupData(rtf: string, start: number, end: number): { head: string; data: Buffer } {
  let head = '';
  const hex: string[] = [];
  const binary: Buffer[] = [];
  let i = start + 1;
  const last = end - 1; // the closing brace
  while (i < last) {
    const c = rtf[i]!;
    if (c === '{') {
      let depth = 0;
      for (; i < last; i++) {
        if (rtf[i] === '\\') i++;
        else if (rtf[i] === '{') depth++;
        else if (rtf[i] === '}' && --depth === 0) break;
      }
      i++;
    } else if (c === '\\') {
      const word = /^\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(rtf.slice(i, i + 48));
      if (!word) {
        i += 2;
        continue;
      }
      i += word[0].length;
      if (word[1] === 'bin') {
        const length = Math.max(0, Number(word[2] ?? 0));
        binary.push(Buffer.from(rtf.slice(i, i + length), 'latin1'));
        i += length;
      } else {
        head += `\\${word[1]}${word[2] ?? ''}`;
      }
    } else {
      TEXT_RUN.lastIndex = i;
      TEXT_RUN.exec(rtf);
      const next = Math.min(TEXT_RUN.lastIndex > i ? TEXT_RUN.lastIndex : i + 1, last);
      hex.push(rtf.slice(i, next).replace(/[^0-9a-fA-F]/g, ''));
      i = next;
    }
  }
  const digits = hex.join('');
  return { head, data: Buffer.concat([Buffer.from(digits.slice(0, digits.length & ~1), 'hex'), ...binary]) };
}

/** OLE1 FormatID of an embedded object (MS-OLEDS 2.2.4): native data follows its three names. */
const OLE1_EMBEDDED = 2;

/**
 * An OLE1 object (what `\objdata` holds) whose native data, an embedded document or workbook,
 * is made inert; the input itself when nothing changed or it is not an embedded object.
 */
function inertOle1(data: Buffer, options: RtfOptions): Buffer {
  if (data.length < 12 || data.readUInt32LE(4) !== OLE1_EMBEDDED) return data;
  let at = 8;
  for (let name = 0; name < 3; name++) {
    if (at + 4 > data.length) return data;
    at += 4 + data.readUInt32LE(at);
  }
  if (at + 4 > data.length) return data;
  const size = data.readUInt32LE(at);
  if (at + 4 + size > data.length) return data;
  const native = Buffer.from(data.subarray(at + 4, at + 4 + size));
  const made = options.nested(native, options.depth - 1);
  if (made === native) return data;
  const length = Buffer.alloc(4);
  length.writeUInt32LE(made.length);
  return Buffer.concat([data.subarray(0, at), length, made, data.subarray(at + 4 + size)]);
}

/** The text of a group as a reader sees it: escapes decoded, control words and braces gone. */
export function groupText(rtf: string): string {
  let text = '';
  let skip = 0; // fallback characters after \uN
  let i = 0;
  while (i < rtf.length) {
    const c = rtf[i]!;
    if (c === '{' || c === '}' || c === '\r' || c === '\n') {
      i++;
    } else if (c === '\\') {
      const next = rtf[i + 1] ?? '';
      if (next === "'") {
        const code = parseInt(rtf.slice(i + 2, i + 4), 16);
        i += 4;
        if (skip > 0) skip--;
        else if (!Number.isNaN(code)) text += String.fromCharCode(code);
        continue;
      }
      const word = /^\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(rtf.slice(i, i + 48));
      if (!word) {
        if (next === '~') text += ' ';
        else if (next === '\\' || next === '{' || next === '}') text += next;
        i += 2;
        continue;
      }
      i += word[0].length;
      if (word[1] === 'u' && word[2] !== undefined) {
        let code = Number(word[2]);
        if (code < 0) code += 65536;
        text += String.fromCharCode(code);
        skip = 1;
      } else if (word[1] === 'bin') {
        i += Math.max(0, Number(word[2] ?? 0));
      } else if (word[1] === 'tab') {
        text += ' ';
      }
    } else {
      if (skip > 0) skip--;
      else text += c;
      i++;
    }
  }
  return text;
}
