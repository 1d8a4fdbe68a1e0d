/**
 * The service's life after a stop signal: readiness turns 503 at once, requests already running
 * (and any that still arrive) are served until none is left or the grace period ends, and a
 * second signal ends the process at once.
 */
export class Lifecycle {
  private inFlight = 0;
  private idle: (() => void) | undefined;
  draining = false;

  started(): void {
    this.inFlight++;
  }

  finished(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight === 0) this.idle?.();
  }

  get running(): number {
    return this.inFlight;
  }

  /** Starts draining; resolves true when no request is left, false when `graceMs` ran out first. */
  drain(graceMs: number): Promise<boolean> {
    this.draining = true;
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs);
      this.idle = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}
