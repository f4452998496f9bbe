// Writing one message of a server stream within grpc-js's buffer: a stream whose client reads
// slowly holds at most the call's high-water mark here, and the producer waits for the buffer to
// drain (or for the call to end) before it makes the next event. Shared by every service that
// streams (SvcTransport's Stream, the protobuf services of Endpoint.grpc).
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { CallContext } from './refused-calls.js';

/**
 * Writes `message`, waiting while the call's buffer is full. False once the call has ended (the
 * client left, its deadline passed): grpc-js drops what is written after that.
 */
export function writeInTurn<Request>(
  call: ServerWritableStream<Request, Buffer>,
  context: CallContext,
  message: Buffer,
): boolean | Promise<boolean> {
  if (context.abort.aborted) return false;
  if (call.write(message)) return true;
  return new Promise((resolve) => {
    let stopWaiting: (() => void) | null = null;
    const done = () => {
      call.off('drain', done);
      stopWaiting?.();
      resolve(!context.abort.aborted);
    };
    call.on('drain', done);
    stopWaiting = context.abort.onAbort(done);
  });
}
