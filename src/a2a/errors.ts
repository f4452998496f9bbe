// The errors of the A2A 1.0 boundary. Server side: A2aRpcError carries a JSON-RPC error code
// (the JSON-RPC standard ones and the A2A ones, -32001 to -32009) and becomes the `error`
// member of a JSON-RPC response, with a google.rpc.ErrorInfo in `data`. Client side:
// A2aClientError is what parley's outbound A2A client raises; match both with `instanceof`
// and `code`.

/** JSON-RPC 2.0 and A2A 1.0 error codes, by the names the specifications give them. */
const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  invalidAgentResponse: -32006,
  extendedAgentCardNotConfigured: -32007,
  extensionSupportRequired: -32008,
  versionNotSupported: -32009,
} as const;

export type RpcErrorName = keyof typeof RPC_CODES;

/** The ErrorInfo `reason` of each code (UPPER_SNAKE_CASE, as A2A writes them). */
const REASONS: Readonly<Record<RpcErrorName, string>> = {
  parseError: 'PARSE_ERROR',
  invalidRequest: 'INVALID_REQUEST',
  methodNotFound: 'METHOD_NOT_FOUND',
  invalidParams: 'INVALID_PARAMS',
  internalError: 'INTERNAL_ERROR',
  taskNotFound: 'TASK_NOT_FOUND',
  taskNotCancelable: 'TASK_NOT_CANCELABLE',
  pushNotificationNotSupported: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  unsupportedOperation: 'UNSUPPORTED_OPERATION',
  contentTypeNotSupported: 'CONTENT_TYPE_NOT_SUPPORTED',
  invalidAgentResponse: 'INVALID_AGENT_RESPONSE',
  extendedAgentCardNotConfigured: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  extensionSupportRequired: 'EXTENSION_SUPPORT_REQUIRED',
  versionNotSupported: 'VERSION_NOT_SUPPORTED',
};

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const A2A_DOMAIN = 'a2a-protocol.org';

/** google.rpc.ErrorInfo in its JSON form. */
interface ErrorInfo {
  readonly '@type': typeof ERROR_INFO_TYPE;
  readonly reason: string;
  readonly domain: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The `error` member of a JSON-RPC response. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: readonly ErrorInfo[];
}

/** An error the adapter answers with; thrown anywhere below the adapter, caught once. */
export class A2aRpcError extends Error {
  readonly code: number;

  constructor(
    readonly kind: RpcErrorName,
    message: string,
    /** ErrorInfo metadata: string values only (the field is map<string, string>). */
    readonly metadata?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'A2aRpcError';
    this.code = RPC_CODES[kind];
  }

  toObject(): RpcErrorObject {
    const info: ErrorInfo = this.metadata
      ? { '@type': ERROR_INFO_TYPE, reason: REASONS[this.kind], domain: A2A_DOMAIN, metadata: this.metadata }
      : { '@type': ERROR_INFO_TYPE, reason: REASONS[this.kind], domain: A2A_DOMAIN };
    return { code: this.code, message: this.message, data: [info] };
  }
}

/** Bad params: `pointer` is the JSON pointer of the offending field inside `params`. */
export function invalidParams(pointer: string, problem: string): A2aRpcError {
  return new A2aRpcError('invalidParams', `params${pointer || ''}: ${problem}`, { field: `/params${pointer}` });
}

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
