let lastMs = -1;
let lastIso = '';

/**
 * The current UTC time as an ISO 8601 string with `Z`. Formatting a date is not free and a
 * busy server asks many times a millisecond, so the string is reused within one.
 */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Seconds since the Unix epoch, with fractions. */
export function nowSeconds(): number {
  return Date.now() / 1000;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
