/**
 * Table rows that hold a picture or a barcode are kept on one page (w:cantSplit), as a person
 * laying out a label sheet or packing list would set them: split, a code is cut in half and
 * cannot be scanned. Rows whose pictures alone are taller than a page are left to split.
 */
import { attr, childElements, element, walk, type XmlElement } from '../ooxml/xml.js';

/** Taller than this (EMU; 8 inches), a picture would not fit a page with its row kept whole. */
const PAGE_HIGH_EMU = 8 * 914400;

export function keepPictureRowsTogether(root: XmlElement): void {
  walk(root, (node) => {
    if (node.name === 'w:tr') keepRow(node);
  });
}

function keepRow(row: XmlElement): void {
  const heights = pictureHeights(row);
  if (heights.length === 0 || Math.max(...heights) > PAGE_HIGH_EMU) return;
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
