/**
 * Failures with a meaning for the caller. Modules below the API throw these; the API maps
 * each kind to its status. Anything else is our own fault and becomes a 500.
 */
export class DocsmithError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request cannot be served as sent (400). */
export class InputError extends DocsmithError {
  constructor(message: string) {
    super(400, message);
  }
}

/** The input is larger than a configured limit allows (413); the message names the limit and its setting. */
export class PayloadTooLargeError extends DocsmithError {
  constructor(message: string) {
    super(413, message);
  }
}

/** The documents a request produces have outgrown DOCSMITH_MAX_OUTPUT_MB: 413, whatever the step. */
export class OutputTooLargeError extends PayloadTooLargeError {
  constructor(maxBytes: number) {
    super(
      `The documents this request makes come to more than ${Math.round(maxBytes / 1024 / 1024)} MB, the server's limit (DOCSMITH_MAX_OUTPUT_MB); merge fewer records per request, or ask the operator to raise the limit.`,
    );
  }
}

/** Why a 403 was given, for /metrics. */
export type Refusal = 'documents' | 'templates' | 'proofing' | 'merge_slots' | 'expired' | 'licence' | 'other';

/** Not authorised, over a quota or over a limit (403). */
export class ForbiddenError extends DocsmithError {
  constructor(
    message: string,
    readonly refusal: Refusal = 'other',
  ) {
    super(403, message);
  }
}

/** Temporarily unable to take more work (503 with Retry-After). */
export class BusyError extends DocsmithError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, message, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** The client closed its connection before its answer was sent (nginx's 499): nothing to answer, nothing counted. */
export class ClientGoneError extends DocsmithError {
  constructor(message: string) {
    super(499, message);
  }
}

/** Processing went over its time limit and was cancelled (504). */
export class ProcessingTimeoutError extends DocsmithError {
  constructor(message: string) {
    super(504, message);
  }
}

/**
 * The database cannot serve now (down, unreachable, or without its schema): 503, try again.
 * Callers (anonymous ones too) see only `publicReason`; `detail` (names, driver errors) is for the log.
 */
export class StorageUnavailableError extends BusyError {
  constructor(
    readonly detail: string,
    publicReason = 'the database is not reachable',
  ) {
    super(`The storage is not available right now (${publicReason}); retry shortly.`, 5);
  }
}
