/**
 * The serialized transport configuration: the one wire shape parley authors in
 * TypeScript. `npm run codegen` turns it into
 * `generated/schemas/native/transport-config.schema.json` (ts-json-schema-generator) and from
 * there into a type and a validator like every other schema. Nothing imports this file at
 * run time.
 *
 * Field names are the spec's snake_case names. Durations are seconds.
 */

/** Byte and concurrency limits shared by every transport. */
export interface TransportLimits {
  /**
   * Largest request, as UTF-8 bytes of its normalized JSON.
   * @asType integer
   * @minimum 1
   * @default 16777216
   */
  max_request_bytes?: number;
  /**
   * Largest response, as UTF-8 bytes of its normalized JSON.
   * @asType integer
   * @minimum 1
   * @default 16777216
   */
  max_response_bytes?: number;
  /**
   * Largest single stream event, as UTF-8 bytes of its normalized JSON.
   * @asType integer
   * @minimum 1
   * @default 4194304
   */
  max_event_bytes?: number;
  /**
   * Unary requests in flight at once; more wait for a slot.
   * @asType integer
   * @minimum 1
   * @default 100
   */
  max_concurrent_requests?: number;
  /**
   * Streams open at once; more wait for a slot.
   * @asType integer
   * @minimum 1
   * @default 100
   */
  max_concurrent_streams?: number;
  /**
   * Model-backed requests and streams (an agent's POST /chat, and its tasks when its model
   * answers them) served at once; more wait without holding a request or stream slot, so other
   * work always finds one. 0 (the default) means half of the smaller of
   * max_concurrent_requests and max_concurrent_streams, at least 1.
   * @asType integer
   * @minimum 0
   * @default 0
   */
  max_concurrent_model_requests?: number;
}

/** When and how often an idempotent request is tried again. */
export interface RetryPolicy {
  /**
   * Total attempts including the first; 1 turns retry off.
   * @asType integer
   * @minimum 1
   * @default 1
   */
  max_attempts?: number;
  /**
   * Delay before the first retry, in seconds; doubles on each further retry.
   * @minimum 0
   * @default 0.1
   */
  initial_backoff?: number;
  /**
   * Ceiling of the doubling delay, in seconds. Must not be below initial_backoff.
   * @minimum 0
   * @default 2
   */
  max_backoff?: number;
  /**
   * Largest random delay added to each backoff, in seconds.
   * @minimum 0
   * @default 0.1
   */
  jitter?: number;
  /**
   * HTTP methods that may be retried, matched after upper-casing.
   * @default ["DELETE", "GET", "POST", "PUT"]
   */
  retryable_methods?: string[];
}

/** Certificate files and checks. Only paths and flags are ever serialized, never key material. */
export interface TlsSettings {
  /**
   * PEM certificate chain of a secure server, or of a client doing mutual TLS.
   * @minLength 1
   * @default null
   */
  certfile?: string | null;
  /**
   * PEM private key matching certfile; give both or neither.
   * @minLength 1
   * @default null
   */
  keyfile?: string | null;
  /**
   * PEM CA bundle; clients fall back to the system roots when absent.
   * @minLength 1
   * @default null
   */
  cafile?: string | null;
  /**
   * Servers demand a client certificate signed by cafile.
   * @default false
   */
  require_client_cert?: boolean;
  /**
   * Clients verify the server's host name. The CA check stays on either way.
   * @default true
   */
  check_hostname?: boolean;
}

/** Options only the grpc transport reads. */
export interface GrpcSettings {
  /**
   * RPCs served at once; 0 means limits.max_concurrent_requests.
   * @asType integer
   * @minimum 0
   * @default 0
   */
  maximum_concurrent_rpcs?: number;
  /**
   * Seconds stop() waits for in-flight RPCs.
   * @exclusiveMinimum 0
   * @default 3
   */
  graceful_shutdown_timeout?: number;
  /**
   * Serve grpc.health.v1.Health.
   * @default true
   */
  enable_health?: boolean;
  /**
   * Serve gRPC server reflection (v1 and v1alpha).
   * @default true
   */
  enable_reflection?: boolean;
  /**
   * How a client encodes messages: `json` (the JSON envelope, `application/grpc+json`) or
   * `proto` (binary protobuf). Servers accept both, and JSON passed through as plain bytes.
   * @default "json"
   */
  codec?: 'json' | 'proto';
  /**
   * Raw gRPC channel and server options, by gRPC core's names (`grpc.max_receive_message_length`,
   * `grpc.keepalive_time_ms`, ...); the ones parley knows replace the settings it derives from
   * the limits and keepalive, the others are kept and ignored.
   * @default {}
   */
  channel_options?: Record<string, number | string>;
}

/** Everything a transport is configured with, in its serialized form. */
export interface TransportConfig {
  /** Byte and concurrency limits. */
  limits?: TransportLimits;
  /** Retry policy for idempotent requests. */
  retry?: RetryPolicy;
  /**
   * Seconds between keepalive probes (WebSocket ping, HTTP keep-alive expiry, gRPC keepalive);
   * null turns the HTTP and WebSocket keepalive off.
   * @exclusiveMinimum 0
   * @default 20
   */
  keepalive_interval?: number | null;
  /**
   * Seconds to wait for a keepalive answer, and the HTTP idle keep-alive.
   * @exclusiveMinimum 0
   * @default 20
   */
  keepalive_timeout?: number;
  /**
   * Seconds stop() waits for each connection it owns to close.
   * @exclusiveMinimum 0
   * @default 5
   */
  shutdown_timeout?: number;
  /**
   * Seconds a completed idempotent response can be replayed.
   * @exclusiveMinimum 0
   * @default 300
   */
  idempotency_ttl?: number;
  /**
   * Most completed idempotent responses kept; the oldest go first.
   * @asType integer
   * @minimum 1
   * @default 1024
   */
  idempotency_cache_size?: number;
  /**
   * Most bytes of completed idempotent responses kept, summed over the cache; the oldest go
   * first, and a response larger than this is never stored.
   * @asType integer
   * @minimum 1
   * @default 67108864
   */
  idempotency_cache_bytes?: number;
  /**
   * Seconds a server waits for a request's headers (http, sse, and the WebSocket handshake).
   * @exclusiveMinimum 0
   * @default 20
   */
  header_timeout?: number;
  /**
   * Seconds a server waits for a whole request body once its headers arrived (http, sse).
   * @exclusiveMinimum 0
   * @default 60
   */
  body_timeout?: number;
  /**
   * Client connections a server keeps open at once (http, sse). When a new one would pass this,
   * the idle or stalled connection that has waited longest is closed first; when every open
   * connection is busy with an answer, the new one gets 503 with Retry-After instead. 0 (the
   * default) means three quarters of the process's open-file limit.
   * @asType integer
   * @minimum 0
   * @default 0
   */
  max_connections?: number;
  /**
   * Seconds a server may hold a stream's events so that they leave in one write with the ones
   * that follow (sse and websocket). A stream's writes are at least this far apart: an event
   * that follows the previous write sooner waits, at most this long; the first event after a
   * quiet spell and a stream's last event leave at once. Events are written whole and in
   * order, never merged. 0 writes at the end of each turn of the event loop.
   * @minimum 0
   * @default 0.01
   */
  stream_flush_interval?: number;
  /**
   * Browser origins, besides the server's own, whose requests a server answers (http, sse and
   * the WebSocket handshake): each `scheme://host[:port]`, as a browser sends it in the `Origin`
   * header, or `"*"` for any origin. A request with an `Origin` header from another site is
   * refused with 403 (a WebSocket upgrade is never made); a request without one (curl, Node
   * and SDK clients, gRPC) is not concerned.
   * @default []
   */
  allowed_origins?: string[];
  /**
   * Count requests, streams, bytes and latency.
   * @default true
   */
  collect_metrics?: boolean;
  /**
   * Outbound request deadline in seconds (the receive deadline on WebSocket).
   * @exclusiveMinimum 0
   * @default 360
   */
  timeout?: number;
  /**
   * TLS files and checks; used when the URL scheme is a secure one.
   * @default null
   */
  tls?: TlsSettings | null;
  /** grpc-only options. */
  grpc?: GrpcSettings;
}
