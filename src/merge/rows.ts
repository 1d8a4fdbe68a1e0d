/**
 * Table rows that hold a picture or a barcode are kept on one page (w:cantSplit), as a person
 * laying out a label sheet or packing list would set them: split, a code is cut in half and
 * cannot be scanned. A picture in a vertically merged cell spans its group of rows: the group is
 * kept together (each row whole, each but the last kept with the next). Rows whose pictures alone
 * are taller than a page are left to split. A row of one line is kept whole too (see oneLine).
 */
import { addMissingProperties, PPR_ORDER } from '../ooxml/properties-order.js';
import { attr, childElements, element, walk, type XmlElement } from '../ooxml/xml.js';

/** Taller than this (EMU; 8 inches), a picture would not fit a page with its row kept whole. */
const PAGE_HIGH_EMU = 8 * 914400;

export function keepPictureRowsTogether(root: XmlElement): void {
  walk(root, (node) => {
    if (node.name === 'w:tr') keepRow(node);
    if (node.name === 'w:tbl') keepMergedGroups(node);
  });
}

function keepRow(row: XmlElement): void {
  const heights = pictureHeights(row);
  if (heights.length === 0 ? oneLine(row) : Math.max(...heights) <= PAGE_HIGH_EMU) cantSplit(row);
}

/**
 * A row whose cells each hold one paragraph without a break: Word never splits such a row of one
 * line, but LibreOffice splits off its cells' bottom margin, an empty row at the top of the next page.
 */
function oneLine(row: XmlElement): boolean {
  const cells = childElements(row, 'w:tc');
  if (cells.length === 0) return false;
  return cells.every((cell) => {
    const paragraphs = cell.children.filter((c): c is XmlElement => c.kind === 'element' && c.name !== 'w:tcPr');
    if (paragraphs.length !== 1 || paragraphs[0]!.name !== 'w:p') return false;
    let breaks = false;
    walk(paragraphs[0]!, (node) => {
      if (node.name === 'w:br' || node.name === 'w:cr') breaks = true;
    });
    return !breaks;
  });
}

/** Rows joined by vertically merged cells, kept on one page when they hold a picture that fits one. */
function keepMergedGroups(table: XmlElement): void {
  const rows = childElements(table, 'w:tr');
  let start = 0;
  for (let i = 1; i <= rows.length; i++) {
    if (i < rows.length && continuesMerge(rows[i]!)) continue;
    const group = rows.slice(start, i);
    start = i;
    if (group.length < 2) continue;
    const heights = group.flatMap(pictureHeights);
    if (heights.length === 0 || heights.reduce((a, b) => a + b, 0) > PAGE_HIGH_EMU) continue;
    for (const row of group) cantSplit(row);
    for (const row of group.slice(0, -1)) keepWithNext(row);
  }
}

/** Whether one of the row's cells continues a vertical merge from the row above. */
function continuesMerge(row: XmlElement): boolean {
  return childElements(row, 'w:tc').some((cell) =>
    childElements(cell, 'w:tcPr').some((tcPr) =>
      childElements(tcPr, 'w:vMerge').some((merge) => (attr(merge, 'w:val') ?? 'continue') === 'continue'),
    ),
  );
}

/** Every paragraph of the row's cells kept with the next (the row below, for Word and LibreOffice). */
function keepWithNext(row: XmlElement): void {
  for (const cell of childElements(row, 'w:tc')) {
    for (const paragraph of childElements(cell, 'w:p')) {
      let pPr = childElements(paragraph, 'w:pPr')[0];
      if (!pPr) {
        pPr = element('w:pPr');
        paragraph.children.unshift(pPr);
      }
      addMissingProperties(pPr, [element('w:keepNext')], PPR_ORDER);
    }
  }
}

function cantSplit(row: XmlElement): void {
  let trPr = childElements(row, 'w:trPr')[0];
  if (!trPr) {
    trPr = element('w:trPr');
    // After w:tblPrEx when there is one: CT_Row's order.
    row.children.splice(row.children.findIndex((c) => c.kind === 'element' && c.name === 'w:tblPrEx') + 1, 0, trPr);
  }
  if (childElements(trPr, 'w:cantSplit').length === 0) trPr.children.unshift(element('w:cantSplit'));
}

/** The heights of the pictures in the row's own cells (not in tables nested in them; VML pictures as 0). */
function pictureHeights(row: XmlElement): number[] {
  const heights: number[] = [];
  walk(row, (node) => {
    if (node.name === 'w:tbl') return false;
    if (node.name === 'w:pict') heights.push(0);
    if (node.name !== 'w:drawing') return;
    let cy: number | undefined;
    walk(node, (inner) => {
      if (inner.name === 'wp:extent') cy ??= Number(attr(inner, 'cy') ?? 0);
    });
    heights.push(cy ?? 0);
    return false;
  });
  return heights;
}
