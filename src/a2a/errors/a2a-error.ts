// The one error of the A2A 1.0 boundary's server side, whatever the binding: A2aError carries
// the kind of failure (errors/kinds.ts), a message and the ErrorInfo metadata. The request
// handler and the shared conversions throw it; each binding maps the kind to its own shape
// (a JSON-RPC code, an HTTP status, a gRPC status) and carries the same google.rpc.ErrorInfo.
import { ERROR_REASONS, type A2aErrorKind } from './kinds.js';

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const A2A_DOMAIN = 'a2a-protocol.org';

/** google.rpc.ErrorInfo in its JSON form. */
export interface ErrorInfo {
  readonly '@type': typeof ERROR_INFO_TYPE;
  readonly reason: string;
  readonly domain: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** An error a binding answers with; thrown anywhere below the binding, caught once there. */
export class A2aError extends Error {
  constructor(
    readonly kind: A2aErrorKind,
    message: string,
    /** ErrorInfo metadata: string values only (the field is map<string, string>). */
    readonly metadata?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'A2aError';
  }

  /** The google.rpc.ErrorInfo every binding sends with this error. */
  errorInfo(): ErrorInfo {
    return this.metadata
      ? { '@type': ERROR_INFO_TYPE, reason: ERROR_REASONS[this.kind], domain: A2A_DOMAIN, metadata: this.metadata }
      : { '@type': ERROR_INFO_TYPE, reason: ERROR_REASONS[this.kind], domain: A2A_DOMAIN };
  }
}

/** Bad params: `pointer` is the JSON pointer of the offending field inside `params`. */
export function invalidParams(pointer: string, problem: string): A2aError {
  return new A2aError('invalidParams', `params${pointer || ''}: ${problem}`, { field: `/params${pointer}` });
}
