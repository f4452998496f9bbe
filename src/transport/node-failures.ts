// Failures Node raises below the protocol (sockets, DNS, TLS, HTTP/2 sessions), classified once
// for every transport. classifyNodeFailure names the category by walking the `cause` chain;
// mapSocketError turns it into the taxonomy for the node:http-family transports (http, sse,
// websocket); grpc's errorFromCall (grpc/errors.ts) uses the same classification.
import type { OutboundCall } from './binding.js';
import { TransportConnectionError, TransportError, TransportProtocolError } from './errors.js';

/**
 * - `cannot_connect`: no connection was made (refused, no route, name not resolved, timed out).
 * - `tls`: the TLS handshake or the peer's certificate failed; another attempt will fail too.
 * - `dropped`: an established connection went away mid-exchange.
 * - `other`: none of these, or not a Node failure at all.
 */
export type NodeFailureKind = 'cannot_connect' | 'tls' | 'dropped' | 'other';

export interface NodeFailure {
  readonly kind: NodeFailureKind;
  /** The Node error code that decided the kind (or the first one seen, for `other`). */
  readonly code: string | undefined;
}

const CANNOT_CONNECT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
]);
const DROPPED = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_ERROR',
]);

function kindOf(code: string): NodeFailureKind {
  if (CANNOT_CONNECT.has(code)) return 'cannot_connect';
  if (DROPPED.has(code)) return 'dropped';
  // Node's own TLS codes, OpenSSL's (ERR_SSL_*; EPROTO when the peer does not speak TLS), and
  // OpenSSL's certificate verdicts (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ...).
  if (
    code === 'EPROTO' ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.includes('CERT') ||
    code.startsWith('UNABLE_TO_')
  )
    return 'tls';
  return 'other';
}

/**
 * Walks `error` and its causes once; the first Node error code with a known meaning decides.
 * Wrappers (a grpc-js ServiceError, given its connection's failure by the grpc client; a fetch
 * TypeError) put the Node error in `cause`.
 */
export function classifyNodeFailure(error: unknown): NodeFailure {
  const seen = new Set<unknown>();
  let first: string | undefined;
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') continue;
    first ??= code;
    const kind = kindOf(code);
    if (kind !== 'other') return { kind, code };
  }
  return { kind: 'other', code: first };
}

/**
 * Socket failures of the node:http-family transports: no connection at all is a connection
 * error; a connection that dropped mid-exchange is a retryable protocol error; a failed TLS
 * handshake is a connection error that is not retried; an abort passes through for the
 * deadline logic.
 */
export function mapSocketError(error: NodeJS.ErrnoException, call: OutboundCall): unknown {
  if (call.cancellation.aborted) return call.cancellation.reason ?? error;
  if (error.name === 'AbortError') return error;
  if (error instanceof TransportError) return error;
  const options = { url: call.url, requestId: call.requestId, cause: error };
  switch (classifyNodeFailure(error).kind) {
    case 'cannot_connect':
      return new TransportConnectionError(`cannot connect to ${call.url}: ${error.message}`, options);
    case 'dropped':
      return new TransportProtocolError(`connection to ${call.url} dropped: ${error.message}`, { ...options, retryable: true });
    case 'tls':
      return new TransportConnectionError(`TLS handshake with ${call.url} failed: ${error.message}`, {
        ...options,
        retryable: false,
      });
    case 'other':
      return new TransportConnectionError(`request to ${call.url} failed: ${error.message}`, options);
  }
}
