// The transport error taxonomy. Every failure a transport client raises is one of these five
// kinds; `retryable` says whether the failure's category may succeed on another attempt.
import { ERROR_STATUS } from '../../generated/errors/error-status.js';

/** What a byte limit was checked on. */
export type PayloadKind = 'request' | 'response' | 'event';

export interface TransportErrorOptions {
  readonly url?: string | null;
  readonly requestId?: string | null;
  readonly retryable?: boolean;
  /** HTTP status (number), gRPC status name (string), or null. */
  readonly statusCode?: number | string | null;
  /** Stable machine-readable code from the remote error body, when there is one. */
  readonly code?: string;
  /** The remote error body's details, when there are some. */
  readonly details?: unknown;
  readonly cause?: unknown;
}

export class TransportError extends Error {
  readonly url: string | null;
  readonly requestId: string | null;
  readonly retryable: boolean;
  readonly statusCode: number | string | null;
  readonly code: string;
  readonly details: unknown;

  constructor(message: string, options: TransportErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.url = options.url ?? null;
    this.requestId = options.requestId ?? null;
    this.retryable = options.retryable ?? false;
    this.statusCode = options.statusCode ?? null;
    this.code = options.code ?? 'transport_error';
    this.details = options.details;
  }

  /** The spec's snake_case wire view of this error. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      code: this.code,
      url: this.url,
      request_id: this.requestId,
      retryable: this.retryable,
      status_code: this.statusCode,
    };
  }
}

/** Connection could not be made or kept (spec: ConnectionError). Retryable. */
export class TransportConnectionError extends TransportError {
  constructor(message: string, options: TransportErrorOptions = {}) {
    super(message, { code: 'connection_failed', ...options, retryable: options.retryable ?? true });
  }
}

/** The deadline passed (spec: TimeoutError). Retryable. */
export class TransportTimeoutError extends TransportError {
  constructor(message: string, options: TransportErrorOptions = {}) {
    super(message, { code: 'deadline_exceeded', ...options, retryable: options.retryable ?? true });
  }
}

/**
 * The peer's bytes made no sense: invalid JSON or envelope, wrong request id, incompatible
 * response; or the HTTP layer dropped mid-exchange (then retryable).
 */
export class TransportProtocolError extends TransportError {
  constructor(message: string, options: TransportErrorOptions = {}) {
    super(message, { code: 'protocol_error', ...options });
  }
}

/** The peer answered with an error (HTTP or gRPC status, or an `ok: false` envelope). */
export class TransportRemoteError extends TransportError {
  constructor(message: string, options: TransportErrorOptions = {}) {
    super(message, { code: 'remote_error', ...options });
  }
}

/**
 * A request, response or event is over its byte limit (spec: ValueError). Never retryable.
 * `kind` decides the code, whichever side noticed: `payload_too_large` for a request,
 * `response_too_large` for a response or an event. `statusCode` defaults to the code's status.
 */
export class TransportLimitError extends TransportError {
  readonly kind: PayloadKind;
  readonly limit: number;
  readonly size: number;
  constructor(
    message: string,
    options: Omit<TransportErrorOptions, 'code'> & { kind: PayloadKind; limit: number; size: number },
  ) {
    const code = options.kind === 'request' ? 'payload_too_large' : 'response_too_large';
    super(message, { ...options, code, statusCode: options.statusCode ?? ERROR_STATUS[code], retryable: false });
    this.kind = options.kind;
    this.limit = options.limit;
    this.size = options.size;
  }
}

/** Retry rule for HTTP answers: 429 and every 5xx may succeed later. */
export function isRetryableHttpStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
