// The client half every transport shares: request id and idempotency key, authentication
// headers, the request size check, a request slot, the deadline, and the retry loop; for
// streams, a stream slot, per-event checks and no retry.
import type { CallOptions, OperationSpec } from '../../generated/operations/spec.js';
import { sleep } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type { EncodedJson } from '../core/json/encoded.js';
import { LazyAbort } from '../core/lazy-abort.js';
import { merge } from '../core/objects.js';
import { sharedTimeout, type SharedTimeout } from '../core/shared-timers.js';
import type { InboundEvent, OutboundCall, TransportClient } from './binding.js';
import type { TransportName } from './capabilities.js';
import type { ResolvedConfig } from './config.js';
import type { SpanHandle } from './endpoint.js';
import { resultBytes } from './envelope.js';
import { TransportLimitError, TransportProtocolError, TransportTimeoutError } from './errors.js';
import type { CallSpan, ClientSpanHook } from './hooks.js';
import { idempotencyKeyFor } from './idempotency-key.js';
import { assertWithin } from './limits.js';
import { preparePayload, writeTextNow } from './payload.js';
import type { TransportMetrics } from './metrics.js';
import { backoffSeconds, shouldRetry } from './retry.js';
import { Slots } from './slots.js';
import type { TraceHeaders } from './trace-headers.js';
import { remoteErrorFrom } from './wire-errors.js';

/** Per-call options: the generated CallOptions (signal, timeoutMs, params, idempotencyKey, headers), and tracing. */
export interface OutboundOptions extends CallOptions {
  /**
   * `false`: no CLIENT span and no trace context for this call, although the transport traces
   * (an agent's registry heartbeats, which would otherwise be a new trace every interval).
   */
  readonly tracing?: false;
  /**
   * How the call's CLIENT span is named and described when the operation carries a protocol
   * of its own (A2A's JSON-RPC); default `parley <operation>`.
   */
  readonly spans?: CallSpans;
}

/**
 * The CLIENT spans of calls that carry a protocol of their own, one operation for all its
 * methods (A2A's JSON-RPC). Asked only when a span is made; a constant serves every call.
 */
export interface CallSpans {
  /** The span's name for `request`: one of a few constants, never a string a caller chose. */
  name(request: unknown): string;
  /**
   * A fresh object of the span's attributes for `request`, in place of rpc.system 'parley'
   * and rpc.method; parley.transport and parley.request_id are added to it.
   */
  attributes(request: unknown): Record<string, string | number | boolean>;
  /** Reads a unary call's answer before its span ends, when the span records (an error inside the answer). */
  answered(span: SpanHandle, result: unknown): void;
}

export interface OutboundContext {
  readonly name: TransportName;
  readonly url: () => string;
  readonly config: ResolvedConfig;
  readonly metrics: TransportMetrics;
  readonly client: () => TransportClient;
  readonly authHeaders: () => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;
  /** The client span hook when tracing is on (a promise while it loads), else null. */
  readonly tracing: () => ClientSpanHook | Promise<ClientSpanHook> | null;
}

export class Outbound {
  private readonly requests: Slots;
  private readonly streams: Slots;

  constructor(private readonly context: OutboundContext) {
    this.requests = new Slots(context.config.limits.maxConcurrentRequests);
    this.streams = new Slots(context.config.limits.maxConcurrentStreams);
  }

  async unary(spec: OperationSpec, request: unknown, options: OutboundOptions = {}): Promise<unknown> {
    const { config, metrics } = this.context;
    const url = this.context.url();
    const requestId = newId();
    const { body, copy } = this.encodeBody(spec, request, url, requestId);
    const idempotencyKey = spec.idempotent ? (options.idempotencyKey ?? idempotencyKeyFor(spec, request, requestId)) : null;
    const pendingSpan = this.span(spec, request, url, requestId, options);
    const span = pendingSpan instanceof Promise ? await pendingSpan : pendingSpan;
    const trace = span?.trace ?? null;
    const started = performance.now();
    metrics.requestStarted();
    let ok = false;
    let failure: unknown;
    try {
      const pending = this.headers(options);
      const headers = pending instanceof Promise ? await pending : pending;
      const attempts = async () => {
        for (let attempt = 1; ; attempt++) {
          const deadline = new Deadline(options, config);
          const bodyValue = attempt === 1 ? copy : undefined;
          const params = queryFor(spec, request, options);
          const timeoutMs = deadline.ms;
          const fields = { spec, body, bodyValue, params, requestId, idempotencyKey, attempt, headers, url, trace, timeoutMs };
          const call = new Attempt(fields, deadline.cancellation);
          try {
            metrics.sent(body?.bytes ?? 0);
            const reply = await this.context.client().send(call);
            metrics.received(reply.bytes);
            assertWithin('response', reply.bytes, config.limits.maxResponseBytes, { url, requestId });
            return reply.value;
          } catch (raw) {
            const error = deadline.translate(raw, url, requestId);
            if (attempt < config.retry.maxAttempts && shouldRetry(config.retry, spec, error)) {
              // Retries send the request's text, the same on every attempt (payload.ts).
              if (body !== null) writeTextNow(body);
              metrics.retried();
              span?.retried(attempt, error);
              await sleep(backoffSeconds(config.retry, attempt) * 1000, options.signal);
              continue;
            }
            throw error;
          } finally {
            deadline.dispose();
          }
        }
      };
      // Control-plane calls (cancellation) never wait behind the work they control.
      const run = spec.controlPlane ? attempts : () => this.requests.run(attempts, options.signal);
      const result = span ? await span.within(run) : await run();
      if (span && options.spans) span.answered(options.spans, result);
      ok = true;
      return result;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      metrics.requestFinished(ok, started);
      span?.end(ok, failure);
    }
  }

  /**
   * The CLIENT span of a call when tracing is on (and not off for the call) and there is
   * something to record or pass on, a child of the caller's active context; a promise only while
   * @opentelemetry/api loads (an await costs every call a turn).
   */
  private span(
    spec: OperationSpec,
    request: unknown,
    url: string,
    requestId: string,
    options: OutboundOptions,
  ): CallSpan | Promise<CallSpan | null> | null {
    const tracing = options.tracing === false ? null : this.context.tracing();
    if (tracing === null) return null;
    const start = (loaded: ClientSpanHook) =>
      loaded.startClient(spec.name, this.context.name, url, requestId, options.spans, request);
    return tracing instanceof Promise ? tracing.then(start) : start(tracing);
  }

  /**
   * The request body, checked against the size limit. For a client that hands values over, it
   * is measured and not written, and `copy` is the target's own copy, made in the same walk
   * when the request is plain JSON; otherwise undefined.
   */
  private encodeBody(spec: OperationSpec, request: unknown, url: string, requestId: string): RequestBody {
    if (!spec.request) return NO_BODY;
    const limit = this.context.config.limits.maxRequestBytes;
    const payload = preparePayload('request', request ?? null, limit, {
      url,
      requestId,
      inProcess: this.context.client().inProcess,
    });
    return { body: payload.encoded, copy: payload.copy };
  }

  /** The caller's headers plus the credential headers, which win on a clash. */
  private headers(options: OutboundOptions): Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>> {
    const auth = this.context.authHeaders();
    if (auth instanceof Promise) return auth.then((resolved) => merge(options.headers, resolved));
    return merge(options.headers, auth);
  }

  /** Opens a stream and yields each event's result; never retried, never resumed. */
  async *stream(spec: OperationSpec, request: unknown, options: OutboundOptions = {}): AsyncGenerator<unknown, void, undefined> {
    const { config, metrics } = this.context;
    const url = this.context.url();
    const requestId = newId();
    const { body, copy } = this.encodeBody(spec, request, url, requestId);
    const pendingSpan = this.span(spec, request, url, requestId, options);
    const span = pendingSpan instanceof Promise ? await pendingSpan : pendingSpan;
    let release: () => void;
    try {
      release = await this.streams.acquire(options.signal);
    } catch (error) {
      span?.end(false, error);
      throw error;
    }
    metrics.streamStarted();
    const deadline = new Deadline(options, config);
    let ok = false;
    let failure: unknown;
    try {
      const pending = this.headers(options);
      const headers = pending instanceof Promise ? await pending : pending;
      const params = queryFor(spec, request, options);
      const trace = span?.trace ?? null;
      const fields = {
        spec,
        body,
        bodyValue: copy,
        params,
        requestId,
        idempotencyKey: null,
        attempt: 1,
        headers,
        url,
        trace,
        timeoutMs: null,
      };
      const call = new Attempt(fields, deadline.cancellation);
      metrics.sent(body?.bytes ?? 0);
      try {
        for await (const event of this.context.client().stream(call)) {
          deadline.reset();
          metrics.received(event.bytes);
          const result = checkEvent(event, requestId, url, config.limits.maxEventBytes);
          yield result;
          if (event.final) {
            ok = true;
            return;
          }
        }
      } catch (raw) {
        throw deadline.translate(raw, url, requestId);
      }
      throw new TransportProtocolError('stream ended before its final event', {
        url,
        requestId,
        retryable: false,
      });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      deadline.dispose();
      metrics.streamFinished(ok);
      release();
      span?.end(ok, failure);
    }
  }
}

interface RequestBody {
  readonly body: EncodedJson | null;
  /** The target's own copy of the body, for an in-process client (OutboundCall.bodyValue). */
  readonly copy: unknown;
}

const NO_BODY: RequestBody = { body: null, copy: undefined };

/** Query parameters: explicit ones, or the request itself for query operations (discovery). */
function queryFor(
  spec: OperationSpec,
  request: unknown,
  options: OutboundOptions,
): Readonly<Record<string, string | readonly string[]>> {
  const params: Record<string, string | readonly string[]> = {};
  if (spec.query && request && typeof request === 'object') {
    for (const [key, value] of Object.entries(request)) {
      if (value === undefined || value === null) continue;
      params[key] = Array.isArray(value) ? value.map(String) : typeof value === 'object' ? JSON.stringify(value) : String(value);
    }
  }
  return options.params ? merge(params, options.params) : params;
}

/** An event's result, once it is known not to be an error and to be within the event limit. */
function checkEvent(event: InboundEvent, requestId: string, url: string, limit: number): unknown {
  if (!event.ok) throw remoteErrorFrom(event.error, url, requestId);
  assertWithin('event', resultBytes(event, limit), limit, { url, requestId });
  return event.result;
}

/** One attempt as the binding sees it; its AbortSignal is only made if the binding asks. */
class Attempt implements OutboundCall {
  readonly spec: OperationSpec;
  readonly body: EncodedJson | null;
  readonly bodyValue: unknown;
  readonly params: Readonly<Record<string, string | readonly string[]>>;
  readonly requestId: string;
  readonly idempotencyKey: string | null;
  readonly attempt: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly url: string;
  readonly controlPlane: boolean;
  readonly trace: TraceHeaders | null;
  readonly timeoutMs: number | null;

  constructor(
    fields: Omit<OutboundCall, 'signal' | 'cancellation' | 'controlPlane'>,
    readonly cancellation: LazyAbort,
  ) {
    this.spec = fields.spec;
    this.body = fields.body;
    this.bodyValue = fields.bodyValue;
    this.params = fields.params;
    this.requestId = fields.requestId;
    this.idempotencyKey = fields.idempotencyKey;
    this.attempt = fields.attempt;
    this.headers = fields.headers;
    this.url = fields.url;
    this.controlPlane = fields.spec.controlPlane;
    this.trace = fields.trace;
    this.timeoutMs = fields.timeoutMs;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }
}

/**
 * The time a call (or, for a stream, the wait for each next event) may take, plus the
 * caller's own signal, as one cancellation.
 */
class Deadline {
  readonly cancellation = new LazyAbort();
  /** How long the call (or the wait for a stream's next event) may take. */
  readonly ms: number;
  private readonly timeout: SharedTimeout;
  private timedOut = false;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly onCallerAbort: (() => void) | null = null;

  constructor(options: OutboundOptions, config: ResolvedConfig) {
    this.ms = options.timeoutMs ?? config.timeout * 1000;
    this.timeout = sharedTimeout(this.ms, () => {
      this.timedOut = true;
      this.cancellation.abort(new DeadlineExceeded(this.ms));
    });
    const caller = (this.callerSignal = options.signal);
    if (!caller) return;
    if (caller.aborted) {
      this.cancellation.abort(caller.reason);
      return;
    }
    this.onCallerAbort = () => this.cancellation.abort(caller.reason);
    caller.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Maps an abort caused by the deadline to TransportTimeoutError; other errors pass through. */
  translate(error: unknown, url: string, requestId: string): unknown {
    if (this.timedOut && !(this.callerSignal?.aborted ?? false) && !(error instanceof TransportLimitError)) {
      return new TransportTimeoutError(`no answer within ${this.ms} ms`, { url, requestId, cause: error });
    }
    return error;
  }

  /** Starts the deadline over: streams wait at most `timeout` between two events. */
  reset(): void {
    this.timeout.restart();
  }

  dispose(): void {
    this.timeout.cancel();
    if (this.onCallerAbort) this.callerSignal!.removeEventListener('abort', this.onCallerAbort);
  }
}

class DeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`deadline of ${ms} ms exceeded`);
    this.name = 'TimeoutError';
  }
}
