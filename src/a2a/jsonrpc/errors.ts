// How the JSON-RPC binding answers an A2aError: the kind's JSON-RPC code (the JSON-RPC standard
// ones and A2A's -32001 to -32009) in the `error` member of a response, the ErrorInfo in `data`.
import type { A2aError, ErrorInfo } from '../errors/a2a-error.js';
import type { A2aErrorKind } from '../errors/kinds.js';

/** JSON-RPC 2.0 and A2A 1.0 error codes, by kind. */
export const RPC_CODES: Readonly<Record<A2aErrorKind, number>> = {
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
};

/** The `error` member of a JSON-RPC response. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: readonly ErrorInfo[];
}

export function rpcErrorObject(error: A2aError): RpcErrorObject {
  return { code: RPC_CODES[error.kind], message: error.message, data: [error.errorInfo()] };
}
