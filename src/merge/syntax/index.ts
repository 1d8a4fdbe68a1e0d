/**
 * Templates whose tags were typed as text, in another product's syntax, turned into the merge
 * model: each value tag becomes a MERGEFIELD (in the tag's formatting), each loop or section a
 * merge block bookmark (`txmbif_` shown for a true value and repeated for a list, `txmbifnot_`
 * shown for a false one). The result is an ordinary merge template: merging, template info, data
 * checks and every return format work on it unchanged.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { InputError } from '../../errors.js';
import { OoxmlPackage } from '../../ooxml/package.js';
import { parseXml, serializeDocument, type XmlElement } from '../../ooxml/xml.js';
import { DOCXTEMPLATER_DELIMITERS, translateDocxtemplaterPart } from './docxtemplater.js';
import { CARBONE_DELIMITERS, translateCarbonePart } from './carbone.js';
import type { Delimiters } from './tags.js';
import type { TagContext } from './meaning.js';

export type { BlockMode, TagContext, TagMeaning } from './meaning.js';

/** `word`: merge fields and bookmarks as Word writes them (the default); the others: tags typed as text. */
export const TEMPLATE_SYNTAXES = ['word', 'docxtemplater', 'carbone'] as const;
export type TemplateSyntax = (typeof TEMPLATE_SYNTAXES)[number];

/** A stored syntax name as the type; a name this version does not know reads as Word's (never stored: requests are checked). */
export function asSyntax(value: string | undefined): TemplateSyntax {
  return (TEMPLATE_SYNTAXES as readonly string[]).includes(value ?? '') ? (value as TemplateSyntax) : 'word';
}

/** The `templateSyntax` query parameter: absent is Word's merge fields; an unknown name a 400 listing those there are. */
export function parseSyntax(value: string | undefined): TemplateSyntax | undefined {
  if (value === undefined || value === '') return undefined;
  const known = TEMPLATE_SYNTAXES.find((s) => s === value.toLowerCase());
  if (!known) throw new InputError(`templateSyntax "${value}" is not one docsmith reads; use ${TEMPLATE_SYNTAXES.join(', ')}.`);
  return known;
}

interface Syntax {
  delimiters: Delimiters;
  /** Turns one part's tags into merge fields and blocks, in place; false when it has none. */
  translatePart(root: XmlElement, where: string, context: TagContext): boolean;
}

const SYNTAXES: Record<Exclude<TemplateSyntax, 'word'>, Syntax> = {
  docxtemplater: { delimiters: DOCXTEMPLATER_DELIMITERS, translatePart: translateDocxtemplaterPart },
  carbone: { delimiters: CARBONE_DELIMITERS, translatePart: translateCarbonePart },
};

/** The template with its typed tags as merge fields and blocks; a template without tags comes back as it was. */
export function translateTemplate(
  docx: Uint8Array,
  syntax: TemplateSyntax,
  what = 'The template',
  context: TagContext = DEFAULT_TAG_CONTEXT,
): Uint8Array {
  if (syntax === 'word') return docx;
  const rules = SYNTAXES[syntax];
  const pkg = OoxmlPackage.read(docx, what);
  let changed = false;
  for (const name of pkg.textParts()) {
    const source = pkg.text(name);
    if (!source || (!source.includes(rules.delimiters.start) && !source.includes(rules.delimiters.end))) continue;
    const doc = parseXml(source, `${what} (${name})`);
    const where = `${what} (${partLabel(name)})`;
    if (rules.translatePart(doc.root, where, context)) {
      pkg.setText(name, serializeDocument(doc));
      changed = true;
    }
  }
  return changed ? pkg.toBuffer() : docx;
}

function partLabel(name: string): string {
  const base = name.replace(/^word\//, '').replace(/\.xml$/, '');
  return base === 'document' ? 'the document' : base;
}

export const DEFAULT_TAG_CONTEXT: TagContext = { culture: 'en-US' };

/**
 * What a merge request gives typed tags: its culture, and of the translation tables (by language,
 * as Carbone takes them: `{ "fr-fr": { "Total": "Somme" } }`) the one for that culture, found as
 * Carbone finds it: by the whole name in any case (`fr` is not `fr-fr`).
 */
export function tagContext(culture: string, translations?: Record<string, Record<string, string>>): TagContext {
  const name = culture.toLowerCase();
  const table = translations && Object.entries(translations).find(([k]) => k.toLowerCase() === name)?.[1];
  return table ? { culture, translations: table } : { culture };
}

/** A short key for a context, for caches of translated templates. */
export function contextKey(context: TagContext): string {
  const table = context.translations ? createHash('sha256').update(JSON.stringify(context.translations)).digest('hex') : '';
  return `${context.culture}:${table}${context.rawXml ? ':raw' : ''}`;
}

/** Templates with typed tags as merge fields (merge/syntax/), by content hash, syntax and context: translated once, not per merge. */
export class TranslationCache {
  private readonly entries: LRUCache<string, Uint8Array>;

  constructor(maxEntries = 32) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(docx: Uint8Array, syntax: TemplateSyntax, what?: string, context: TagContext = DEFAULT_TAG_CONTEXT): Uint8Array {
    const key = `${syntax}:${createHash('sha256').update(docx).digest('hex')}:${contextKey(context)}`;
    const hit = this.entries.get(key);
    if (hit) return hit;
    const translated = translateTemplate(docx, syntax, what, context);
    this.entries.set(key, translated);
    return translated;
  }
}
