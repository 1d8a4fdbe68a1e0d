import { escapeText } from '../ooxml/xml.js';
import type { Segment } from './compile.js';
import { evaluateField, type FieldContext } from './fields.js';
import { Scope } from './scope.js';

export interface RenderOptions {
  removeEmptyFields: boolean;
  removeEmptyBlocks: boolean;
  removeEmptyLines: boolean;
}

interface State extends FieldContext {
  options: RenderOptions;
  /** Fields that produced visible output so far (for removeEmptyLines). */
  visible: number;
}

const EMPTY_SCOPE = Scope.of({});

/** A value as runs with the field's formatting: line breaks and tabs become real ones. */
export function valueRuns(text: string, runProps: string): string {
  if (text === '') return '';
  let body = '';
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  lines.forEach((line, i) => {
    if (i > 0) body += '<w:br/>';
    line.split('\t').forEach((piece, j) => {
      if (j > 0) body += '<w:tab/>';
      if (piece) body += `<w:t xml:space="preserve">${escapeText(piece)}</w:t>`;
    });
  });
  return `<w:r>${runProps}${body}</w:r>`;
}

function render(segments: Segment[], state: State, out: string[]): void {
  for (const segment of segments) {
    if (typeof segment === 'string') {
      out.push(segment);
      continue;
    }
    switch (segment.kind) {
      case 'field': {
        const result = evaluateField(segment.field, state);
        if (result.kind === 'text') {
          if (result.text !== '') state.visible++;
          out.push(valueRuns(result.text, segment.field.runProps));
        } else if (result.kind === 'keep' || !state.options.removeEmptyFields) {
          state.visible++;
          out.push(segment.field.original);
        }
        break;
      }
      case 'block': {
        const rows = state.scope.rows(segment.name);
        if (rows && rows.length > 0) {
          const outer = state.scope;
          for (const row of rows) {
            state.scope = outer.enter(row);
            render(segment.body, state, out);
          }
          state.scope = outer;
        } else if (!state.options.removeEmptyBlocks) {
          const outer = state.scope;
          state.scope = EMPTY_SCOPE;
          render(segment.body, state, out);
          state.scope = outer;
        }
        break;
      }
      case 'paragraph': {
        const before = state.visible;
        const inner: string[] = [];
        render(segment.body, state, inner);
        if (!(state.options.removeEmptyLines && segment.onlyFields && state.visible === before)) out.push(...inner);
        break;
      }
      case 'table':
      case 'cell': {
        const inner: string[] = [];
        render(segment.body, state, inner);
        const body = inner.join('');
        if (segment.kind === 'table') {
          if (/<w:tr[\s>]/.test(body)) out.push(segment.open, body, segment.close);
        } else {
          out.push(segment.open, body, /<w:p[\s>/]/.test(body) ? '' : '<w:p/>', segment.close);
        }
        break;
      }
    }
  }
}

export function renderSegments(segments: Segment[], context: FieldContext, options: RenderOptions): string {
  const out: string[] = [];
  render(segments, { ...context, options, visible: 0 }, out);
  return out.join('');
}
