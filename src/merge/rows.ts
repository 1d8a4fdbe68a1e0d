/**
 * Table rows that hold a picture or a barcode are kept on one page (w:cantSplit), as a person
 * laying out a label sheet or packing list would set them: split, a code is cut in half and
 * cannot be scanned. Rows whose pictures alone are taller than a page are left to split.
 */
import type { XmlElement, XmlNode } from '../ooxml/xml.js';

/** Taller than this (EMU; 8 inches), a picture would not fit a page with its row kept whole. */
const PAGE_HIGH_EMU = 8 * 914400;

const element = (node: XmlNode, name: string): node is XmlElement => node.kind === 'element' && node.name === name;

export function keepPictureRowsTogether(node: XmlElement): void {
  for (const child of node.children) {
    if (child.kind !== 'element') continue;
    if (child.name === 'w:tr') keepRow(child);
    keepPictureRowsTogether(child);
  }
}

function keepRow(row: XmlElement): void {
  const heights = pictureHeights(row);
  if (heights.length === 0 || Math.max(...heights) > PAGE_HIGH_EMU) return;
  let trPr = row.children.find((c): c is XmlElement => element(c, 'w:trPr'));
  if (!trPr) {
    trPr = { kind: 'element', name: 'w:trPr', attrs: [], children: [] };
    // After w:tblPrEx when there is one: CT_Row's order.
    const at = row.children.findIndex((c) => element(c, 'w:tblPrEx')) + 1;
    row.children.splice(at, 0, trPr);
  }
  if (!trPr.children.some((c) => element(c, 'w:cantSplit'))) trPr.children.unshift({ kind: 'element', name: 'w:cantSplit', attrs: [], children: [] });
}

/** The heights of the pictures in the row's own cells (not in tables nested in them). */
function pictureHeights(node: XmlElement): number[] {
  const heights: number[] = [];
  for (const child of node.children) {
    if (child.kind !== 'element' || child.name === 'w:tbl') continue;
    if (child.name === 'w:drawing') {
      const extent = findExtent(child);
      heights.push(Number(extent?.attrs.find(([key]) => key === 'cy')?.[1] ?? 0));
    } else if (child.name === 'w:pict') {
      heights.push(0);
    } else {
      heights.push(...pictureHeights(child));
    }
  }
  return heights;
}

function findExtent(node: XmlElement): XmlElement | undefined {
  for (const child of node.children) {
    if (child.kind !== 'element') continue;
    if (child.name === 'wp:extent') return child;
    const deeper = findExtent(child);
    if (deeper) return deeper;
  }
  return undefined;
}
