// The server side's view of an operation: what a transport hands to the shared dispatcher,
// and what the dispatcher hands to a handler.
import type { DescMethod } from '@bufbuild/protobuf';
import type { OperationSpec } from '../../generated/operations/spec.js';
import type { SecurityContext, WireError } from '../../generated/types/index.js';
import type { EncodedJson } from '../core/json/encoded.js';
import type { TransportName } from './capabilities.js';
import type { TraceHeaders } from './trace-headers.js';

export type QueryParams = Readonly<Record<string, string | readonly string[]>>;

/** The parameters of a request that has none (shared: nobody may change them). */
export const NO_PARAMS: QueryParams = Object.freeze({});

/** One decoded inbound request, whatever the wire it came over. */
export interface InboundRequest {
  readonly method: string;
  readonly path: string;
  /** Decoded JSON body, or undefined when there was none. */
  readonly data: unknown;
  readonly params: QueryParams;
  readonly requestId: string;
  readonly idempotencyKey: string | null;
  /** Credentials the transport found (header, metadata, handshake), or null. */
  readonly credentials: string | null;
  /**
   * Set when the transport already authenticated these credentials for the whole connection
   * (a WebSocket handshake): the dispatcher uses it instead of asking the authenticator again.
   */
  readonly authenticated?: SecurityContext | null;
  /** Aborted when the caller goes away. */
  readonly signal: AbortSignal;
  /** Wire size of the body, for the metrics. */
  readonly receivedBytes: number;
  /** The caller's W3C trace context, as it came (unparsed); undefined when it sent none. */
  readonly trace?: TraceHeaders;
  /**
   * Set by the in-process transport, whose caller copies the answer's value rather than parse
   * its text: the answer is measured for the limits, and written as text only if read. Read
   * in one place, transport/payload.ts.
   */
  readonly inProcess?: boolean;
}

/** Whatever hands out a request's AbortSignal on demand (a LazyAbort, an outbound call). */
export interface SignalSource {
  readonly signal: AbortSignal;
}

/**
 * An InboundRequest as transports build them. A class, not an object literal: the signal is a
 * prototype getter that asks its source only when a handler reads it (an AbortSignal costs
 * microseconds to make on Node 20, and object literals with accessors are slow to create).
 */
export class Inbound implements InboundRequest {
  readonly method: string;
  readonly path: string;
  readonly data: unknown;
  readonly params: QueryParams;
  readonly requestId: string;
  readonly idempotencyKey: string | null;
  readonly credentials: string | null;
  readonly receivedBytes: number;
  readonly authenticated?: SecurityContext | null;
  readonly trace?: TraceHeaders;
  readonly inProcess?: boolean;

  /** `fields`: the request as decoded; `abort`: where its signal comes from, when one is asked for. */
  constructor(
    fields: Omit<InboundRequest, 'signal'>,
    private readonly abort: SignalSource,
  ) {
    this.method = fields.method;
    this.path = fields.path;
    this.data = fields.data;
    this.params = fields.params;
    this.requestId = fields.requestId;
    this.idempotencyKey = fields.idempotencyKey;
    this.credentials = fields.credentials;
    this.receivedBytes = fields.receivedBytes;
    if (fields.authenticated !== undefined) this.authenticated = fields.authenticated;
    if (fields.trace !== undefined) this.trace = fields.trace;
    if (fields.inProcess) this.inProcess = true;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}

/** What a handler learns about the request it serves. */
export interface RequestContext {
  readonly requestId: string;
  readonly idempotencyKey: string | null;
  readonly params: QueryParams;
  /** The authenticated identity, when the server has an authenticator. */
  readonly security: SecurityContext | null;
  readonly signal: AbortSignal;
  readonly transport: TransportName;
  readonly url: string;
  /**
   * The SERVER span the request is served in, when tracing is on and the span records; null or
   * absent otherwise (so a handler that refines its span costs nothing without a recording SDK).
   */
  readonly span?: SpanHandle | null;
}

/**
 * A recording span as a handler (or a protocol's client) may refine it once it knows what the
 * operation carries: A2A's JSON-RPC names the call by its method. Attributes as OpenTelemetry
 * takes them.
 */
export interface SpanHandle {
  /** Replaces the span's name (keep names few: never a string a caller chose). */
  updateName(name: string): void;
  setAttribute(key: string, value: string | number | boolean): void;
  /**
   * Marks the span failed: `error.type` is `code`, and the status is ERROR when `error` (a
   * server marks only its own faults so; a client every failed call).
   */
  fail(code: string, message: string, error: boolean): void;
}

/**
 * How the SERVER span of an endpoint starts when its protocol names its calls itself (A2A's
 * JSON-RPC, one route for every method): `name` and `attributes` in place of `parley <operation>`,
 * rpc.system 'parley' and rpc.method, which the handler may set once it knows the method
 * (through `RequestContext.span`).
 */
export interface SpanStart {
  /** The whole span name; a constant, so span names stay few. */
  readonly name: string;
  /** The span's first attributes (rpc.system among them); parley.transport and parley.request_id are added. */
  readonly attributes: Readonly<Record<string, string>>;
}

export interface Endpoint {
  readonly spec: OperationSpec;
  /** Unary operations: the JSON result, or a string for text operations (text/html, text/plain). */
  readonly unary?: (data: unknown, context: RequestContext) => Promise<unknown>;
  /**
   * Idempotent operations: whether a result may be replayed to later requests with the same
   * key. Default: every successful result. (Task submission keeps only finished tasks.)
   */
  readonly replayable?: (result: unknown) => boolean;
  /**
   * Idempotent operations whose effect depends on the moment (cancel): a request whose key has
   * a stored answer runs again first, and the stored answer is replayed only when that run
   * fails as this accepts (the task is no longer active); a new answer replaces it. Default:
   * a stored answer is replayed without running.
   */
  readonly replayWhen?: (error: unknown) => boolean;
  /**
   * With tracing on, serve this operation in a SERVER span only when the caller sent trace
   * context (it traces the call itself); otherwise no span. For calls made on a timer (a
   * registry heartbeat), whose clients skip tracing by default: a root trace per call is noise.
   */
  readonly tracedOnlyWhenContinued?: boolean;
  /**
   * Unary operations a stream falls back to (the stream spec's `fallback`): makes that stream's
   * one final event from this endpoint's answer. Without it a target offers no such fallback.
   */
  readonly finalEvent?: (answer: unknown) => unknown;
  /** Streaming operations: each event's result, in order; the one marked final closes the stream. */
  readonly stream?: (data: unknown, context: RequestContext) => AsyncIterable<StreamItem>;
  /**
   * The endpoint reads its body itself: the http transport hands it a RawHttpBody (text and
   * headers) instead of decoded JSON, and leaves the content type to it. Only http honours it.
   */
  readonly rawBody?: boolean;
  /**
   * The body of an error the transport answers for this endpoint before or around it (an
   * oversize or overdue body), in the endpoint's own protocol; undefined keeps the native body.
   */
  readonly errorBody?: (error: { readonly status: number; readonly message: string }) => unknown;
  /** How its SERVER span starts, when not as `parley <operation>` (see SpanStart). */
  readonly spanStart?: SpanStart;
  /**
   * The work waits on a language model (an agent's chat, tasks its model answers): it takes a
   * model slot (limits.max_concurrent_model_requests) before its request or stream slot, so a
   * hung model provider cannot hold every slot.
   */
  readonly modelBacked?: boolean;
  /**
   * Served by the grpc transport as a method of a protobuf service of its own (beside
   * SvcTransport), at that method's standard path, and reachable no other way: the
   * dispatcher's routing never finds it, so no other wire and no SvcTransport envelope can
   * hand it a body that is not the method's decoded request message.
   */
  readonly grpc?: GrpcMethodBinding;
  /**
   * Streams: the stream ends when its source ends, and no event is marked final (a protocol
   * whose events do not say which is the last). Without it a source that ends before a final
   * event is a failure.
   */
  readonly endsWithSource?: boolean;
}

/**
 * An endpoint served as a gRPC method (Endpoint.grpc): the grpc transport decodes the request
 * message with the method's input schema and hands it to the handler as the request's data
 * (text metadata as its params, credentials kept apart), and encodes the answer, or each
 * event, from its ProtoJSON with the output schema. The protocol chooses its statuses.
 */
export interface GrpcMethodBinding {
  /** The protobuf-es descriptor of the method: service, name, messages, unary or server streaming. */
  readonly method: DescMethod;
  /** The status a call ends with, from the wire error of a refusal or of the handler's failure. */
  readonly failure: (error: Pick<WireError, 'code' | 'message' | 'status' | 'details'>) => GrpcFailure;
}

/** A gRPC status a protocol ends a failed call with. */
export interface GrpcFailure {
  readonly code: number;
  readonly message: string;
  /** A binary google.rpc.Status, sent as the `grpc-status-details-bin` trailer. */
  readonly details?: Uint8Array;
}

/** One event of a stream as a handler produces it. */
export interface StreamItem {
  readonly result: unknown;
  /** True on the event that closes the stream (the final task status). */
  readonly final: boolean;
  /**
   * The result's JSON text, when its producer made it along with a result that is plain JSON
   * already (a model's text chunks): sent as it is, neither normalized nor serialized again.
   */
  readonly encoded?: EncodedJson;
  /**
   * The event's position, for a stream a client can resume: written as the SSE `id:` line, which
   * the client sends back as `Last-Event-ID` (A2A's SubscribeToTask across replicas).
   */
  readonly eventId?: string;
  /**
   * The SSE `event:` field; absent, the event is a plain message. A2A's HTTP+JSON binding names
   * the event that carries a failure `error`, which is how its clients tell one apart.
   */
  readonly eventName?: string;
}

/** Endpoints keyed by `METHOD path`. */
export type EndpointTable = ReadonlyMap<string, Endpoint>;

export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}
