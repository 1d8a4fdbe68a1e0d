import type { MergeBlock, MergeField, TemplateInfo } from '@docsmith/client';

function Field({ field }: { field: MergeField }) {
  const format = field.numericFormat ? `number ${field.numericFormat}` : field.dateTimeFormat ? `date ${field.dateTimeFormat}` : '';
  return (
    <li class="field">
      <code>{field.name}</code>
      {format && <span class="badge">{format}</span>}
    </li>
  );
}

function Block({ block }: { block: MergeBlock }) {
  return (
    <li class="block">
      <details open>
        <summary>
          <span class="badge block-badge">block</span> <code>{block.name}</code>
        </summary>
        <Tree fields={block.mergeFields} blocks={block.mergeBlocks} />
      </details>
    </li>
  );
}

function Tree({ fields, blocks }: { fields: MergeField[]; blocks: MergeBlock[] }) {
  if (fields.length === 0 && blocks.length === 0) return <p class="muted">No fields.</p>;
  // A field in the header and the body (or twice in the text) is one key of the data: listed once.
  const once = fields.filter((field, i) => fields.findIndex((other) => other.name === field.name) === i);
  return (
    <ul class="tree">
      {once.map((field) => (
        <Field key={`f:${field.name}`} field={field} />
      ))}
      {blocks.map((block) => (
        <Block key={`b:${block.name}`} block={block} />
      ))}
    </ul>
  );
}

/** The merge fields and blocks of a template, blocks nested as in the document. */
export function FieldTree({ info }: { info: TemplateInfo }) {
  return (
    <div class="field-tree" aria-label="Fields and blocks">
      <Tree fields={info.mergeFields} blocks={info.mergeBlocks} />
    </div>
  );
}
