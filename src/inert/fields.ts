/**
 * Word field instructions that make the program that shows the document read another file or
 * fetch a URL: INCLUDEPICTURE and its old name IMPORT, INCLUDETEXT and its old name INCLUDE,
 * LINK, DDE and DDEAUTO, RD (a referenced document for an index) and DATABASE (a query against a
 * data file). HYPERLINK is not among them: a link is only followed when someone clicks it.
 */
export const LINKING_FIELDS: ReadonlySet<string> = new Set([
  'INCLUDEPICTURE',
  'IMPORT',
  'INCLUDETEXT',
  'INCLUDE',
  'LINK',
  'DDE',
  'DDEAUTO',
  'RD',
  'DATABASE',
]);

/** The field's keyword: its first word, as Word reads it (case does not matter). */
export function fieldKeyword(instruction: string): string {
  const match = /^[\s\u00a0]*([A-Za-z]+)/.exec(instruction);
  return match ? match[1]!.toUpperCase() : '';
}

export function isLinkingField(instruction: string): boolean {
  return LINKING_FIELDS.has(fieldKeyword(instruction));
}
