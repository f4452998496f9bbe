// What parley's outbound A2A client raises: A2aClientError, matched with `instanceof` and `code`.
// An error the agent answers is the same object whatever the binding carried it: `kind` is the
// A2A error (read from the google.rpc.ErrorInfo every binding carries, else from the binding's
// own code or status), and `rpcCode` is that kind's JSON-RPC number, on REST and gRPC too.
import type { A2aErrorKind } from '../errors/kinds.js';

/** Codes parley's A2A client raises (A2aClientError.code). */
export type A2aClientErrorCode =
  /** The agent answered with an A2A error; `kind`, `rpcCode` and `data` say which. */
  | 'a2a_rpc_error'
  /** The card is not an A2A 1.0 card, or advertises no 1.0 interface of a binding the client speaks (or the forced one). */
  | 'a2a_incompatible_card'
  /** The card's only usable interfaces are on another origin than the card. */
  | 'a2a_cross_origin'
  /** Cancel by a local task id that has no remote mapping (never sent, or forgotten). */
  | 'a2a_unknown_task'
  /** subscribe to an agent whose card says `capabilities.streaming: false`. */
  | 'a2a_streaming_unsupported'
  /** The peer's answer is not a valid A2A 1.0 response. */
  | 'a2a_invalid_response';

export class A2aClientError extends Error {
  constructor(
    readonly code: A2aClientErrorCode,
    message: string,
    /** For a2a_rpc_error: the JSON-RPC code of the error (the kind's code on REST and gRPC). */
    readonly rpcCode: number | null = null,
    /** For a2a_rpc_error: what the agent sent with it (JSON-RPC `error.data`, REST `error.details`, gRPC status details as JSON). */
    readonly data: unknown = undefined,
    /** For a2a_rpc_error: the A2A error, when the agent's answer names one. */
    readonly kind: A2aErrorKind | null = null,
  ) {
    super(message);
    this.name = 'A2aClientError';
  }
}
