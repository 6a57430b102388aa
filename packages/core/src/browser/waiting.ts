/** Resolves with `work`, or rejects with the signal's reason as soon as it aborts (the work goes on, unobserved). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  work.catch(() => {}); // a rejection after the abort has no one to report to
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimeoutError";
  }
}

/** Resolves with `work`, or rejects with a TimeoutError carrying `message` after `ms`. */
export function withinTime<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return untilAborted(new Promise((resolve) => setTimeout(resolve, ms)), signal);
}
