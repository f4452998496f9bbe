let lastMs = -1;
let lastIso = '';
/** The second `secondPrefix` is for (ms since the epoch, floored to a second). */
let lastSecond = Number.NaN;
/** `YYYY-MM-DDTHH:MM:SS.` of `lastSecond`. */
let secondPrefix = '';

/**
 * The current UTC time as an ISO 8601 string with `Z`. Formatting a date is not free and a
 * busy server asks many times a millisecond, so the string is reused within one; and a stream
 * of events a millisecond apart (a model's tokens) asks once a millisecond, so the part up to
 * the second is reused within a second and only the milliseconds are written.
 */
export function nowIso(): string {
  const ms = Date.now();
  if (ms === lastMs) return lastIso;
  lastMs = ms;
  const millis = ms % 1000;
  const second = ms - millis;
  if (second !== lastSecond) {
    lastSecond = second;
    const iso = new Date(ms).toISOString();
    secondPrefix = iso.slice(0, iso.length - 4);
    lastIso = iso;
    return iso;
  }
  lastIso = secondPrefix + (millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : `${millis}`) + 'Z';
  return lastIso;
}

/**
 * The string nowIso handed out last ('' before the first). A task carries the same timestamp in
 * every entry made within one millisecond, and it is plain ASCII by construction, so counting
 * a task's size checks for it before scanning a string (core/json/string-size.ts).
 */
export function lastIsoString(): string {
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
