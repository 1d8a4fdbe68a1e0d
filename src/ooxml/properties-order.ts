import type { XmlElement } from './xml.js';

/** Run property elements in the order the schema requires (CT_RPr). */
export const RPR_ORDER = [
  'w:rStyle',
  'w:rFonts',
  'w:b',
  'w:bCs',
  'w:i',
  'w:iCs',
  'w:caps',
  'w:smallCaps',
  'w:strike',
  'w:dstrike',
  'w:outline',
  'w:shadow',
  'w:emboss',
  'w:imprint',
  'w:noProof',
  'w:snapToGrid',
  'w:vanish',
  'w:webHidden',
  'w:color',
  'w:spacing',
  'w:w',
  'w:kern',
  'w:position',
  'w:sz',
  'w:szCs',
  'w:highlight',
  'w:u',
  'w:effect',
  'w:bdr',
  'w:shd',
  'w:fitText',
  'w:vertAlign',
  'w:rtl',
  'w:cs',
  'w:em',
  'w:lang',
  'w:eastAsianLayout',
  'w:specVanish',
];

/** Paragraph property elements in the order the schema requires (CT_PPr). */
export const PPR_ORDER = [
  'w:pStyle',
  'w:keepNext',
  'w:keepLines',
  'w:pageBreakBefore',
  'w:framePr',
  'w:widowControl',
  'w:numPr',
  'w:suppressLineNumbers',
  'w:pBdr',
  'w:shd',
  'w:tabs',
  'w:suppressAutoHyphens',
  'w:kinsoku',
  'w:wordWrap',
  'w:overflowPunct',
  'w:topLinePunct',
  'w:autoSpaceDE',
  'w:autoSpaceDN',
  'w:bidi',
  'w:adjustRightInd',
  'w:snapToGrid',
  'w:spacing',
  'w:ind',
  'w:contextualSpacing',
  'w:mirrorIndents',
  'w:suppressOverlap',
  'w:jc',
  'w:textDirection',
  'w:textAlignment',
  'w:textboxTightWrap',
  'w:outlineLvl',
  'w:divId',
  'w:cnfStyle',
  'w:rPr',
  'w:sectPr',
  'w:pPrChange',
];

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

/** Section property elements in the order the schema requires (CT_SectPr). */
export const SECTPR_ORDER = [
  'w:headerReference',
  'w:footerReference',
  'w:footnotePr',
  'w:endnotePr',
  'w:type',
  'w:pgSz',
  'w:pgMar',
  'w:paperSrc',
  'w:pgBorders',
  'w:lnNumType',
  'w:pgNumType',
  'w:cols',
  'w:formProt',
  'w:vAlign',
  'w:noEndnote',
  'w:titlePg',
  'w:textDirection',
  'w:bidi',
  'w:rtlGutter',
  'w:docGrid',
  'w:printerSettings',
  'w:sectPrChange',
];

/** A numbering level's elements in schema order (CT_Lvl): LibreOffice 7.4 writes w:pStyle before w:numFmt. */
export const LVL_ORDER = [
  'w:start',
  'w:numFmt',
  'w:lvlRestart',
  'w:pStyle',
  'w:isLgl',
  'w:suff',
  'w:lvlText',
  'w:lvlPicBulletId',
  'w:legacy',
  'w:lvlJc',
  'w:pPr',
  'w:rPr',
];

const ORDERS: Record<string, readonly string[]> = { 'w:sectPr': SECTPR_ORDER, 'w:pPr': PPR_ORDER, 'w:rPr': RPR_ORDER, 'w:lvl': LVL_ORDER };

/**
 * Where a part breaks the schema's element order in section, paragraph or run properties (the
 * orders Word and strict readers enforce): one line per problem, empty when there is none.
 * Elements of other namespaces (extensions) are not judged.
 */
export function schemaOrderProblems(root: XmlElement, part: string): string[] {
  const problems: string[] = [];
  const stack: XmlElement[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const order = ORDERS[node.name];
    if (order) {
      let last = -1;
      let lastName = '';
      for (const child of node.children) {
        if (child.kind !== 'element' || !child.name.startsWith('w:')) continue;
        // Header and footer references form one group (EG_HdrFtrReferences): any order among them.
        const rank = order.indexOf(child.name === 'w:footerReference' ? 'w:headerReference' : child.name);
        if (rank < 0) continue;
        if (rank < last) problems.push(`${part}: <${node.name}> has <${child.name}> after <${lastName}>`);
        else {
          last = rank;
          lastName = child.name;
        }
      }
    }
    for (const child of node.children) if (child.kind === 'element') stack.push(child);
  }
  return problems;
}

/**
 * Puts the children of section, paragraph and run properties and numbering levels into schema order where they are
 * not (LibreOffice writes a paragraph's section properties first, which Word refuses). Elements
 * it does not rank keep their place after the element before them. True when anything moved.
 */
export function putInSchemaOrder(root: XmlElement): boolean {
  let moved = false;
  const stack: XmlElement[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const order = ORDERS[node.name];
    if (order) {
      let rank = -1;
      let misplaced = false;
      const ranked = node.children.map((child, index) => {
        if (child.kind === 'element' && child.name.startsWith('w:')) {
          // Header and footer references form one group (EG_HdrFtrReferences): any order among them.
          const at = order.indexOf(child.name === 'w:footerReference' ? 'w:headerReference' : child.name);
          if (at >= 0 && at < rank) misplaced = true;
          if (at >= 0) rank = at;
        }
        return { child, rank, index };
      });
      if (misplaced) {
        ranked.sort((a, b) => a.rank - b.rank || a.index - b.index);
        node.children = ranked.map((r) => r.child);
        moved = true;
      }
    }
    for (const child of node.children) if (child.kind === 'element') stack.push(child);
  }
  return moved;
}
