// What parley's outbound A2A client raises: A2aClientError, matched with `instanceof` and `code`.

/** Codes parley's A2A client raises (A2aClientError.code). */
export type A2aClientErrorCode =
  /** The peer answered with a JSON-RPC error; `rpcCode` holds its number. */
  | 'a2a_rpc_error'
  /** The card is not an A2A 1.0 card, or advertises no JSON-RPC 1.0 interface. */
  | 'a2a_incompatible_card'
  /** The card's JSON-RPC interface is on another origin than the card. */
  | 'a2a_cross_origin'
  /** Cancel by a local task id that has no remote mapping (never sent, or forgotten). */
  | 'a2a_unknown_task'
  /** The peer's answer is not a valid A2A 1.0 response. */
  | 'a2a_invalid_response';

export class A2aClientError extends Error {
  constructor(
    readonly code: A2aClientErrorCode,
    message: string,
    /** For a2a_rpc_error: the JSON-RPC error code and data the peer sent. */
    readonly rpcCode: number | null = null,
    readonly data: unknown = undefined,
  ) {
    super(message);
    this.name = 'A2aClientError';
  }
}
