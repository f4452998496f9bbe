// The kinds of error the A2A 1.0 boundary answers with, binding-neutral, and what each binding
// makes of a kind: the ErrorInfo `reason` every binding carries, the HTTP status of the
// HTTP+JSON binding and the gRPC status code of the gRPC binding (the A2A specification's error
// mapping table, section 5.4). The JSON-RPC codes stay with that binding (jsonrpc/errors.ts).
// The first five kinds are JSON-RPC's own, outside that table; the other bindings meet them as a
// malformed request (400, INVALID_ARGUMENT), an unknown method (404, UNIMPLEMENTED) or a failure
// on our side (500, INTERNAL).

export const A2A_ERROR_KINDS = [
  'parseError',
  'invalidRequest',
  'methodNotFound',
  'invalidParams',
  'internalError',
  'taskNotFound',
  'taskNotCancelable',
  'pushNotificationNotSupported',
  'unsupportedOperation',
  'contentTypeNotSupported',
  'invalidAgentResponse',
  'extendedAgentCardNotConfigured',
  'extensionSupportRequired',
  'versionNotSupported',
] as const;

export type A2aErrorKind = (typeof A2A_ERROR_KINDS)[number];

/** The ErrorInfo `reason` of each kind (UPPER_SNAKE_CASE, as A2A writes them). */
export const ERROR_REASONS: Readonly<Record<A2aErrorKind, string>> = {
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

/** The HTTP status of each kind on the HTTP+JSON binding. */
export const HTTP_STATUS_OF_KIND: Readonly<Record<A2aErrorKind, number>> = {
  parseError: 400,
  invalidRequest: 400,
  methodNotFound: 404,
  invalidParams: 400,
  internalError: 500,
  taskNotFound: 404,
  taskNotCancelable: 400,
  pushNotificationNotSupported: 400,
  unsupportedOperation: 400,
  contentTypeNotSupported: 400,
  invalidAgentResponse: 500,
  extendedAgentCardNotConfigured: 400,
  extensionSupportRequired: 400,
  versionNotSupported: 400,
};

/** gRPC status codes by name (the numbers grpc-js's `status` enum holds). */
const GRPC = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;

/** The gRPC status code of each kind on the gRPC binding. */
export const GRPC_CODE_OF_KIND: Readonly<Record<A2aErrorKind, number>> = {
  parseError: GRPC.INVALID_ARGUMENT,
  invalidRequest: GRPC.INVALID_ARGUMENT,
  methodNotFound: GRPC.UNIMPLEMENTED,
  invalidParams: GRPC.INVALID_ARGUMENT,
  internalError: GRPC.INTERNAL,
  taskNotFound: GRPC.NOT_FOUND,
  taskNotCancelable: GRPC.FAILED_PRECONDITION,
  pushNotificationNotSupported: GRPC.FAILED_PRECONDITION,
  unsupportedOperation: GRPC.FAILED_PRECONDITION,
  contentTypeNotSupported: GRPC.INVALID_ARGUMENT,
  invalidAgentResponse: GRPC.INTERNAL,
  extendedAgentCardNotConfigured: GRPC.FAILED_PRECONDITION,
  extensionSupportRequired: GRPC.FAILED_PRECONDITION,
  versionNotSupported: GRPC.FAILED_PRECONDITION,
};
