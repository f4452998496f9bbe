// The peer's own account of a failure, turned into the transport taxonomy: a wire error object
// (schemas/native/wire-error.schema.json) from any transport, or a non-2xx HTTP answer. Size
// errors stay limit errors; the retry rule is isRetryableHttpStatus, as everywhere.
import type { IncomingMessage } from 'node:http';
import type { OutboundCall } from './binding.js';
import { isRetryableHttpStatus, type TransportError, TransportLimitError, TransportRemoteError } from './errors.js';

/**
 * The transport error for a wire error object. `fallbackStatus` applies when the object has no
 * `status`; `retryable`, when given, overrides the status rule.
 */
export function remoteErrorFrom(
  error: unknown,
  url: string,
  requestId: string | null,
  fallbackStatus?: number,
  retryable?: boolean,
): TransportError {
  const object = (error && typeof error === 'object' ? error : {}) as Record<string, unknown>;
  const status = typeof object.status === 'number' ? object.status : (fallbackStatus ?? null);
  const code = typeof object.code === 'string' ? object.code : 'remote_error';
  const message = typeof object.message === 'string' ? object.message : `remote error${status ? ` (status ${status})` : ''}`;
  if (code === 'payload_too_large' || code === 'response_too_large') {
    const details = (object.details && typeof object.details === 'object' ? object.details : {}) as {
      limit?: unknown;
      size?: unknown;
    };
    return new TransportLimitError(message, {
      // The peer refused our request, or could not send its answer or an event within its limit.
      kind: code === 'payload_too_large' ? 'request' : 'response',
      url,
      requestId,
      statusCode: status,
      limit: typeof details.limit === 'number' ? details.limit : 0,
      size: typeof details.size === 'number' ? details.size : 0,
    });
  }
  return new TransportRemoteError(message, {
    url,
    requestId,
    statusCode: status,
    code,
    details: object.details,
    retryable: retryable ?? (status !== null && isRetryableHttpStatus(status)),
  });
}

/** A non-2xx answer: the error body when there is one, else the status alone. */
export function errorFromResponse(res: IncomingMessage, text: string, call: OutboundCall): TransportError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = {
      message: `${call.spec.method} ${call.spec.path} answered HTTP ${res.statusCode}${text ? `: ${text.slice(0, 200)}` : ''}`,
    };
  }
  const object = (body && typeof body === 'object' && 'error' in body ? (body as { error: unknown }).error : body) as Record<
    string,
    unknown
  >;
  return remoteErrorFrom({ ...object, status: res.statusCode }, call.url, call.requestId, res.statusCode);
}
