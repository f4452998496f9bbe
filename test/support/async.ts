// Promise and iteration helpers every test folder uses: hand control between a test and a
// handler, wait for an abort, read a stream to its end.

/** A promise with its resolver outside. */
export interface Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves with the signal's reason once it aborts (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

/** Rejects with the signal's reason once it aborts: what a well-behaved handler awaits. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return aborted(signal).then((reason) => Promise.reject(reason));
}

/** Every item of an async iterable, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
