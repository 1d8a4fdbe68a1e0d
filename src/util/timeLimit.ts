import { ProcessingTimeoutError } from '../errors.js';

/**
 * Runs the work with an abort signal and a deadline: asynchronous steps listen to the signal,
 * synchronous ones check the deadline. `null`: no limit (the CLI), only the outside signal stops it.
 */
export async function withTimeLimit<T>(
  limitMs: number | null,
  work: (signal: AbortSignal, deadline: number | undefined) => Promise<T>,
  outside?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onOutside: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    const stop = (error: Error) => {
      controller.abort(error);
      reject(error);
    };
    if (limitMs !== null) {
      timer = setTimeout(
        () =>
          stop(new ProcessingTimeoutError(`Processing took longer than the limit of ${Math.round(limitMs / 1000)} s and was cancelled.`)),
        limitMs,
      );
    }
    onOutside = () => stop(outside!.reason as Error);
    if (outside?.aborted) onOutside();
    else outside?.addEventListener('abort', onOutside, { once: true });
  });
  // Never left unhandled when the work wins the race.
  expired.catch(() => undefined);
  try {
    return await Promise.race([work(controller.signal, limitMs === null ? undefined : Date.now() + limitMs), expired]);
  } finally {
    clearTimeout(timer);
    if (onOutside) outside?.removeEventListener('abort', onOutside);
  }
}
