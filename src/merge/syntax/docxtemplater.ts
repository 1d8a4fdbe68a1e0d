/**
 * docxtemplater's tags with its default parser: `{name}`, `{#items}`...`{/items}` (loops and
 * sections), `{^x}`...`{/x}` (inverted sections), raw XML (`{@x}`) where the operator allows it.
 * Expressions (its optional angular parser: filters, operators) are refused by name.
 */
import { InputError } from '../../errors.js';
import { attr, type XmlElement, type XmlNode } from '../../ooxml/xml.js';
import { bookmarkEnd, bookmarkStart, BookmarkIds, checkBlockCount, holdsSection, mergeField } from './markup.js';
import type { TagContext, TagMeaning } from './meaning.js';
import { findTags, rewriteParagraph, type Tag, type TaggedParagraph } from './tags.js';

export const DOCXTEMPLATER_DELIMITERS = { start: '{', end: '}' };

/** Characters of expressions (docxtemplater's optional expression parser), not of plain names. */
const EXPRESSION = /[|()+*=<>!?:'"[\]&%,;]/;

/** A raw XML value (`{@x}`): a merge field with docsmith's own step, put in place of its paragraph (merge/rawxml.ts). */
export const RAW_XML_SWITCH = '\\* "docsmith:raw()"';

export function docxtemplaterTag(text: string, rawXml = false): TagMeaning {
  const tag = text.trim();
  const sigil = tag.charAt(0);
  const name = ['#', '^', '/', '@', '-', '>', '~'].includes(sigil) ? tag.slice(1).trim() : tag;
  if (sigil === '@' && !rawXml)
    return {
      kind: 'refused',
      reason: 'raw XML tags ({@...}) are off on this server; its operator can allow them (DOCSMITH_RAW_XML=1), their values then checked',
    };
  if (sigil === '-' || sigil === '>' || sigil === '~')
    return { kind: 'refused', reason: `"${sigil}" tags need a docxtemplater module that docsmith does not provide` };
  if (name === '') return { kind: 'refused', reason: 'the tag is empty' };
  if (EXPRESSION.test(name))
    return {
      kind: 'refused',
      reason:
        'expressions (filters, operators, quotes) need docxtemplater’s expression parser, which docsmith does not run; use a plain name',
    };
  // `{.}`: the current element of a loop over plain values (their rows are `{ value: x }`).
  const field = name === '.' ? 'value' : name;
  if (sigil === '@') return { kind: 'value', name: field, switches: RAW_XML_SWITCH };
  if (sigil === '#') return { kind: 'open', name: field, mode: 'section' };
  if (sigil === '^') return { kind: 'open', name: field, mode: 'inverted' };
  if (sigil === '/') return { kind: 'close', name: field };
  return { kind: 'value', name: field };
}

interface Placed {
  tag: Tag;
  meaning: TagMeaning;
  /** For a block's start and end: its bookmark. */
  marker?: XmlElement;
}

/** Turns one part's docxtemplater tags into merge fields and blocks; false when it has none. */
export function translateDocxtemplaterPart(root: XmlElement, where: string, context?: TagContext): boolean {
  const rules = { delimiters: DOCXTEMPLATER_DELIMITERS, meaning: (text: string) => docxtemplaterTag(text, context?.rawXml) };
  const paragraphs = findTags(root, rules.delimiters, where);
  if (paragraphs.length === 0) return false;
  const placed: Placed[] = [];
  for (const paragraph of paragraphs)
    for (const tag of paragraph.tags) {
      const meaning = rules.meaning(tag.text);
      if (meaning.kind === 'refused')
        throw new InputError(
          `${where}, paragraph ${paragraph.number}: the tag "${rules.delimiters.start}${tag.text}${rules.delimiters.end}" cannot be merged: ${meaning.reason}.`,
        );
      if (meaning.kind === 'value' && meaning.switches === RAW_XML_SWITCH && (paragraph.tags.length > 1 || paragraph.hasOtherContent))
        throw new InputError(
          `${where}, paragraph ${paragraph.number}: the raw XML tag "${rules.delimiters.start}${tag.text}${rules.delimiters.end}" must be alone in its paragraph, which its value replaces (as in docxtemplater).`,
        );
      placed.push({ tag, meaning });
    }
  // Blocks: each end closes the latest open start, which must have its name.
  const open: Placed[] = [];
  const pairs: [Placed, Placed][] = [];
  const ids = new BookmarkIds();
  const label = (p: Placed) => `"${rules.delimiters.start}${p.tag.text}${rules.delimiters.end}" (paragraph ${p.tag.paragraph.number})`;
  for (const p of placed) {
    if (p.meaning.kind === 'open') {
      p.marker = bookmarkStart(ids.take(), p.meaning.mode, p.meaning.name);
      open.push(p);
      checkBlockCount(open.length, pairs.length, where);
    } else if (p.meaning.kind === 'close') {
      const start = open.pop();
      if (!start) throw new InputError(`${where}: ${label(p)} closes a block that was never opened.`);
      const startName = start.meaning.kind === 'open' ? start.meaning.name : '';
      if (startName.toLowerCase() !== p.meaning.name.toLowerCase())
        throw new InputError(`${where}: ${label(p)} closes ${label(start)}; close the inner block first.`);
      p.marker = bookmarkEnd(attr(start.marker!, 'w:id') ?? '');
      pairs.push([start, p]);
    }
  }
  const unclosed = open[0];
  if (unclosed) throw new InputError(`${where}: ${label(unclosed)} opens a block that is never closed.`);
  // Several paragraphs in one container: the tags' own paragraphs go (docxtemplater's paragraphLoop).
  const byTag = new Map(placed.map((p) => [p.tag, p]));
  const isBlockTag = (tag: Tag) => ['open', 'close'].includes(byTag.get(tag)?.meaning.kind ?? '');
  const dropped = new Set<TaggedParagraph>();
  for (const [start, end] of pairs) {
    const a = start.tag.paragraph;
    const b = end.tag.paragraph;
    if (a === b || a.cell !== b.cell) continue;
    for (const [p, side] of [
      [a, start],
      [b, end],
    ] as const) {
      if (p.hasOtherContent || p.tags.some((t) => !isBlockTag(t)))
        throw new InputError(
          `${where}: ${label(side)} shares its paragraph with other content; a block over several paragraphs needs its start and end tags each alone in a paragraph.`,
        );
      dropped.add(p);
    }
  }
  // Each container is rebuilt once, its dropped paragraphs in place of their markers.
  const replaced = new Map<XmlElement, Map<XmlNode, XmlNode[]>>();
  for (const paragraph of paragraphs) {
    if (dropped.has(paragraph) && !holdsSection(paragraph.element)) {
      const markers = paragraph.tags.map((t) => byTag.get(t)!.marker!);
      const inParent = replaced.get(paragraph.parent) ?? new Map<XmlNode, XmlNode[]>();
      replaced.set(paragraph.parent, inParent.set(paragraph.element, markers));
      continue;
    }
    rewriteParagraph(paragraph, (tag) => {
      const p = byTag.get(tag)!;
      if (p.meaning.kind === 'value') return mergeField(p.meaning.name, p.meaning.switches, tag, rules.delimiters);
      return p.marker ? [p.marker] : [];
    });
  }
  for (const [parent, markers] of replaced) parent.children = parent.children.flatMap((child) => markers.get(child) ?? [child]);
  return true;
}
