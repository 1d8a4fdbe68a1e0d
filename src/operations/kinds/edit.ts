/** Edits of documents: find and replace, append, and tracked changes listed, accepted or rejected. */
import type { SignatureMode } from '../../documents/signing.js';
import { settingsFromJson, settingsToJson, type DocumentSettings } from '../../documents/settings.js';
import type { Divider } from '../../compose/builder.js';
import type { ReturnFormat } from '../../formats/returnFormat.js';
import type { TrackedChange } from '../../review/trackedChanges.js';
import type { Answer, Row, Source } from '../work.js';

export interface FindAndReplaceRequest {
  kind: 'findAndReplace';
  source: Source;
  format: ReturnFormat;
  test: boolean;
  pairs: [string, string][];
  document: DocumentSettings;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
}

export interface AppendRequest {
  kind: 'append';
  format: ReturnFormat;
  test: boolean;
  documents: { bytes: Buffer; divider: Divider }[];
  document: DocumentSettings;
  /** docsmith: sign the PDF (visible, invisible) or not; absent: the account's default. */
  signature?: SignatureMode;
}

export interface TrackedChangesRequest {
  kind: 'trackedChanges';
  document: Buffer;
}

export interface RemoveTrackedChangeRequest {
  kind: 'removeTrackedChange';
  document: Buffer;
  id: number;
  accept: boolean;
}

const hasPassword = (document: DocumentSettings) => document.password !== undefined && document.password !== '';

export const findAndReplace = {
  counted: true,
  slot: false,
  pdf: (request) => ({ format: request.format, signature: request.signature, password: hasPassword(request.document) }),
  async run(request, { operations, ctx, template }) {
    const source = await template(request.source);
    const document = await operations.findAndReplace({ ...request, template: source.bytes, what: source.what }, ctx);
    return { documents: [document], list: false, headers: {} };
  },
} satisfies Row<FindAndReplaceRequest, Answer>;

export const append = {
  counted: true,
  slot: false,
  pdf: (request) => ({ format: request.format, signature: request.signature, password: hasPassword(request.document) }),
  job: {
    store: (request) => ({
      ...request,
      document: settingsToJson(request.document),
      documents: request.documents.map((d) => ({ bytes: d.bytes.toString('base64'), divider: d.divider })),
    }),
    restore: (stored) => ({
      ...(stored as unknown as AppendRequest),
      document: settingsFromJson(stored.document),
      documents: (stored.documents as { bytes: string; divider: Divider }[]).map((d) => ({
        bytes: Buffer.from(d.bytes, 'base64'),
        divider: d.divider,
      })),
    }),
    summary: (request) => ({ format: request.format.toUpperCase(), documents: request.documents.length }),
  },
  async run(request, { operations, ctx }) {
    return { documents: [await operations.append(request, ctx)], list: false, headers: {} };
  },
} satisfies Row<AppendRequest, Answer>;

export const trackedChanges = {
  counted: false,
  slot: false,
  run: (request, { operations, ctx }) => operations.trackedChanges(request.document, ctx),
} satisfies Row<TrackedChangesRequest, TrackedChange[]>;

export const removeTrackedChange = {
  counted: false,
  slot: false,
  run: (request, { operations, ctx }) => operations.removeTrackedChange(request.document, request.id, request.accept, ctx),
} satisfies Row<RemoveTrackedChangeRequest, Buffer>;
