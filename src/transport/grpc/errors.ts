// gRPC status codes on both sides of the grpc transport.
//
// Server side. Application errors (a bad envelope, an unknown path, a failed validation, a
// payload over its limit, a handler failure) travel as an `ok: false` envelope carrying the
// wire error object ({code, message, status, request_id, details}): the client gets the exact
// code, HTTP-style status and details, and the shared retry rules (429 and 5xx retryable,
// size errors never) apply as on every other wire. A gRPC status code could not carry that:
// mapping 413 to RESOURCE_EXHAUSTED, for example, would make a payload that can never fit
// retryable. gRPC status codes are kept for what the spec names and for the transport layer:
//
//   | failure                                             | status                   |
//   |-----------------------------------------------------|--------------------------|
//   | missing or rejected credentials (EndpointError 401) | UNAUTHENTICATED          |
//   | binary message that is not an envelope              | INTERNAL                 |
//   | JSON message that is not an envelope                | INVALID_ARGUMENT         |
//   | request over the receive limit (also decompressed)  | RESOURCE_EXHAUSTED (grpc-js) |
//   | compressed message that does not decompress        | INTERNAL (grpc-js)       |
//   | no request message (a body that ends inside one)    | UNIMPLEMENTED (grpc-js)  |
//   | unknown service or method                           | UNIMPLEMENTED (grpc-js)  |
//   | an error that escaped the service (a bug)           | INTERNAL                 |
//   | health Check of an unknown service                  | NOT_FOUND                |
//
// Client side, the spec's taxonomy for the statuses a server sends, and the one status grpc-js
// makes itself that the client reports differently:
//
//   | status                                              | error                            |
//   |-----------------------------------------------------|----------------------------------|
//   | UNAVAILABLE                                         | connection error, retryable      |
//   | DEADLINE_EXCEEDED                                   | timeout, retryable               |
//   | RESOURCE_EXHAUSTED, INTERNAL (from the server)      | remote error, retryable          |
//   | anything else (UNAUTHENTICATED included)            | remote error, not retryable      |
//   | RESOURCE_EXHAUSTED from grpc-js: an answer or event | limit error (response_too_large, |
//   |   over this client's own receive limit              |   status 500), not retryable     |
//
// The statusCode of a remote error is the status name. grpc-js ends a call with a
// RESOURCE_EXHAUSTED of its own when an answer (or stream event) is over the channel's
// `grpc.max_receive_message_length`: the same answer would be refused on every attempt, so it is
// reported as the other wires report an answer over their limit (http's max_response_bytes,
// websocket's frame limit): a TransportLimitError naming the limit and the size, never retried.
// ownSizeRefusal below tells it from a RESOURCE_EXHAUSTED the server sent.
// The Node failure under a call (refused, TLS, dropped), which the client puts in the grpc-js
// error's cause (channel-credentials.ts), is sorted by classifyNodeFailure, as for the other wires.
import type { OutboundCall } from '../binding.js';
import {
  type PayloadKind,
  TransportConnectionError,
  TransportError,
  TransportLimitError,
  TransportProtocolError,
  TransportRemoteError,
  TransportTimeoutError,
} from '../errors.js';
import { classifyNodeFailure } from '../node-failures.js';

/** The canonical gRPC status names, indexed by code. */
const GRPC_STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

export type GrpcStatusName = (typeof GRPC_STATUS_NAMES)[number];

/** Code numbers by name (`GrpcStatus.UNAUTHENTICATED === 16`); equal to grpc-js's `status` values. */
export const GrpcStatus = Object.freeze(
  Object.fromEntries(GRPC_STATUS_NAMES.map((name, code) => [name, code])) as Record<GrpcStatusName, number>,
);

/** A status a server handler ends its call with (the message is sent as grpc-message). */
export class CallStatus extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'CallStatus';
  }
}

export function statusName(code: number): string {
  return GRPC_STATUS_NAMES[code] ?? `STATUS_${code}`;
}

/** The receive side of the channel a call went over, to tell grpc-js's own size refusal. */
export interface ReceiveLimit {
  /** The channel's `grpc.max_receive_message_length` as given to grpc-js (-1: no limit). */
  readonly bytes: number;
  /** What the refused message was: a unary answer or a stream event. */
  readonly kind: Exclude<PayloadKind, 'request'>;
}

/**
 * Turns whatever a grpc-js client call failed with into the transport taxonomy. A call aborted
 * by its own cancellation (deadline or caller) rejects with the reason, as the shared pipeline
 * expects. `receive`, when given, lets a RESOURCE_EXHAUSTED that grpc-js made itself for an
 * answer over the channel's receive limit become a limit error.
 */
export function errorFromCall(error: unknown, call: OutboundCall, receive?: ReceiveLimit): unknown {
  if (call.cancellation.aborted) return call.cancellation.reason ?? error;
  if (error instanceof TransportError) return error;
  const options = { url: call.url, requestId: call.requestId, cause: error };
  const failure = classifyNodeFailure(error).kind;
  if (failure === 'cannot_connect') {
    return new TransportConnectionError(`cannot connect to ${call.url}: ${messageOf(error)}`, {
      ...options,
      statusCode: 'UNAVAILABLE',
    });
  }
  if (failure === 'tls') {
    return new TransportConnectionError(`TLS handshake with ${call.url} failed: ${messageOf(error)}`, {
      ...options,
      statusCode: 'UNAVAILABLE',
      retryable: false,
    });
  }
  const code = statusCodeOf(error);
  if (code === undefined) {
    if (failure === 'dropped') {
      return new TransportProtocolError(`connection to ${call.url} dropped: ${messageOf(error)}`, {
        ...options,
        retryable: true,
      });
    }
    return new TransportConnectionError(`call to ${call.url} failed: ${messageOf(error)}`, options);
  }
  const name = statusName(code);
  const message = `${call.spec.method} ${call.spec.path} over gRPC failed with ${name}: ${rawMessage(error)}`;
  switch (code) {
    case GrpcStatus.UNAVAILABLE:
      return new TransportConnectionError(message, { ...options, statusCode: name });
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new TransportTimeoutError(message, { ...options, statusCode: name });
    case GrpcStatus.RESOURCE_EXHAUSTED: {
      const refused = receive ? ownSizeRefusal(error, receive.bytes) : null;
      if (refused && receive) {
        const what = receive.kind === 'event' ? 'a stream event' : 'the answer';
        const size = refused.size === null ? `more than ${refused.limit} bytes once decompressed` : `${refused.size} bytes`;
        return new TransportLimitError(
          `${call.spec.method} ${call.spec.path} over gRPC: ${what} from ${call.url} of ${size} exceeds this client's ` +
            `${refused.limit}-byte receive limit (grpc.max_receive_message_length)`,
          { ...options, kind: receive.kind, limit: refused.limit, size: refused.size ?? refused.limit + 1 },
        );
      }
      return new TransportRemoteError(message, { ...options, statusCode: name, code: name.toLowerCase(), retryable: true });
    }
    case GrpcStatus.INTERNAL:
      return new TransportRemoteError(message, { ...options, statusCode: name, code: name.toLowerCase(), retryable: true });
    case GrpcStatus.UNAUTHENTICATED:
      return new TransportRemoteError(message, { ...options, statusCode: name, code: 'unauthenticated' });
    default:
      // A stream the server reset, or a connection that dropped, is the HTTP layer failing.
      if (failure === 'dropped') {
        return new TransportProtocolError(`connection to ${call.url} dropped: ${rawMessage(error)}`, {
          ...options,
          statusCode: name,
          retryable: true,
        });
      }
      return new TransportRemoteError(message, { ...options, statusCode: name, code: name.toLowerCase() });
  }
}

/** grpc-js's wording when a message's length prefix is over the receive limit (stream-decoder.js). */
const RECEIVED_OVER_LIMIT = /^Received message larger than max \((\d+) vs (\d+)\)$/;
/** ... and when a compressed message inflates past it (compression-filter.js). */
const INFLATED_OVER_LIMIT = /^Received message that decompresses to a size larger than (\d+)$/;

/**
 * The size and limit of a RESOURCE_EXHAUSTED that grpc-js made itself because a message that
 * came in was over this channel's receive limit (`receiveLimit`, -1 for none), or null for a
 * status the server sent. Three signals, all required:
 * - the details are grpc-js's own wording for its receive check;
 * - the limit they name is this channel's own: grpc-js writes in the limit it checked, and a
 *   server refusing our request over its limit (grpc-js servers answer in the same words) names
 *   its limit, not ours;
 * - the status has no metadata: grpc-js gives a status it makes a new, empty Metadata, while a
 *   status the server sends comes with its trailers, and a trailers-only answer (how a server
 *   refuses a request before answering) always carries at least content-type.
 * The limit is the signal that carries the verdict; the metadata check keeps a server that
 * happens to use the same limit (both sides configured with one `grpc.max_receive_message_length`)
 * from reading as a local refusal when it refuses our request. What cannot be told apart is a
 * server that sends headers, then a status in grpc-js's words naming this client's exact limit;
 * that claims a message over our limit, which would not fit on a retry either.
 */
function ownSizeRefusal(error: unknown, receiveLimit: number): { size: number | null; limit: number } | null {
  if (receiveLimit < 0 || hasMetadata(error)) return null;
  const details = rawMessage(error);
  const received = RECEIVED_OVER_LIMIT.exec(details);
  if (received && Number(received[2]) === receiveLimit) return { size: Number(received[1]), limit: receiveLimit };
  const inflated = INFLATED_OVER_LIMIT.exec(details);
  if (inflated && Number(inflated[1]) === receiveLimit) return { size: null, limit: receiveLimit };
  return null;
}

/** Whether a grpc-js status carries any metadata (the trailers a server sent with it). */
function hasMetadata(error: unknown): boolean {
  const metadata = (error as { metadata?: { getMap?: () => Record<string, unknown> } }).metadata;
  return typeof metadata?.getMap === 'function' && Object.keys(metadata.getMap()).length > 0;
}

/** The status of a grpc-js ServiceError (or StatusObject): a numeric `code` and string `details`. */
function statusCodeOf(error: unknown): number | undefined {
  if (error && typeof error === 'object') {
    const { code, details } = error as { code?: unknown; details?: unknown };
    if (typeof code === 'number' && typeof details === 'string') return code;
  }
  return undefined;
}

/** The status message the peer (or grpc-js) gave, without grpc-js's `code name:` prefix. */
function rawMessage(error: unknown): string {
  const details = (error as { details?: unknown }).details;
  return typeof details === 'string' ? oneLine(details) : messageOf(error);
}

/**
 * A failure's text on one line. For a connection or TLS failure the Node error under grpc-js's
 * status (its cause, channel-credentials.ts) says it best; grpc-js's own text is tidied: an
 * empty trailing "Resolution note:" dropped, "Error: " inside it and line breaks folded away.
 */
function messageOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message) return oneLine(cause.message);
  return oneLine(error instanceof Error ? error.message : String(error));
}

function oneLine(text: string): string {
  return text
    .replace(/\s*Resolution note:\s*$/, '')
    .replace(/Last error: Error: /g, 'Last error: ')
    .replace(/\s+/g, ' ')
    .trim();
}
