// The deadline of an A2A stream, as native streams have it: the time allowed between two events,
// starting over at each one (a stream may run as long as its task does, so long as it keeps
// talking). When it passes, the stream is stopped (its signal aborts, which closes the request
// or cancels the gRPC call) and the caller gets a TransportTimeoutError.
import type { CallOptions } from '../../../generated/operations/spec.js';
import { TransportTimeoutError } from '../../transport/errors.js';

export async function* withIdleDeadline<T>(
  open: (options: CallOptions) => AsyncIterable<T>,
  options: CallOptions | undefined,
  ms: number,
  what: string,
): AsyncGenerator<T, void, undefined> {
  const stop = new AbortController();
  const signal = options?.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const iterator = open({ ...options, signal })[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new TransportTimeoutError(`${what}: no event within ${ms} ms`, { retryable: false })),
          ms,
        );
      });
      const pending = iterator.next();
      let step: IteratorResult<T>;
      try {
        step = await Promise.race([pending, expired]);
      } catch (error) {
        if (error instanceof TransportTimeoutError) {
          pending.catch(() => undefined);
          stop.abort(error);
        }
        throw error;
      } finally {
        clearTimeout(timer);
      }
      if (step.done) {
        finished = true;
        return;
      }
      yield step.value;
    }
  } finally {
    // Left early (the caller stopped, or a failure): the request is closed, then the iterator let go.
    if (!finished) stop.abort();
    await iterator.return?.().catch(() => undefined);
  }
}
