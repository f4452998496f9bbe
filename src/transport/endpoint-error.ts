// The error a server sends: one shape on every wire (schemas/native/error-body.schema.json).
// HTTP sends it as the body with `status` as the HTTP status; envelopes carry the inner object
// in `error`; gRPC maps `status` to a gRPC code and carries the object in the envelope. A
// parley code's status comes from ERROR_STATUS (generated from error-code.schema.json), so a
// code and a status that disagree cannot be written.
import { ERROR_STATUS } from '../../generated/errors/error-status.js';
import type { ErrorCode, WireError } from '../../generated/types/index.js';
import type { ValidationIssue } from '../../generated/validators/index.js';
import { InvalidArgumentError } from '../core/errors.js';
import { StoreUnavailableError } from '../core/store-unavailable-error.js';
import { TransportLimitError } from './errors.js';

/** The wire error object (schemas/native/wire-error.schema.json). */
export type ErrorObject = WireError;

/** For an application's own code, which ERROR_STATUS does not list. */
export interface ApplicationErrorOptions {
  /** The HTTP-like status the code is sent with (400-599; 429 and 5xx make clients retry). */
  readonly status: number;
}

/** Whether `code` is one of parley's codes (a key of ERROR_STATUS). */
function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

export class EndpointError extends Error {
  readonly status: number;

  /** A parley code; the status is the code's (ERROR_STATUS). */
  constructor(code: ErrorCode, message: string, details?: unknown);
  /** An application code with its own status; a parley code must not be given another status. */
  constructor(code: string, message: string, details: unknown, options: ApplicationErrorOptions);
  constructor(
    readonly code: ErrorCode | string,
    message: string,
    readonly details?: unknown,
    options?: ApplicationErrorOptions,
  ) {
    super(message);
    this.name = 'EndpointError';
    this.status = statusFor(code, options?.status);
  }

  static invalidRequest(what: string, issues: readonly ValidationIssue[]): EndpointError {
    const first = issues[0];
    const where = first ? ` at ${first.pointer || '(root)'}: ${first.message}` : '';
    return new EndpointError('invalid_request', `${what} does not match its schema${where}`, { issues });
  }

  /** JSON nested past the depth every wire carries (see core/json/depth.ts). */
  static tooDeep(what: string, limit: number): EndpointError {
    return new EndpointError('invalid_request', `${what} nests arrays and objects more than ${limit} levels deep`, { limit });
  }

  toObject(requestId: string | null): ErrorObject {
    const object: ErrorObject = { code: this.code, message: this.message, status: this.status, request_id: requestId };
    if (this.details !== undefined) object.details = this.details;
    return object;
  }
}

function statusFor(code: string, status: number | undefined): number {
  if (isErrorCode(code)) {
    const known = ERROR_STATUS[code];
    if (status !== undefined && status !== known) {
      throw new InvalidArgumentError(`error code ${code} is sent with status ${known}, not ${status}`, 'invalid_error_status');
    }
    return known;
  }
  if (status === undefined || !Number.isInteger(status) || status < 400 || status > 599) {
    throw new InvalidArgumentError(
      `application error code ${JSON.stringify(code)} needs a status from 400 to 599 (got ${status})`,
      'invalid_error_status',
    );
  }
  return status;
}

/** Any failure thrown while serving becomes an EndpointError the wire can carry. */
export function toEndpointError(error: unknown): EndpointError {
  if (error instanceof EndpointError) return error;
  if (error instanceof TransportLimitError) {
    const details = { limit: error.limit, size: error.size };
    switch (error.kind) {
      case 'request':
        return new EndpointError('payload_too_large', error.message, details);
      case 'response':
      case 'event':
        return new EndpointError('response_too_large', error.message, details);
    }
  }
  // A store that may come back (a shared store out of reach): a 503 the client retries; nothing ran.
  // Its own message names the store (a Redis URL): the client gets a fixed text and the code.
  if (error instanceof StoreUnavailableError && error.retryable)
    return new EndpointError('unavailable', 'the shared store is unavailable; nothing ran, try again', { reason: error.code });
  const message = error instanceof Error ? error.message : String(error);
  return new EndpointError('internal', message || 'internal error');
}
