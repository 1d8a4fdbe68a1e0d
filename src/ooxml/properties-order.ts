import type { XmlElement } from './xml.js';

/** Run property elements in the order the schema requires (CT_RPr). */
export const RPR_ORDER = ['w:rStyle', 'w:rFonts', 'w:b', 'w:bCs', 'w:i', 'w:iCs', 'w:caps', 'w:smallCaps', 'w:strike', 'w:dstrike', 'w:outline',
  'w:shadow', 'w:emboss', 'w:imprint', 'w:noProof', 'w:snapToGrid', 'w:vanish', 'w:webHidden', 'w:color', 'w:spacing', 'w:w', 'w:kern',
  'w:position', 'w:sz', 'w:szCs', 'w:highlight', 'w:u', 'w:effect', 'w:bdr', 'w:shd', 'w:fitText', 'w:vertAlign', 'w:rtl', 'w:cs', 'w:em', 'w:lang',
  'w:eastAsianLayout', 'w:specVanish'];

/** Paragraph property elements in the order the schema requires (CT_PPr). */
export const PPR_ORDER = ['w:pStyle', 'w:keepNext', 'w:keepLines', 'w:pageBreakBefore', 'w:framePr', 'w:widowControl', 'w:numPr',
  'w:suppressLineNumbers', 'w:pBdr', 'w:shd', 'w:tabs', 'w:suppressAutoHyphens', 'w:kinsoku', 'w:wordWrap', 'w:overflowPunct',
  'w:topLinePunct', 'w:autoSpaceDE', 'w:autoSpaceDN', 'w:bidi', 'w:adjustRightInd', 'w:snapToGrid', 'w:spacing', 'w:ind',
  'w:contextualSpacing', 'w:mirrorIndents', 'w:suppressOverlap', 'w:jc', 'w:textDirection', 'w:textAlignment', 'w:textboxTightWrap',
  'w:outlineLvl', 'w:divId', 'w:cnfStyle', 'w:rPr', 'w:sectPr', 'w:pPrChange'];

/**
 * Adds to `target` (an rPr or pPr) each of `extra` whose kind it does not have yet, keeping the
 * schema order; what `target` has wins. Elements of unknown kinds go last.
 */
export function addMissingProperties(target: XmlElement, extra: XmlElement[], order: readonly string[]): void {
  const have = new Set(target.children.filter((c): c is XmlElement => c.kind === 'element').map((c) => c.name));
  const rank = (node: XmlElement) => {
    const i = order.indexOf(node.name);
    return i < 0 ? order.length : i;
  };
  const elements = target.children.filter((c): c is XmlElement => c.kind === 'element');
  for (const element of extra) {
    if (have.has(element.name)) continue;
    have.add(element.name);
    elements.push(element);
  }
  elements.sort((a, b) => rank(a) - rank(b));
  target.children = elements;
}
