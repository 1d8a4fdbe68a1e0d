/**
 * What a TX document holds that a DOCX cannot say, carried over as the nearest thing and named in
 * the template's info (`warnings`) rather than refused: the template still merges, and the .tx
 * file itself keeps it (read and written back byte for byte).
 */
import type { TxDocument, TxStory } from './read.js';

export function txCarriedOver(doc: TxDocument): string[] {
  const stories = [doc, doc.header, doc.footer, doc.firstHeader, doc.firstFooter].filter((story): story is TxStory => story !== undefined);
  const conditional = stories.flatMap((story) =>
    (story.conditions ?? []).map((condition) => story.fields.get(condition.field)?.name ?? `#${condition.field}`),
  );
  const formulas = stories.flatMap((story) =>
    story.kept?.sheet ? story.kept.names.filter((name) => /^[A-Z][A-Z0-9.]*\(/.test(name)) : [],
  );
  const sheet = stories.some((story) => story.kept?.sheet)
    ? [
        `Tables have spreadsheet formulas (TX Text Control${formulas.length ? `: ${[...new Set(formulas)].slice(0, 10).join(', ')}` : ''}). ` +
          'Word tables do not calculate: documents made from this template show the values TX last calculated, whatever the data.',
      ]
    : [];
  return [...sheet, ...conditionalWarning(conditional)];
}

function conditionalWarning(conditional: string[]): string[] {
  return conditional.length
    ? [
        `The form fields ${conditional.map((name) => `"${name}"`).join(', ')} have conditional instructions (TX Text Control Words: ` +
          'checks and changes as a reader fills them in). Word form fields have no such instructions: documents made from this ' +
          'template have the fields without them.',
      ]
    : [];
}
