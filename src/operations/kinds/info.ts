/** Templates read: their fields and blocks (template info), and a template checked before it is stored. */
import type { TemplateInfo } from '../../merge/info.js';
import type { Row, Source } from '../work.js';
import type { TemplateSyntax } from '../../merge/syntax/index.js';

export interface InfoRequest {
  kind: 'info';
  source: Source;
}

/** A template about to be stored, read once so that no operation meets it broken. */
export interface ValidateTemplateRequest {
  kind: 'validateTemplate';
  bytes: Buffer;
  name: string;
  /** The syntax its tags are typed in: they are checked too. */
  syntax?: TemplateSyntax;
}

export const info = {
  counted: false,
  slot: false,
  async run(request, { operations, ctx, source }) {
    const { bytes, name, syntax } = await source(request.source);
    return operations.info(bytes, name, ctx, syntax);
  },
} satisfies Row<InfoRequest, TemplateInfo>;

export const validateTemplate = {
  counted: false,
  slot: false,
  run: (request, { operations, ctx }) => operations.validateTemplate(request.bytes, request.name, ctx, request.syntax),
} satisfies Row<ValidateTemplateRequest, void>;
