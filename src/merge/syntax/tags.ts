/**
 * Tags typed as plain text in a paragraph (`{name}`, `{#items}`, `{d.total}`), found whatever the
 * runs: an editor splits a tag into several runs when its formatting or a spelling mark changes
 * mid-tag. Knows nothing of any syntax; a syntax says what each tag becomes (syntax/index.ts).
 */
import { InputError } from '../../errors.js';
import { element, text, type XmlElement, type XmlNode } from '../../ooxml/xml.js';

/** Zero-width markers a tag may run across without ending. */
const TRANSPARENT = new Set(['w:proofErr', 'w:bookmarkStart', 'w:bookmarkEnd', 'w:permStart', 'w:permEnd', 'w:lastRenderedPageBreak']);

/** Stands for content no tag crosses in a paragraph's text; XML text never holds it. */
const STOP = '\u0000';

type Atom =
  | { kind: 'char'; ch: string; run: XmlElement }
  | { kind: 'node'; node: XmlNode; run: XmlElement }
  | { kind: 'marker'; node: XmlNode }
  | { kind: 'opaque'; node: XmlNode };

/** One tag as typed: its text between the delimiters and where it stands. */
export interface Tag {
  /** The text between the delimiters, as typed. */
  text: string;
  paragraph: TaggedParagraph;
  /** The run properties of the tag's first character (what a value put in its place wears). */
  rPr: XmlElement | undefined;
  /** Atom range [start, end) the tag covers, delimiters included. */
  start: number;
  end: number;
}

export interface TaggedParagraph {
  element: XmlElement;
  /** The element holding the paragraph (body, cell, header, text box...). */
  parent: XmlElement;
  /** The table cell the paragraph is in, if any. */
  cell: XmlElement | undefined;
  /** The elements holding it, outermost first (the part's root, tables, rows, cells...). */
  ancestors: XmlElement[];
  /** Which paragraph of its part (1-based), for messages. */
  number: number;
  tags: Tag[];
  /** Whether the paragraph holds anything but its tags and white space (text, tabs, pictures...). */
  hasOtherContent: boolean;
  atoms: Atom[];
}

export interface Delimiters {
  start: string;
  end: string;
  /**
   * Which delimited texts are tags. Absent: all of them, and a delimiter without its partner is
   * a 400 (docxtemplater). Given: the rest is text, kept as typed (Carbone leaves `{x}` alone).
   */
  isTag?: (text: string) => boolean;
}

function atomsOf(paragraph: XmlElement): Atom[] {
  const atoms: Atom[] = [];
  const addRun = (run: XmlElement) => {
    for (const child of run.children) {
      if (child.kind !== 'element' || child.name === 'w:rPr') continue;
      if (child.name === 'w:t') {
        for (const ch of child.children.map((c) => (c.kind === 'text' ? c.text : '')).join('')) atoms.push({ kind: 'char', ch, run });
      } else atoms.push({ kind: 'node', node: child, run });
    }
  };
  for (const child of paragraph.children) {
    if (child.kind === 'element' && child.name === 'w:r') addRun(child);
    else if (child.kind === 'element' && TRANSPARENT.has(child.name)) atoms.push({ kind: 'marker', node: child });
    // Anything else (properties, hyperlinks, insertions, fields, content controls) is one piece no tag crosses.
    else atoms.push({ kind: 'opaque', node: child });
  }
  return atoms;
}

const runProps = (run: XmlElement): XmlElement | undefined =>
  run.children.find((c): c is XmlElement => c.kind === 'element' && c.name === 'w:rPr');

/** The paragraph's text with each atom's place: characters as themselves, other content as a stop no tag crosses. */
function textWithPlaces(atoms: Atom[]): { text: string; places: number[] } {
  let s = '';
  const places: number[] = [];
  atoms.forEach((atom, i) => {
    if (atom.kind === 'marker') return;
    s += atom.kind === 'char' ? atom.ch : STOP;
    places.push(i);
  });
  return { text: s, places };
}

/** Every paragraph of `root` (tables, text boxes, any depth) that holds tags, in document order. */
export function findTags(root: XmlElement, delimiters: Delimiters, where: string): TaggedParagraph[] {
  const found: TaggedParagraph[] = [];
  let number = 0;
  const visit = (node: XmlElement, ancestors: XmlElement[], cell: XmlElement | undefined) => {
    if (node.name === 'w:p') {
      number++;
      const paragraph = tagsOf(node, ancestors, cell, number, delimiters, where);
      if (paragraph) found.push(paragraph);
    }
    // Text boxes inside a paragraph's runs hold paragraphs of their own.
    const inner = node.name === 'w:tc' ? node : cell;
    const within = [...ancestors, node];
    for (const child of node.children)
      if (child.kind === 'element') visit(child, within, node.name === 'w:txbxContent' ? undefined : inner);
  };
  visit(root, [], undefined);
  return found;
}

function tagsOf(
  element: XmlElement,
  ancestors: XmlElement[],
  cell: XmlElement | undefined,
  number: number,
  delimiters: Delimiters,
  where: string,
): TaggedParagraph | undefined {
  const atoms = atomsOf(element);
  const { text: s, places } = textWithPlaces(atoms);
  if (!s.includes(delimiters.start) && !s.includes(delimiters.end)) return undefined;
  const parent = ancestors[ancestors.length - 1]!;
  const paragraph: TaggedParagraph = { element, parent, cell, ancestors, number, tags: [], hasOtherContent: false, atoms };
  const context = (at: number) => s.slice(Math.max(0, at - 20), at + 30).replaceAll(STOP, ' ');
  let covered = 0;
  let other = '';
  const strict = delimiters.isTag === undefined;
  for (let i = 0; i < s.length;) {
    const open = s.indexOf(delimiters.start, i);
    const stray = s.indexOf(delimiters.end, i);
    if (strict && stray >= 0 && (open < 0 || stray < open)) {
      throw new InputError(
        `${where}, paragraph ${number}: "${delimiters.end}" with no "${delimiters.start}" before it, in "${context(stray)}".`,
      );
    }
    if (open < 0) break;
    const close = s.indexOf(delimiters.end, open + delimiters.start.length);
    const body = close < 0 ? '' : s.slice(open + delimiters.start.length, close);
    const closed = close >= 0 && !body.includes(STOP) && !body.includes(delimiters.start);
    if (strict && !closed) {
      throw new InputError(
        `${where}, paragraph ${number}: the tag "${context(open).trim()}" is not closed with "${delimiters.end}" in its paragraph.`,
      );
    }
    if (!closed || (delimiters.isTag && !delimiters.isTag(body))) {
      i = open + delimiters.start.length;
      continue;
    }
    other += s.slice(covered, open);
    const start = places[open]!;
    const endAtom = places[close + delimiters.end.length - 1]!;
    const first = atoms[start]!;
    paragraph.tags.push({ text: body, paragraph, rPr: first.kind === 'char' ? runProps(first.run) : undefined, start, end: endAtom + 1 });
    i = covered = close + delimiters.end.length;
  }
  other += s.slice(covered);
  const pictures = atoms.some(
    (a) => a.kind !== 'char' && a.kind !== 'marker' && !(a.kind === 'opaque' && a.node.kind === 'element' && a.node.name === 'w:pPr'),
  );
  paragraph.hasOtherContent = other.replaceAll(STOP, '').trim() !== '' || pictures;
  return paragraph.tags.length > 0 ? paragraph : undefined;
}

/**
 * Rewrites a paragraph with each tag replaced by the nodes `replace` gives for it (nothing: the
 * tag goes). Everything else keeps its runs, formatting and order; the text around a tag stays
 * in a run of its own run's formatting.
 */
export function rewriteParagraph(paragraph: TaggedParagraph, replace: (tag: Tag) => XmlNode[]): void {
  const out: XmlNode[] = [];
  let current: { run: XmlElement; children: XmlNode[]; text: string } | undefined;
  const flushText = () => {
    if (current?.text) current.children.push(element('w:t', [['xml:space', 'preserve']], [text(current.text)]));
    if (current) current.text = '';
  };
  const flush = () => {
    flushText();
    if (current && current.children.length) {
      const rPr = runProps(current.run);
      out.push(element('w:r', current.run.attrs, [...(rPr ? [rPr] : []), ...current.children]));
    }
    current = undefined;
  };
  const into = (run: XmlElement) => {
    if (current?.run !== run) {
      flush();
      current = { run, children: [], text: '' };
    }
    return current;
  };
  let next = 0;
  for (let i = 0; i < paragraph.atoms.length; i++) {
    const tag = paragraph.tags[next];
    if (tag && i === tag.start) {
      flush();
      out.push(...replace(tag));
      // Markers inside the tag (spelling marks, bookmarks) stay, after it.
      for (let j = tag.start; j < tag.end; j++) {
        const atom = paragraph.atoms[j]!;
        if (atom.kind === 'marker' && !(atom.node.kind === 'element' && atom.node.name === 'w:proofErr')) out.push(atom.node);
      }
      i = tag.end - 1;
      next++;
      continue;
    }
    const atom = paragraph.atoms[i]!;
    if (atom.kind === 'char') into(atom.run).text += atom.ch;
    else if (atom.kind === 'node') {
      const run = into(atom.run);
      flushText();
      run.children.push(atom.node);
    } else {
      flush();
      out.push(atom.node);
    }
  }
  flush();
  paragraph.element.children = out;
}
