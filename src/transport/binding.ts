// What one transport folder provides: its server (framing in, framing out) and its client
// (one attempt on the wire). Everything around them is shared: the Transport class runs the
// lifecycle, the Dispatcher the server pipeline, the outbound pipeline retries and limits.
import type { OperationSpec } from '../../generated/operations/spec.js';
import type { EncodedJson } from '../core/json/encoded.js';
import type { LazyAbort } from '../core/lazy-abort.js';
import type { ClientTlsOptions } from '../tls/node-tls-options.js';
import type { BindingCapabilities, TransportName } from './capabilities.js';
import type { ResolvedConfig } from './config.js';
import type { Dispatcher } from './dispatcher.js';
import type { QueryParams } from './endpoint.js';
import type { TransportMetrics } from './metrics.js';
import type { TraceHeaders } from './trace-headers.js';

/** One attempt of an outbound call, fully prepared by the shared pipeline. */
export interface OutboundCall {
  readonly spec: OperationSpec;
  /** The encoded JSON body, or null for operations without one. */
  readonly body: EncodedJson | null;
  /**
   * For an in-process binding, on a first attempt: the target's own copy of the body (plain
   * JSON, made when the call began, in the walk that measured it; core/json/measure.ts), handed
   * over instead of `body`'s text. Undefined otherwise: on retries, for network bindings, for
   * operations without a body, and for a body that is not plain JSON (its text is parsed).
   */
  readonly bodyValue?: unknown;
  readonly params: QueryParams;
  readonly requestId: string;
  readonly idempotencyKey: string | null;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Lowercase header names: authentication and anything the caller added. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * A unary attempt's deadline in milliseconds, counted from when the attempt began, for wires
   * that carry one to the server (grpc's `grpc-timeout`); null for streams, whose deadline
   * starts over at every event. Enforcing it is the pipeline's job, through `signal`.
   */
  readonly timeoutMs: number | null;
  /** Aborted at the deadline or by the caller; the binding must stop promptly. */
  readonly signal: AbortSignal;
  /**
   * The same cancellation without an AbortSignal: bindings of our own listen here (onAbort)
   * and leave `signal`, which is made on first use, to APIs that need one.
   */
  readonly cancellation: LazyAbort;
  /** The URL of the peer. */
  readonly url: string;
  /** True for control-plane calls, which some wires route on a separate connection. */
  readonly controlPlane: boolean;
  /** The W3C trace context of the call's span, sent the wire's way; null when tracing is off. */
  readonly trace: TraceHeaders | null;
}

/** A unary answer as it came off the wire. */
export interface InboundReply {
  /** Decoded JSON (or the HTML text for text/html operations). */
  readonly value: unknown;
  /** Wire size of the answer, for limits and metrics. */
  readonly bytes: number;
}

/** One stream envelope as it came off the wire. */
export interface InboundEvent {
  readonly id: string | null;
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: unknown;
  readonly final: boolean;
  /** Wire size of the frame. */
  readonly bytes: number;
}

export interface BindingContext {
  readonly name: TransportName;
  readonly config: ResolvedConfig;
  readonly metrics: TransportMetrics;
  /** A client's node:tls options (CA, certificate, key, server name), read afresh for each connection pool. */
  readonly clientTls: () => ClientTlsOptions;
}

export interface TransportServer {
  /** Starts serving and resolves with the URL actually bound (port 0 becomes a real port). */
  listen(url: string, dispatcher: Dispatcher): Promise<string>;
  /** Stops accepting, closes connections it owns, waiting at most `shutdownTimeout` each. */
  close(): Promise<void>;
}

export interface TransportClient {
  /**
   * The client hands a body's value over in-process (the target copies it) rather than send
   * its text: the body is measured for the limits, and written as text only if read. Read
   * in one place, transport/payload.ts.
   */
  readonly inProcess?: boolean;
  /** One attempt of a unary call. Throws the taxonomy's errors. */
  send(call: OutboundCall): Promise<InboundReply>;
  /** Opens a stream and yields its envelopes until the final one. */
  stream(call: OutboundCall): AsyncIterable<InboundEvent>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

export interface TransportBinding {
  readonly name: TransportName;
  /** URL schemes this transport accepts, plain first: `['http:', 'https:']`. */
  readonly schemes: readonly string[];
  /** What this transport can do; the health payload reports the spec's five flags of it. */
  readonly capabilities: BindingCapabilities;
  createServer(context: BindingContext): TransportServer;
  createClient(context: BindingContext): TransportClient;
}
