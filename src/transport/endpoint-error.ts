// The error a server sends: one shape on every wire (schemas/native/error-body.schema.json).
// HTTP sends it as the body with `status` as the HTTP status; envelopes carry the inner object
// in `error`; gRPC maps `status` to a gRPC code and carries the object in the envelope.
import type { ErrorCode, WireError } from '../../generated/types/index.js';
import type { ValidationIssue } from '../../generated/validators/index.js';
import { TransportLimitError } from './errors.js';

/** The wire error object (schemas/native/wire-error.schema.json). */
export type ErrorObject = WireError;

export class EndpointError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'EndpointError';
  }

  static invalidRequest(what: string, issues: readonly ValidationIssue[]): EndpointError {
    const first = issues[0];
    const where = first ? ` at ${first.pointer || '(root)'}: ${first.message}` : '';
    return new EndpointError(400, 'invalid_request', `${what} does not match its schema${where}`, { issues });
  }

  /** JSON nested past the depth every wire carries (see core/json-depth.ts). */
  static tooDeep(what: string, limit: number): EndpointError {
    return new EndpointError(400, 'invalid_request', `${what} nests arrays and objects more than ${limit} levels deep`, { limit });
  }

  toObject(requestId: string | null): ErrorObject {
    const object: ErrorObject = { code: this.code, message: this.message, status: this.status, request_id: requestId };
    if (this.details !== undefined) object.details = this.details;
    return object;
  }
}

/** Any failure thrown while serving becomes an EndpointError the wire can carry. */
export function toEndpointError(error: unknown): EndpointError {
  if (error instanceof EndpointError) return error;
  if (error instanceof TransportLimitError) {
    const code = error.message.startsWith('response') || error.message.startsWith('event') ? 'response_too_large' : 'payload_too_large';
    return new EndpointError(code === 'payload_too_large' ? 413 : 500, code, error.message, {
      limit: error.limit,
      size: error.size,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new EndpointError(500, 'internal', message || 'internal error');
}
