/**
 * What a TX document holds that a DOCX cannot say, carried over as the nearest thing and named in
 * the template's info (`warnings`) rather than refused: the template still merges, and the .tx
 * file itself keeps it (read and written back byte for byte).
 */
import { picturesOf, type TxDocument, type TxStory } from './read.js';

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
  const boxes = stories.flatMap((story) => (story.frames ?? []).filter((frame) => 'signature' in frame));
  const linked = [...new Set(stories.flatMap((story) => picturesOf(story).flatMap((picture) => picture.linked ?? [])))];
  const links = linked.length
    ? [
        `Pictures linked to files (${linked.map((name) => `"${name}"`).join(', ')}) are not read: docsmith never opens a file a document names. ` +
          'Documents made from this template show a blank of their size; embed the pictures in the template to show them.',
      ]
    : [];
  const barcodes = stories.flatMap((story) =>
    picturesOf(story).flatMap((picture) => (picture.barcode ? [barcodeName(picture.barcode.xml)] : [])),
  );
  const barcode = barcodes.length
    ? [
        `Barcodes (TX Text Control: ${[...new Set(barcodes)].slice(0, 10).join(', ')}) are carried over as the picture TX last drew of each. ` +
          'Word has no such barcode object: documents made from this template show that picture whatever the data; a DISPLAYBARCODE field draws one from a merge field.',
      ]
    : [];
  const inlineBoxes = stories.reduce((n, story) => n + picturesOf(story).filter((picture) => picture.signatureBox).length, 0);
  const signature =
    boxes.length + inlineBoxes
      ? [
          `The document has ${boxes.length + inlineBoxes === 1 ? 'a signature box' : `${boxes.length + inlineBoxes} signature boxes`} (TX Text Control's e-signing fields). ` +
            'Word has none: documents made from this template show the picture each box shows until signed, where TX places it.',
        ]
      : [];
  return [...sheet, ...conditionalWarning(conditional), ...signature, ...links, ...barcode];
}

/** A barcode as its XML names it: its type and text. */
function barcodeName(xml: string): string {
  const field = (name: string) => new RegExp(`<${name}>([^<]{0,100})</${name}>`).exec(xml)?.[1];
  return `${field('BarcodeType') ?? 'a barcode'} "${field('Text') ?? ''}"`;
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
