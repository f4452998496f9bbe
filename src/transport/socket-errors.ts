// Failures of node:http-family sockets and answers, mapped onto the error taxonomy. Shared by
// the transports that speak HTTP or start with an HTTP handshake (http, sse, websocket).
import type { IncomingMessage } from 'node:http';
import type { OutboundCall } from './binding.js';
import { TransportConnectionError, TransportError, TransportProtocolError } from './errors.js';
import { remoteErrorFrom } from './outbound.js';

/** A non-2xx answer: the error body when there is one, else the status alone. */
export function errorFromResponse(res: IncomingMessage, text: string, call: OutboundCall): TransportError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { message: `${call.spec.method} ${call.spec.path} answered HTTP ${res.statusCode}${text ? `: ${text.slice(0, 200)}` : ''}` };
  }
  const object = (body && typeof body === 'object' && 'error' in body ? (body as { error: unknown }).error : body) as Record<string, unknown>;
  return remoteErrorFrom({ ...object, status: res.statusCode }, call.url, call.requestId, res.statusCode);
}

/**
 * Socket failures: no connection at all is a connection error; a connection that dropped
 * mid-exchange is a retryable protocol error; an abort passes through for the deadline logic.
 */
export function mapSocketError(error: NodeJS.ErrnoException, call: OutboundCall): unknown {
  if (call.cancellation.aborted) return call.cancellation.reason ?? error;
  if (error.name === 'AbortError') return error;
  if (error instanceof TransportError) return error;
  const options = { url: call.url, requestId: call.requestId, cause: error };
  switch (error.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return new TransportConnectionError(`cannot connect to ${call.url}: ${error.message}`, options);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return new TransportProtocolError(`connection to ${call.url} dropped: ${error.message}`, { ...options, retryable: true });
    default:
      if (/socket hang up/i.test(error.message)) {
        return new TransportProtocolError(`connection to ${call.url} dropped: ${error.message}`, { ...options, retryable: true });
      }
      if (error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')) {
        return new TransportConnectionError(`TLS handshake with ${call.url} failed: ${error.message}`, { ...options, retryable: false });
      }
      return new TransportConnectionError(`request to ${call.url} failed: ${error.message}`, options);
  }
}
