// Names the spec fixes on the wire, written once. HTTP header names are lowercase, as node
// hands them over and as gRPC metadata requires.

/** The correlation id of one logical request (http and sse headers, gRPC metadata). */
export const REQUEST_ID_HEADER = 'x-svc-request-id';

/** The idempotency key of an idempotent request (http and sse headers, gRPC metadata). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The schemes a 401 invites the caller to use (http, sse, and the WebSocket handshake). */
export const AUTH_CHALLENGE = 'Bearer, Basic, ApiKey';

/** W3C trace context (http and sse headers, gRPC metadata; the websocket frame's `trace`). */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';
