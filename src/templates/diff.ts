/**
 * What changed in a template's merge fields and blocks between two of its versions: the names a
 * data producer has to send, as paths ("total", "items/price" for a field in block "items").
 */
import type { MergeBlockInfo, TemplateInfo } from '../merge/info.js';

export interface NamesDiff {
  added: string[];
  removed: string[];
}

export interface TemplateDiff {
  fields: NamesDiff;
  blocks: NamesDiff;
}

/** Field and block paths of a template's information. */
export function namesOf(info: Pick<TemplateInfo, 'mergeFields' | 'mergeBlocks'>): { fields: Set<string>; blocks: Set<string> } {
  const fields = new Set<string>();
  const blocks = new Set<string>();
  const walk = (block: MergeBlockInfo, prefix: string) => {
    const path = `${prefix}${block.name}`;
    blocks.add(path);
    for (const field of block.mergeFields) fields.add(`${path}/${field.name}`);
    for (const inner of block.mergeBlocks) walk(inner, `${path}/`);
  };
  for (const field of info.mergeFields) fields.add(field.name);
  for (const block of info.mergeBlocks) walk(block, '');
  return { fields, blocks };
}

const difference = (from: Set<string>, to: Set<string>): NamesDiff => ({
  added: [...to].filter((name) => !from.has(name)).sort(),
  removed: [...from].filter((name) => !to.has(name)).sort(),
});

export function diffTemplates(
  from: Pick<TemplateInfo, 'mergeFields' | 'mergeBlocks'>,
  to: Pick<TemplateInfo, 'mergeFields' | 'mergeBlocks'>,
): TemplateDiff {
  const a = namesOf(from);
  const b = namesOf(to);
  return { fields: difference(a.fields, b.fields), blocks: difference(a.blocks, b.blocks) };
}
