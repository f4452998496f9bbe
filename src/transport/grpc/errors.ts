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
//   | message over the receive limit (also decompressed)  | RESOURCE_EXHAUSTED (grpc-js) |
//   | compressed message that does not decompress        | INTERNAL (grpc-js)       |
//   | no request message (a body that ends inside one)    | UNIMPLEMENTED (grpc-js)  |
//   | unknown service or method                           | UNIMPLEMENTED (grpc-js)  |
//   | an error that escaped the service (a bug)           | INTERNAL                 |
//   | health Check of an unknown service                  | NOT_FOUND                |
//
// Client side, the spec's taxonomy: UNAVAILABLE -> connection error, DEADLINE_EXCEEDED ->
// timeout, RESOURCE_EXHAUSTED and INTERNAL -> retryable remote error, anything else -> a
// remote error whose statusCode is the status name (UNAUTHENTICATED included). The Node failure
// under a call (refused, TLS, dropped), which the client puts in the grpc-js error's cause
// (channel-credentials.ts), is sorted by classifyNodeFailure, as for the other wires.
import type { OutboundCall } from '../binding.js';
import {
  TransportConnectionError,
  TransportError,
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

/**
 * Turns whatever a grpc-js client call failed with into the transport taxonomy. A call aborted
 * by its own cancellation (deadline or caller) rejects with the reason, as the shared pipeline
 * expects.
 */
export function errorFromCall(error: unknown, call: OutboundCall): unknown {
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
    case GrpcStatus.RESOURCE_EXHAUSTED:
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
  return typeof details === 'string' ? details : messageOf(error);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
