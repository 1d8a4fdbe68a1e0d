/** What typed tags become in the document: merge fields, and bookmarks around merge blocks. */
import { InputError } from '../../errors.js';
import { element, text, type XmlElement, type XmlNode } from '../../ooxml/xml.js';
import type { BlockMode } from './meaning.js';
import type { Delimiters, Tag } from './tags.js';

/** The bookmark name prefix of a block (merge/template.ts reads them back); absent mode: a list block (`txmb_`). */
export const BLOCK_PREFIX: Record<BlockMode | 'rows', string> = { rows: 'txmb_', section: 'txmbif_', inverted: 'txmbifnot_' };

import { MAX_BLOCK_DEPTH, MAX_BLOCKS } from '../template.js';

export { MAX_BLOCK_DEPTH, MAX_BLOCKS };

export function checkBlockCount(depth: number, count: number, where: string): void {
  if (depth > MAX_BLOCK_DEPTH) throw new InputError(`${where}: blocks are nested more than ${MAX_BLOCK_DEPTH} deep.`);
  if (count >= MAX_BLOCKS) throw new InputError(`${where}: more than ${MAX_BLOCKS} blocks in one part.`);
}

/** Bookmark ids for the blocks of one part: far above any a document's own bookmarks use. */
export class BookmarkIds {
  private next = 1_000_000;
  take(): string {
    return String(this.next++);
  }
}

export const bookmarkStart = (id: string, mode: BlockMode | 'rows', name: string): XmlElement =>
  element('w:bookmarkStart', [
    ['w:id', id],
    ['w:name', BLOCK_PREFIX[mode] + name],
  ]);

export const bookmarkEnd = (id: string): XmlElement => element('w:bookmarkEnd', [['w:id', id]]);

/** A paragraph that ends a section keeps it: it stays (without its tags) rather than take the section with it. */
export function holdsSection(paragraph: XmlElement): boolean {
  const pPr = paragraph.children.find((c): c is XmlElement => c.kind === 'element' && c.name === 'w:pPr');
  return pPr?.children.some((c) => c.kind === 'element' && c.name === 'w:sectPr') ?? false;
}

/** A field's instruction: text, and the runs of fields nested in it. */
export type InstructionPart = string | XmlNode[];

/** A complex field in the tag's formatting, showing the tag as typed until merged (or `shown`). */
export function complexField(parts: InstructionPart[], tag: Tag, delimiters: Delimiters, shown?: string): XmlNode[] {
  const run = (...children: XmlNode[]) => element('w:r', [], [...(tag.rPr ? [tag.rPr] : []), ...children]);
  const fldChar = (type: string) => run(element('w:fldChar', [['w:fldCharType', type]]));
  return [
    fldChar('begin'),
    ...parts.flatMap((part) =>
      typeof part === 'string' ? [run(element('w:instrText', [['xml:space', 'preserve']], [text(part)]))] : part,
    ),
    fldChar('separate'),
    run(element('w:t', [['xml:space', 'preserve']], [text(shown ?? delimiters.start + tag.text + delimiters.end)])),
    fldChar('end'),
  ];
}

/** A field instruction's quoted text (`\"` for a quote). */
export const quoted = (value: string): string => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** A complex MERGEFIELD in the tag's formatting, showing the tag as typed until merged. */
export function mergeField(name: string, switches: string | undefined, tag: Tag, delimiters: Delimiters): XmlNode[] {
  return complexField([` MERGEFIELD ${quoted(name)}${switches ? ` ${switches}` : ''} \\* MERGEFORMAT `], tag, delimiters);
}
