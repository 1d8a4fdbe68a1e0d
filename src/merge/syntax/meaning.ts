/** What a typed tag means in the merge model, whatever the syntax it was typed in. */
import type { BlockMode } from '../template.js';

export type { BlockMode };

export type TagMeaning =
  /** A merge field; `switches` are MERGEFIELD switches (`\# "0.00"`, `\* Upper`). */
  | { kind: 'value'; name: string; switches?: string }
  /** The start of a block: repeated for a list, shown once for a true value or object (section), or shown only for a false or empty one (inverted). */
  | { kind: 'open'; name: string; mode: BlockMode }
  | { kind: 'close'; name: string }
  /** A tag the syntax has that docsmith does not run: a 400 naming it and why. */
  | { kind: 'refused'; reason: string };

/** What a merge request adds to a template's tags: its culture (Carbone's localised date formats) and the translations for it (`{t(…)}`). */
export interface TagContext {
  culture: string;
  translations?: Record<string, string>;
  /** docxtemplater's raw XML tags (`{@x}`) are merged: the operator allows them (DOCSMITH_RAW_XML). */
  rawXml?: boolean;
}
