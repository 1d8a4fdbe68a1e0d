import type { OoxmlPackage } from '../ooxml/package.js';
import { attr, childElements, parseXml } from '../ooxml/xml.js';
import { isBlockMarker, switchValue } from './instruction.js';
import type { BlockNode, FieldNode, TElement, TNode } from './template.js';
import type { ChartInfo } from './charts.js';
import { txBarcodeField } from './compile.js';

export interface MergeFieldInfo {
  name: string;
  text: string;
  textBefore: string;
  textAfter: string;
  numericFormat: string;
  dateTimeFormat: string;
  preserveFormatting: boolean;
}

export interface MergeBlockInfo {
  name: string;
  mergeFields: MergeFieldInfo[];
  mergeBlocks: MergeBlockInfo[];
}

export interface TemplateInfo {
  templateName: string;
  /** docsmith: the syntax the template's tags are typed in, when it is not Word's merge fields. */
  templateSyntax?: string;
  mergeBlocks: MergeBlockInfo[];
  mergeFields: MergeFieldInfo[];
  userDocumentProperties: Record<string, string>;
  /** Charts, and the block each one shows (present only when the template has charts). */
  charts?: ChartInfo[];
  /** What merges otherwise than its author likely meant (present only when there is something to say). */
  warnings?: string[];
}

const dataField = (name: string): MergeFieldInfo => ({
  name,
  text: '',
  textBefore: '',
  textAfter: '',
  numericFormat: '',
  dateTimeFormat: '',
  preserveFormatting: false,
});

function collect(nodes: TNode[], fields: MergeFieldInfo[], blocks: MergeBlockInfo[]): void {
  for (const node of nodes) {
    if (node.kind === 'field') {
      // Fields inside another's instruction (IF <MERGEFIELD total> > 1000 ...) are data the template needs too.
      collect(
        node.parts.filter((part): part is FieldNode => typeof part !== 'string'),
        fields,
        blocks,
      );
      const parsed = node.parsed;
      if (parsed?.type === 'MERGEFIELD' && parsed.args[0] && !isBlockMarker(parsed.args[0])) {
        fields.push({
          name: parsed.args[0],
          text: node.resultText,
          textBefore: switchValue(parsed, 'b') ?? '',
          textAfter: switchValue(parsed, 'f') ?? '',
          numericFormat: switchValue(parsed, '#') ?? '',
          dateTimeFormat: switchValue(parsed, '@') ?? '',
          preserveFormatting: parsed.switches.some((s) => s.name === '*' && /^MERGEFORMAT$/i.test(s.value ?? '')),
        });
      } else if (parsed?.type === 'MERGEBARCODE' && parsed.args[0]) {
        // A barcode's data is a merge field like any other for whoever builds the data.
        fields.push(dataField(parsed.args[0]));
      }
    } else if (node.kind === 'block') {
      const block: MergeBlockInfo = { name: node.name, mergeFields: [], mergeBlocks: [] };
      collect(node.children, block.mergeFields, block.mergeBlocks);
      blocks.push(block);
    } else if (node.kind === 'element') {
      const barcode = node.name === 'w:drawing' ? txBarcodeField(node) : undefined;
      if (barcode) fields.push(dataField(barcode));
      else collect(node.children, fields, blocks);
    }
  }
}

/**
 * Fields and blocks of the main document, in document order, then the fields of headers,
 * footers and notes (data built from the list must fill those too), and custom properties.
 */
export function templateInfo(main: TElement, pkg: OoxmlPackage, others: TElement[] = []): Omit<TemplateInfo, 'templateName'> {
  const mergeFields: MergeFieldInfo[] = [];
  const mergeBlocks: MergeBlockInfo[] = [];
  collect([main], mergeFields, mergeBlocks);
  for (const part of others) collect([part], mergeFields, mergeBlocks);
  const userDocumentProperties: Record<string, string> = {};
  const custom = pkg.text('docProps/custom.xml');
  if (custom) {
    for (const property of childElements(parseXml(custom, 'docProps/custom.xml').root, 'property')) {
      const name = attr(property, 'name');
      const value = property.children.find((c) => c.kind === 'element');
      if (name && value && value.kind === 'element') {
        userDocumentProperties[name] = value.children.map((c) => (c.kind === 'text' ? c.text : '')).join('');
      }
    }
  }
  const warnings = [main, ...others].flatMap(partialRowBlocks);
  return { mergeBlocks, mergeFields, userDocumentProperties, ...(warnings.length ? { warnings } : {}) };
}

/**
 * Blocks inside one table cell while other cells of the row hold merge fields: those fields are
 * outside the block and merge once, from the record (the row comes out half empty). A block
 * marked over the whole row repeats the row.
 */
function partialRowBlocks(root: TNode): string[] {
  const found: string[] = [];
  const visit = (node: TNode) => {
    if (node.kind === 'block') return node.children.forEach(visit);
    if (node.kind !== 'element') return;
    if (node.name === 'w:tr') {
      const cells = node.children.filter((c): c is TElement => c.kind === 'element' && c.name === 'w:tc');
      for (const cell of cells) {
        for (const block of cell.children.filter((c): c is BlockNode => c.kind === 'block')) {
          const outside = cells.filter((other) => other !== cell).flatMap((other) => mergeFieldNames(other));
          if (outside.length)
            found.push(
              `The merge block "${block.name}" covers text in one table cell; the fields ${[...new Set(outside)].join(', ')} in the same row ` +
                'are outside it and merge once, from the record. Mark the whole row as the block (select the row, then insert the bookmark).',
            );
        }
      }
    }
    node.children.forEach(visit);
  };
  visit(root);
  return found;
}

/** Merge fields in a subtree, outside any block in it. */
function mergeFieldNames(node: TNode): string[] {
  if (node.kind === 'field') return node.parsed?.type === 'MERGEFIELD' && node.parsed.args[0] ? [node.parsed.args[0]] : [];
  if (node.kind !== 'element') return [];
  return node.children.flatMap(mergeFieldNames);
}
