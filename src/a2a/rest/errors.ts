// How the HTTP+JSON binding answers an error: the HTTP status of the kind (the specification's
// table, errors/kinds.ts) and a google.rpc.Status in its HTTP JSON form (AIP-193), the shape A2A
// names for this binding (section 11.6):
//   {"error": {"code": 404, "status": "NOT_FOUND", "message": "...", "details": [ErrorInfo]}}
// `status` is the canonical code's name (the gRPC binding's code for the same kind), `details`
// holds the ErrorInfo every binding carries. A refusal the transport makes before or around the
// binding (a body too large or too slow, missing credentials) keeps its HTTP status and comes in
// the same shape.
import { EndpointError } from '../../transport/endpoint-error.js';
import { A2aError, type ErrorInfo } from '../errors/a2a-error.js';
import { ERROR_REASONS, GRPC_CODE_OF_KIND, HTTP_STATUS_OF_KIND, type A2aErrorKind } from '../errors/kinds.js';

/** google.rpc.Code names by number (the ones an answer here can carry). */
const CODE_NAMES: Readonly<Record<number, string>> = {
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  12: 'UNIMPLEMENTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  16: 'UNAUTHENTICATED',
};

/** The `error` member of an answer. */
interface RestErrorStatus {
  readonly code: number;
  readonly status: string;
  readonly message: string;
  readonly details?: readonly ErrorInfo[];
}

/**
 * An A2aError on its way out of the binding: an EndpointError (so the transport sends it with its
 * HTTP status) that remembers the A2A error for the body.
 */
export class RestError extends EndpointError {
  constructor(readonly a2a: A2aError) {
    super(`a2a_${ERROR_REASONS[a2a.kind].toLowerCase()}`, a2a.message, undefined, { status: HTTP_STATUS_OF_KIND[a2a.kind] });
    this.name = 'RestError';
  }
}

/**
 * An A2aError as this binding sends it. Its ErrorInfo's `field` (a JSON pointer the shared
 * decoder writes from `/params`, JSON-RPC's member) points into the request message here: a body
 * field, or a query parameter by its name.
 */
export function restErrorBody(error: A2aError): { readonly error: RestErrorStatus } {
  const info = error.errorInfo();
  const field = info.metadata?.field;
  const fixed =
    field?.startsWith('/params') === true
      ? { ...info, metadata: { ...info.metadata, field: field.slice('/params'.length) || '/' } }
      : info;
  const message = error.message.startsWith('params') ? `request${error.message.slice('params'.length)}` : error.message;
  return {
    error: {
      code: HTTP_STATUS_OF_KIND[error.kind],
      status: CODE_NAMES[GRPC_CODE_OF_KIND[error.kind]]!,
      message,
      details: [fixed],
    },
  };
}

/** A transport's refusal (its status and message) in this binding's shape. */
export function refusalBody(error: { readonly status: number; readonly message: string }): unknown {
  if (error instanceof RestError) return restErrorBody(error.a2a);
  const kind: A2aErrorKind | null =
    error.status >= 500
      ? 'internalError'
      : error.status === 400 || error.status === 413 || error.status === 408
        ? 'invalidRequest'
        : null;
  // Not an A2A error (credentials, an unknown route's method): the status alone, no ErrorInfo.
  if (kind === null) return { error: { code: error.status, status: statusName(error.status), message: error.message } };
  const body = restErrorBody(new A2aError(kind, error.message));
  return { error: { ...body.error, code: error.status, status: statusName(error.status) } };
}

/** The canonical code's name for an HTTP status, as google.rpc maps them. */
function statusName(status: number): string {
  switch (status) {
    case 400:
    case 413:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 408:
      return 'DEADLINE_EXCEEDED';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 501:
      return 'UNIMPLEMENTED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}
