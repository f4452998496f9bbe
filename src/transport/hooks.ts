// The points where cross-cutting concerns plug into the pipeline, so that the pipeline names no
// logger, request log or tracer of its own. Whoever composes a server or a client (the agent and
// registry servers, AgentClient, RegistryClient, the A2A client) hands a `TransportHooks` to the
// transport through its options; observability implements them (observability/hooks.ts). With
// no hook installed the pipeline does exactly what it did before: the dispatcher and outbound
// test a field that is null, and allocate nothing per request for it.
//
// The hooks, server side then client side:
//   request ended   a line per served or refused request (`RequestEndedHook`, made per server
//                   from its logger by `requestLog`)
//   span start/end  a SERVER span around each served operation (`ServerSpanHook`), a CLIENT span
//                   around each call (`ClientSpanHook`); both come from `loadTracing`, loaded once
//                   when the transport's `tracing` option is on
//   latency         each served request's duration (`LatencyObserver`, on TransportMetrics)
//
// A new concern that needs to see every request (an audit log, say) becomes one more optional
// field here, called from the object that already exists per request, and implemented outside.
import type { SecurityContext } from '../../generated/types/index.js';
import type { TransportName } from './capabilities.js';
import type { StreamFrame, StreamOutcome, UnaryOutcome } from './dispatcher.js';
import type { Endpoint, InboundRequest, SpanHandle } from './endpoint.js';
import type { CallSpans } from './outbound.js';
import type { TraceHeaders } from './trace-headers.js';

/** A level a log line is written at (pino's, most severe first). */
export type LineLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** One level's method: the line's fields, then its message (pino's argument order). */
type LogMethod = (fields: object, message: string) => void;

/** What parley needs of a logger: pino's, bunyan-style. A pino logger (or child) fits as it is. */
export type Logger = Readonly<Record<LineLevel, LogMethod>> & {
  /** Whether a line at `level` would be written; lines that would not are not built. */
  isLevelEnabled(level: LineLevel): boolean;
};

/** How a request ended: its status, and its error code when it failed. */
export interface RequestEnding {
  readonly status: number;
  readonly code?: string;
}

/** A request refused before it reached the dispatcher, as the transport that refused it knows it. */
export interface Refusal {
  readonly requestId: string | null;
  /** The route asked for; null for a message that could not be read as a request. */
  readonly method: string | null;
  readonly path: string | null;
  /** The operation, when the route was found before the request was refused (a bad body). */
  readonly operation?: string | null;
  readonly error: RequestEnding;
  /** performance.now() when the request arrived; the line says 0 ms without it (refused at once). */
  readonly startedAt?: number;
}

/** A stream its client left before the final event: nginx's "client closed request". */
export const CLIENT_CLOSED: RequestEnding = { status: 499, code: 'client_closed' };

/** Told when each request ended (or was refused before the dispatcher); `ending` null: served. */
export interface RequestEndedHook {
  unary(
    request: InboundRequest,
    operation: string | null,
    startedAt: number,
    security: SecurityContext | null,
    ending: RequestEnding | null,
  ): void;
  stream(
    request: InboundRequest,
    operation: string | null,
    startedAt: number,
    security: SecurityContext | null,
    ending: RequestEnding | null,
    events: number,
  ): void;
  refused(refusal: Refusal): void;
}

type Frames = AsyncGenerator<StreamFrame, void, undefined>;

/** Serves each operation inside a SERVER span; `serve` gets the span to refine when it records. */
export interface ServerSpanHook {
  serveUnary<T extends UnaryOutcome | StreamOutcome>(
    request: InboundRequest,
    endpoint: Endpoint | undefined,
    transport: TransportName,
    serve: (span: SpanHandle | null) => Promise<T>,
  ): Promise<T>;
  serveStream(
    request: InboundRequest,
    endpoint: Endpoint | undefined,
    transport: TransportName,
    open: (span: SpanHandle | null) => Promise<Frames>,
  ): Promise<Frames>;
}

/** The CLIENT span of one outbound call, and the trace context the call carries. */
export interface CallSpan {
  readonly trace: TraceHeaders | null;
  /** Runs the call's attempts with the span active. */
  within<T>(work: () => T): T;
  answered(spans: CallSpans, result: unknown): void;
  retried(attempt: number, error: unknown): void;
  end(ok: boolean, error: unknown): void;
}

/** Starts the CLIENT span of a call; null when there is nothing to record and no trace to pass on. */
export interface ClientSpanHook {
  startClient(
    operation: string,
    transport: TransportName,
    url: string,
    requestId: string,
    spans?: CallSpans,
    request?: unknown,
  ): CallSpan | null;
}

/** Told of each served request: its operation, whether it succeeded, and how long it took. */
export type LatencyObserver = (operation: string, ok: boolean, seconds: number) => void;

/** What a composer hands a transport (its `hooks` option). Every field is optional. */
export interface TransportHooks {
  /** Makes a server's request-ended hook from the logger it was started with. */
  readonly requestLog?: (logger: Logger, transport: TransportName) => RequestEndedHook;
  /** Loads the span hooks, once, when the `tracing` option is on; rejects when they cannot load. */
  readonly loadTracing?: () => Promise<ServerSpanHook & ClientSpanHook>;
}
