/**
 * Every kind of document work, the one list. A kind is a file of this folder (its request type, its
 * row and what it needs of the operations), one line here, a route and its parser; the door, the
 * jobs and the CLI read the row and name no kind.
 */
import type { Row } from '../work.js';
import { convert } from './convert.js';
import { append, findAndReplace, removeTrackedChange, trackedChanges } from './edit.js';
import { info, validateTemplate } from './info.js';
import { checkData, merge, preview } from './merge.js';
import { pageCount, pageImages, thumbnails } from './pages.js';
import { spellCheck, spellSuggest } from './proofing.js';

export type { ConvertRequest } from './convert.js';
export type { AppendRequest, FindAndReplaceRequest, RemoveTrackedChangeRequest, TrackedChangesRequest } from './edit.js';
export type { InfoRequest, ValidateTemplateRequest } from './info.js';
export type { CheckDataRequest, MergeRequest, PreviewRequest } from './merge.js';
export type { PageCountRequest, PageImagesRequest, ThumbnailsRequest } from './pages.js';
export type { SpellCheckRequest, SpellSuggestRequest } from './proofing.js';

export const KINDS = {
  merge,
  preview,
  checkData,
  findAndReplace,
  append,
  trackedChanges,
  removeTrackedChange,
  convert,
  thumbnails,
  pageImages,
  pageCount,
  info,
  validateTemplate,
  spellCheck,
  spellSuggest,
};

type Kinds = typeof KINDS;
export type Kind = keyof Kinds;
type RequestOfRow<R> = R extends { run(request: infer Q, work: never): unknown } ? Q : never;
type ResultOfRow<R> = R extends { run(request: never, work: never): Promise<infer T> } ? T : never;
export type DocumentRequest = { [K in Kind]: RequestOfRow<Kinds[K]> }[Kind];
export type RequestOf<K extends Kind> = Extract<DocumentRequest, { kind: K }>;
/** What each kind answers. */
export type Results = { [K in Kind]: ResultOfRow<Kinds[K]> };
/** The requests a background job may hold (async=true): those of the kinds whose row has `job`. */
export type JobRequest = { [K in Kind]: Kinds[K] extends { job: object } ? RequestOf<K> : never }[Kind];

/** The kinds that may run as background jobs, in the list's order. */
export const JOB_KINDS = (Object.keys(KINDS) as Kind[]).filter((kind) => 'job' in KINDS[kind]) as JobRequest['kind'][];

/** A request's row, typed by its kind. */
export function rowOf<K extends Kind>(request: RequestOf<K>): Row<RequestOf<K>, Results[K]> {
  return KINDS[request.kind as K] as unknown as Row<RequestOf<K>, Results[K]>;
}
