// Spans through @opentelemetry/api: one SERVER span per dispatched operation and one CLIENT
// span per outbound call, and the W3C trace context every wire carries. The API is optional
// and loaded only when tracing is switched on. Without an SDK registered it hands out
// non-recording spans, so tracing on costs a few small objects per request; nothing is ever
// registered globally from here (the tracer provider, context manager and propagator are the
// application's to set, as an SDK does).
import type * as OtelApi from '@opentelemetry/api';
import { importOptional } from '../core/errors.js';
import { lazyLoader } from '../core/lazy-import.js';
import type { TransportName } from '../transport/capabilities.js';
import type { StreamFrame, StreamOutcome, UnaryOutcome } from '../transport/dispatcher.js';
import type { Endpoint, InboundRequest, SpanHandle } from '../transport/endpoint.js';
import { toEndpointError } from '../transport/endpoint-error.js';
import type { CallSpans } from '../transport/outbound.js';
import type { CallSpan, ClientSpanHook, ServerSpanHook } from '../transport/hooks.js';
import type { TraceHeaders } from '../transport/trace-headers.js';
import { TRACEPARENT_HEADER } from '../transport/wire-names.js';

type Api = typeof OtelApi;
type Frames = AsyncGenerator<StreamFrame, void, undefined>;

const loadApi = lazyLoader(async () => {
  const loaded = await importOptional<Api & { default?: Api }>('@opentelemetry/api', 'tracing');
  // Named exports normally; the whole module as the default export when loaded as CommonJS
  // (the ESM build's own default export holds only the four API objects).
  return loaded.SpanKind ? loaded : (loaded.default ?? loaded);
});

let shared: Tracing | null = null;

/** The process's one Tracing, loading @opentelemetry/api on first use (MissingDependencyError without it). */
export async function loadTracing(): Promise<Tracing> {
  const api = await loadApi();
  shared ??= new Tracing(api);
  return shared;
}

/** The W3C traceparent: version, trace id, parent span id, flags; later versions may append fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The span hooks (transport/hooks.ts), over the OpenTelemetry API. */
export class Tracing implements ServerSpanHook, ClientSpanHook {
  private readonly tracer: OtelApi.Tracer;

  // The API's no-op provider, which its global proxy delegates to until an SDK registers one.
  private readonly noProvider: OtelApi.TracerProvider;

  constructor(private readonly api: Api) {
    // A proxy: an SDK registered later still receives the spans.
    this.tracer = api.trace.getTracer('parley');
    this.noProvider = new api.ProxyTracerProvider().getDelegate();
  }

  /**
   * Serves a unary request inside a SERVER span; the handler sees the span as the active
   * context, and `serve` is handed the span to refine when it records (else null).
   */
  serveUnary<T extends UnaryOutcome | StreamOutcome>(
    request: InboundRequest,
    endpoint: Endpoint | undefined,
    transport: TransportName,
    serve: (span: SpanHandle | null) => Promise<T>,
  ): Promise<T> {
    if (!request.trace && (endpoint?.tracedOnlyWhenContinued === true || this.noSdk())) return serve(null);
    const { span, parent } = this.startServer(request, endpoint, transport);
    if (this.idle(span)) return serve(null);
    const active = this.api.trace.setSpan(parent, span);
    // Nothing to record (no SDK, or sampled out): only the context to pass on, which a stream's
    // later steps need as much as the handler's first (its outbound calls stay in the trace).
    if (!span.isRecording()) {
      return this.api.context
        .with(active, serve, undefined, null)
        .then((outcome) => (outcome.kind === 'stream' ? (this.streamed(outcome, span, active, request) as T) : outcome));
    }
    return this.api.context.with(active, serve, undefined, new RecordingSpan(span, this)).then(
      (outcome) => {
        // A unary route that answered with a stream (StreamAnswer): its span lasts as long as
        // the stream, so its duration and status are the stream's, not the handshake's.
        if (outcome.kind === 'stream') return this.streamed(outcome, span, active, request) as T;
        if (outcome.kind === 'json' && outcome.replayed) span.setAttribute('parley.replayed', true);
        span.end();
        return outcome;
      },
      (error: unknown) => {
        this.serverFailed(span, error);
        span.end();
        throw error;
      },
    );
  }

  /**
   * Opens a stream inside a SERVER span that ends with the stream. Every step of the stream runs
   * in the span's context, so the handler's work (and its own outbound calls) stays in the trace.
   */
  async serveStream(
    request: InboundRequest,
    endpoint: Endpoint | undefined,
    transport: TransportName,
    open: (span: SpanHandle | null) => Promise<Frames>,
  ): Promise<Frames> {
    if (!request.trace && this.noSdk()) return open(null);
    const { span, parent } = this.startServer(request, endpoint, transport);
    if (this.idle(span)) return open(null);
    const active = this.api.trace.setSpan(parent, span);
    const handle = span.isRecording() ? new RecordingSpan(span, this) : null;
    let frames: Frames;
    try {
      frames = await this.api.context.with(active, open, undefined, handle);
    } catch (error) {
      this.serverFailed(span, error);
      span.end();
      throw error;
    }
    return new TracedFrames(frames, span, active, this, request);
  }

  /** A StreamOutcome whose frames carry the span to the stream's end. */
  private streamed(outcome: StreamOutcome, span: OtelApi.Span, active: OtelApi.Context, request: InboundRequest): StreamOutcome {
    return { ...outcome, frames: new TracedFrames(outcome.frames, span, active, this, request) };
  }

  /**
   * Starts the CLIENT span of an outbound call, a child of the caller's active context; null
   * when there is nothing to record and no trace to pass on (no SDK, no trace active). `spans`
   * names and describes the call from its `request` instead of the operation (A2A's JSON-RPC).
   */
  startClient(
    operation: string,
    transport: TransportName,
    url: string,
    requestId: string,
    spans?: CallSpans,
    request?: unknown,
  ): ClientSpan | null {
    const { api } = this;
    const parent = api.context.active();
    if (this.noSdk() && api.trace.getSpan(parent) === undefined) return null;
    let name: string;
    let attributes: OtelApi.Attributes;
    if (spans) {
      name = spans.name(request);
      attributes = spans.attributes(request);
    } else {
      name = `parley ${operation}`;
      attributes = { 'rpc.system': 'parley', 'rpc.method': operation };
    }
    attributes['parley.transport'] = transport;
    attributes['parley.request_id'] = requestId;
    const span = this.tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes }, parent);
    if (this.idle(span)) return null;
    if (span.isRecording()) peerAttributes(span, url);
    const active = api.trace.setSpan(parent, span);
    return new ClientSpan(span, active, this.inject(active), this);
  }

  /** Runs `work` with `active` as the current context. */
  within<T>(active: OtelApi.Context, work: () => T): T {
    return this.api.context.with(active, work);
  }

  /**
   * No SDK registered (checked on every call: one may register later). With no trace to
   * continue either, a span would be a no-op one with nothing to pass on, so none is made.
   */
  private noSdk(): boolean {
    const provider = this.api.trace.getTracerProvider();
    return provider instanceof this.api.ProxyTracerProvider && provider.getDelegate() === this.noProvider;
  }

  /**
   * A span with nothing to do: not recording (no SDK, or sampled out) and no valid context
   * to pass on. The API's no-op spans share one invalid context, checked first because it is cheap.
   */
  private idle(span: OtelApi.Span): boolean {
    if (span.isRecording()) return false;
    const context = span.spanContext();
    return context === this.api.INVALID_SPAN_CONTEXT || !this.api.isSpanContextValid(context);
  }

  /** Marks a span failed: ERROR status with the error's code and message. */
  failed(span: OtelApi.Span, code: string, message: string, error: boolean): void {
    span.setAttribute('error.type', code);
    if (error) span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
  }

  private startServer(request: InboundRequest, endpoint: Endpoint | undefined, transport: TransportName) {
    const { api } = this;
    // The caller's context and nothing else: whatever this process had active when the bytes
    // arrived is unrelated to the request (and a missing or malformed traceparent starts a trace).
    const parent = request.trace ? this.extract(request.trace) : api.ROOT_CONTEXT;
    const start = endpoint?.spanStart;
    let name: string;
    let attributes: OtelApi.Attributes;
    if (start) {
      // A protocol of its own on the route: its handler names the call once it has read it.
      name = start.name;
      attributes = { ...start.attributes, 'parley.transport': transport, 'parley.request_id': request.requestId };
    } else {
      attributes = { 'rpc.system': 'parley', 'parley.transport': transport, 'parley.request_id': request.requestId };
      // A request no route matched is named by its method alone, so span names stay few.
      if (endpoint) attributes['rpc.method'] = endpoint.spec.name;
      name = `parley ${endpoint?.spec.name ?? request.method}`;
    }
    const span = this.tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes }, parent);
    return { span, parent };
  }

  /**
   * A served request that failed. Only server faults (5xx) make the span an error, as the
   * OpenTelemetry conventions have it for servers: a caller's mistake is not this server's.
   */
  private serverFailed(span: OtelApi.Span, raw: unknown): void {
    const error = toEndpointError(raw);
    this.failed(span, error.code, error.message, error.status >= 500);
  }

  /** Whether the application registered a propagator that speaks W3C trace context (an SDK does). */
  private globalPropagator(): boolean {
    return this.api.propagation.fields().includes(TRACEPARENT_HEADER);
  }

  /** The context a received trace context names; the root context when it does not parse. */
  private extract(headers: TraceHeaders): OtelApi.Context {
    const { api } = this;
    if (this.globalPropagator()) return api.propagation.extract(api.ROOT_CONTEXT, headers);
    const remote = parseTraceparent(api, headers);
    return remote ? api.trace.setSpanContext(api.ROOT_CONTEXT, remote) : api.ROOT_CONTEXT;
  }

  /** The trace context to send for `active`; null when it holds no valid span context. */
  private inject(active: OtelApi.Context): TraceHeaders | null {
    const { api } = this;
    if (this.globalPropagator()) {
      const carrier: Record<string, string> = {};
      api.propagation.inject(active, carrier);
      const { traceparent, tracestate } = carrier;
      if (!traceparent) return null;
      return tracestate ? { traceparent, tracestate } : { traceparent };
    }
    const context = api.trace.getSpanContext(active);
    if (!context || !api.isSpanContextValid(context)) return null;
    const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
    const traceparent = `00-${context.traceId}-${context.spanId}-${flags}`;
    const tracestate = context.traceState?.serialize();
    return tracestate ? { traceparent, tracestate } : { traceparent };
  }
}

/** A W3C traceparent (with its tracestate) as a remote span context, or null when it does not parse. */
function parseTraceparent(api: Api, headers: TraceHeaders): OtelApi.SpanContext | null {
  const match = TRACEPARENT.exec(headers.traceparent.trim());
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match;
  // ff is forbidden; version 00 has exactly four fields.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  const context: OtelApi.SpanContext = {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16),
    isRemote: true,
  };
  if (headers.tracestate) context.traceState = api.createTraceState(headers.tracestate);
  return api.isSpanContextValid(context) ? context : null;
}

/** `server.address` and `server.port` of a peer URL (runtime URLs name an in-process target). */
function peerAttributes(span: OtelApi.Span, url: string): void {
  try {
    const parsed = new URL(url);
    span.setAttribute('server.address', parsed.hostname || parsed.host || url);
    if (parsed.port) span.setAttribute('server.port', Number(parsed.port));
  } catch {
    span.setAttribute('server.address', url);
  }
}

/** A span as a handler or a protocol's client may refine it (RequestContext.span, CallSpans). */
class RecordingSpan implements SpanHandle {
  constructor(
    protected readonly span: OtelApi.Span,
    protected readonly tracing: Tracing,
  ) {}

  updateName(name: string): void {
    this.span.updateName(name);
  }

  setAttribute(key: string, value: string | number | boolean): void {
    this.span.setAttribute(key, value);
  }

  fail(code: string, message: string, error: boolean): void {
    this.tracing.failed(this.span, code, message, error);
  }
}

/** The CLIENT span of one outbound call and the trace context it sends. */
export class ClientSpan extends RecordingSpan implements CallSpan {
  constructor(
    span: OtelApi.Span,
    private readonly active: OtelApi.Context,
    /** What the call carries on the wire: this span as the parent of the peer's. */
    readonly trace: TraceHeaders | null,
    tracing: Tracing,
  ) {
    super(span, tracing);
  }

  /** Lets `spans` read the call's answer before the span ends, when the span records. */
  answered(spans: CallSpans, result: unknown): void {
    if (this.span.isRecording()) spans.answered(this, result);
  }

  /** Runs the call's attempts with this span active, so instrumentation below nests under it. */
  within<T>(work: () => T): T {
    return this.tracing.within(this.active, work);
  }

  /** Notes an attempt that failed and will be tried again. */
  retried(attempt: number, error: unknown): void {
    if (this.span.isRecording()) this.span.addEvent('retry', { 'parley.attempt': attempt, 'error.type': errorCode(error) });
  }

  /**
   * Ends the span. A call that failed is an error to its caller, whatever the cause; a stream
   * the caller stopped reading before its end (`ok` false, no error) is only marked cancelled.
   */
  end(ok: boolean, error: unknown): void {
    if (!ok && error !== undefined) this.tracing.failed(this.span, errorCode(error), errorMessage(error), true);
    else if (!ok) this.tracing.failed(this.span, 'cancelled', 'the caller stopped reading', false);
    this.span.end();
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A served stream's frames with the SERVER span around them: each step runs in the span's
 * context, an error frame marks the span, and the span ends with the final frame or when the
 * consumer stops reading, whichever comes first. `parley.stream.outcome` says how it ended
 * (`completed`, `failed`, `cancelled`) and `parley.stream.events` how many events it sent.
 */
class TracedFrames implements AsyncGenerator<StreamFrame, void, undefined> {
  private ended = false;
  private events = 0;

  constructor(
    private readonly frames: Frames,
    private readonly span: OtelApi.Span,
    private readonly active: OtelApi.Context,
    private readonly tracing: Tracing,
    /** Its signal tells a client gone from a whole stream. */
    private readonly request: InboundRequest,
  ) {
    // A caller that leaves ends the span at once: the pipeline itself notices only at the next
    // event, which may be long in coming. Only a recording span is worth the listener.
    if (span.isRecording()) request.signal.addEventListener('abort', this.left, { once: true });
  }

  private readonly left = (): void => this.end('cancelled');

  next(): Promise<IteratorResult<StreamFrame, void>> {
    return this.tracing
      .within(this.active, () => this.frames.next())
      .then(
        (step) => {
          // Frames that end with their source and no final frame (gRPC's) are a whole stream,
          // unless they ended because the client went away.
          if (step.done) this.end(this.request.signal.aborted ? 'cancelled' : 'completed');
          else if (step.value.final) {
            const frame = step.value;
            if (frame.ok) {
              this.events++;
              // The final event found no one to read it: the pipeline counts that a cut stream too.
              this.end(this.request.signal.aborted ? 'cancelled' : 'completed');
            } else {
              const { code, message, status } = frame.error;
              this.tracing.failed(this.span, code, message, status >= 500);
              this.end('failed');
            }
          } else this.events++;
          return step;
        },
        (error: unknown) => {
          this.tracing.failed(this.span, errorCode(error), errorMessage(error), true);
          this.end('failed');
          throw error;
        },
      );
  }

  return(value?: void | PromiseLike<void>): Promise<IteratorResult<StreamFrame, void>> {
    return this.tracing.within(this.active, () => this.frames.return(value)).finally(() => this.end('cancelled'));
  }

  throw(error: unknown): Promise<IteratorResult<StreamFrame, void>> {
    return this.tracing.within(this.active, () => this.frames.throw(error)).finally(() => this.end('cancelled'));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private end(outcome: 'completed' | 'failed' | 'cancelled'): void {
    if (this.ended) return;
    this.ended = true;
    if (this.span.isRecording()) this.request.signal.removeEventListener('abort', this.left);
    if (outcome === 'cancelled') this.tracing.failed(this.span, 'cancelled', 'the stream ended before its final event', false);
    if (this.span.isRecording()) {
      this.span.setAttribute('parley.stream.outcome', outcome);
      this.span.setAttribute('parley.stream.events', this.events);
    }
    this.span.end();
  }
}
