// The first message of a SvcTransport request body, read whole before anything is decoded:
// Invoke and Stream take exactly one request message, so reading it here costs nothing that
// connect would not spend anyway, and it lets the size be checked where it is cheap.
//
// The bound is the server's receive limit (options.ts), applied twice: to the length in the
// frame prefix, before a byte of the message is buffered, and to the output of decompression,
// which stops as soon as it passes the bound. A small gzip message that inflates to gigabytes
// is refused after inflating just past the limit, never decoded. Refusals are ConnectErrors
// with RESOURCE_EXHAUSTED (over the limit) or INVALID_ARGUMENT (not gzip), which connect
// writes as the call's status, as for any other message it cannot read.
import { gunzip } from 'node:zlib';
import type { Code, ConnectError } from '@connectrpc/connect';
import type { ConnectModule } from './load.js';
import { GrpcStatus } from './errors.js';

const PREFIX_BYTES = 5;
const COMPRESSED_FLAG = 0b1;

export interface RequestMessage {
  /**
   * The message, decompressed. Null when there is nothing here to decode: the body ended
   * before a whole message, or the message is compressed with an encoding other than gzip.
   * Connect then gets `read` and reports the fault the usual way.
   */
  readonly message: Uint8Array | null;
  /** The bytes read, unchanged, up to the end of the first message. */
  readonly read: readonly Uint8Array[];
  /** The rest of the body after `read`. */
  readonly rest: AsyncIterator<Uint8Array>;
}

/**
 * Reads the first message of `body`, decompressing it when `encoding` (the grpc-encoding
 * header) is gzip. Throws a ConnectError when it is over `limit` bytes, before or after
 * decompression, or is not valid gzip.
 */
export async function readRequestMessage(
  connect: ConnectModule,
  body: AsyncIterable<Uint8Array>,
  encoding: string | null,
  limit: number,
): Promise<RequestMessage> {
  const rest = body[Symbol.asyncIterator]();
  const read: Uint8Array[] = [];
  let length = 0;
  const fill = async (want: number) => {
    while (length < want) {
      const next = await rest.next();
      if (next.done) return false;
      read.push(next.value);
      length += next.value.byteLength;
    }
    return true;
  };
  const partial = (): RequestMessage => ({ message: null, read, rest });
  if (!(await fill(PREFIX_BYTES))) return partial();
  const head = read.length === 1 ? read[0]! : Buffer.concat(read);
  const flags = head[0]!;
  const size = Buffer.from(head.buffer, head.byteOffset, head.byteLength).readUInt32BE(1);
  if (size > limit) {
    discard(rest);
    throw tooLarge(connect, `message of ${size} bytes is over the limit of ${limit} bytes`);
  }
  if (!(await fill(PREFIX_BYTES + size))) return partial();
  const joined = read.length === 1 ? read[0]! : Buffer.concat(read);
  const end = PREFIX_BYTES + size;
  const framed = joined.subarray(PREFIX_BYTES, end);
  // Bytes after the message (a second message, which connect refuses) are kept for it.
  const after = joined.byteLength > end ? joined.subarray(end) : null;
  const resumed = after ? prepend(after, rest) : rest;
  const whole = [joined.subarray(0, end)];
  if ((flags & COMPRESSED_FLAG) === 0) return { message: framed, read: whole, rest: resumed };
  if (encoding?.toLowerCase() !== 'gzip') return { message: null, read: whole, rest: resumed };
  let message: Uint8Array;
  try {
    message = await inflate(connect, framed, limit);
  } catch (error) {
    discard(resumed);
    throw error;
  }
  return { message, read: whole, rest: resumed };
}

/**
 * Reads the rest of a refused request and drops it, so the client can finish sending and the
 * stream can end; a body left unread would hold both sides on its flow-control window.
 */
function discard(rest: AsyncIterator<Uint8Array>): void {
  const next = (): void => {
    rest.next().then(
      (step) => (step.done ? undefined : next()),
      () => undefined,
    );
  };
  next();
}

/** gunzip that gives up once the output passes `limit` bytes. */
function inflate(connect: ConnectModule, compressed: Uint8Array, limit: number): Promise<Uint8Array> {
  // An empty compressed message is an empty message, as connect reads it.
  if (compressed.byteLength === 0) return Promise.resolve(compressed);
  return new Promise((resolve, reject) => {
    gunzip(compressed, { maxOutputLength: Math.max(1, limit) }, (error, output) => {
      if (!error) return resolve(output);
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        return reject(tooLarge(connect, `message is over the limit of ${limit} bytes once decompressed`));
      }
      reject(new connect.ConnectError('message is not valid gzip', GrpcStatus.INVALID_ARGUMENT as Code));
    });
  });
}

function tooLarge(connect: ConnectModule, message: string): ConnectError {
  return new connect.ConnectError(message, GrpcStatus.RESOURCE_EXHAUSTED as Code);
}

/** An iterator yielding `first`, then the rest of `iterator`. */
function prepend(first: Uint8Array, iterator: AsyncIterator<Uint8Array>): AsyncIterator<Uint8Array> {
  let pending: Uint8Array | null = first;
  return {
    next() {
      if (pending === null) return iterator.next();
      const value = pending;
      pending = null;
      return Promise.resolve({ done: false, value });
    },
    return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
  };
}
