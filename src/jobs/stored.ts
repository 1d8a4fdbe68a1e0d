/** A background job's request as bytes while it waits in the store: its kind's row says how (operations/kinds/). */
import { KINDS, type JobRequest } from '../operations/kinds/index.js';
import type { JobHooks } from '../operations/work.js';

/** The job hooks of a request's kind. */
export function jobHooks(kind: JobRequest['kind']): JobHooks<JobRequest> {
  return KINDS[kind].job as JobHooks<JobRequest>;
}

/** A request as bytes, while its job waits (documents as Base64). */
export function serialiseRequest(request: JobRequest): Buffer {
  return Buffer.from(JSON.stringify(jobHooks(request.kind).store(request)));
}

export function deserialiseRequest(bytes: Buffer): JobRequest {
  const stored = JSON.parse(bytes.toString('utf8')) as Record<string, unknown> & { kind: JobRequest['kind'] };
  return jobHooks(stored.kind).restore(stored);
}
