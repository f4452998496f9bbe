// An A2A error from any binding as one A2aClientError: the kind comes from the ErrorInfo's
// `reason` when the agent sent one (all three bindings carry it), else from the binding's own
// number (a JSON-RPC code; an HTTP status or gRPC code says too little to name a kind, so they
// only count when the reason is missing and the number is unambiguous).
import { A2A_ERROR_KINDS, ERROR_REASONS, type A2aErrorKind } from '../errors/kinds.js';
import { RPC_CODES } from '../jsonrpc/errors.js';
import { A2aClientError } from './errors.js';

const KIND_OF_REASON = new Map<string, A2aErrorKind>(A2A_ERROR_KINDS.map((kind) => [ERROR_REASONS[kind], kind]));
const KIND_OF_RPC_CODE = new Map<number, A2aErrorKind>(A2A_ERROR_KINDS.map((kind) => [RPC_CODES[kind], kind]));

/** What a binding read from the agent's error answer. */
export interface RemoteFailure {
  readonly method: string;
  readonly message: string;
  /** The ErrorInfo `reason`, when the agent sent an ErrorInfo. */
  readonly reason?: string;
  /** A JSON-RPC error code (JSON-RPC binding only). */
  readonly rpcCode?: number;
  /** How the binding says it, for the message: `JSON-RPC -32001`, `HTTP 404`, `gRPC NOT_FOUND`. */
  readonly wire: string;
  readonly data?: unknown;
}

export function remoteError(failure: RemoteFailure): A2aClientError {
  const kind =
    (failure.reason ? KIND_OF_REASON.get(failure.reason) : undefined) ??
    (failure.rpcCode !== undefined ? KIND_OF_RPC_CODE.get(failure.rpcCode) : undefined) ??
    null;
  const rpcCode = kind ? RPC_CODES[kind] : (failure.rpcCode ?? null);
  return new A2aClientError(
    'a2a_rpc_error',
    `${failure.method} failed: ${failure.message || 'no message'} (${failure.wire})`,
    rpcCode,
    failure.data,
    kind,
  );
}

/** The `reason` of the first A2A ErrorInfo in a list of details (JSON form), if any. */
export function reasonIn(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (detail && typeof detail === 'object' && typeof (detail as { reason?: unknown }).reason === 'string') {
      return (detail as { reason: string }).reason;
    }
  }
  return undefined;
}

/** A peer answer that is not what the method promises. */
export function invalidResponse(method: string, problem: string): A2aClientError {
  return new A2aClientError('a2a_invalid_response', `${method} answered ${problem}`);
}
