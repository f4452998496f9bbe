// The server half every transport shares. A transport decodes its wire into an
// InboundRequest; the dispatcher routes it through the endpoint table, authenticates it
// (unless the route is public), validates and size-checks it, runs it once per idempotency
// key, checks the response size and counts it. A transport knows framing, not business.
import type { SecurityContext } from '../../generated/types/index.js';
import { validate, isSchemaName, validateSecurityContext } from '../../generated/validators/index.js';
import type { EncodedJson } from '../core/json/encoded.js';
import { normalizeJson } from '../core/json/normalize.js';
import { isLargePayload, largePayloadTurn } from '../core/large-payload-turns.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { ResolvedConfig } from './config.js';
import type { TransportName } from './capabilities.js';
import {
  routeKey,
  type Endpoint,
  type EndpointTable,
  type InboundRequest,
  type QueryParams,
  type RequestContext,
  type SpanHandle,
  type StreamItem,
} from './endpoint.js';
import { EndpointError, toEndpointError, type ErrorObject } from './endpoint-error.js';
import { StreamAnswer } from './stream-answer.js';
import {
  CLIENT_CLOSED,
  type Logger,
  type Refusal,
  type RequestEndedHook,
  type RequestEnding,
  type ServerSpanHook,
  type TransportHooks,
} from './hooks.js';
import { assertNotExpired, expiryOf, hasExpired, credentialsExpired, untilExpired } from './credential-expiry.js';
import { IdempotencyCache } from './idempotency-cache.js';
import { PathTemplate, RouteTemplates } from './route-templates.js';
import type { IdempotencyRunner, IdempotencyStore } from './idempotency-store.js';
import { assertWithin } from './limits.js';
import { prepareEvent, preparePayload } from './payload.js';
import type { TransportMetrics } from './metrics.js';
import { Slots } from './slots.js';
import { reportEscapedError } from './escaped-error.js';

export interface DispatcherOptions {
  readonly name: TransportName;
  readonly url: () => string;
  readonly config: ResolvedConfig;
  readonly metrics: TransportMetrics;
  readonly authenticator: Authenticator | null;
  /** A shared idempotency store (several replicas); default a cache in this process. */
  readonly idempotencyStore?: IdempotencyStore | null;
  /**
   * Where each request's line and errors that escaped a handler go. Without one nothing is
   * logged (a request costs a null check) and escaped errors go to stderr.
   */
  readonly logger?: Logger | null;
  /** The composer's hooks; `requestLog` makes the request-ended hook from `logger`. */
  readonly hooks?: TransportHooks | null;
  /** Spans around every served operation (the `tracing` option); null or absent: none. */
  readonly tracing?: ServerSpanHook | null;
}

/**
 * A unary answer: JSON (already encoded, so the transport writes the text as is) or text
 * (an HTML page, the Prometheus exposition) with its content type.
 */
export type UnaryOutcome =
  | {
      readonly kind: 'json';
      readonly encoded: EncodedJson;
      readonly replayed: boolean;
      /**
       * An in-process caller's own copy of the answer, made while the answer was measured,
       * when this caller's run made the answer and it is plain JSON; otherwise the caller
       * parses the text. Never kept in the idempotency cache: a replay parses the text.
       */
      readonly value?: unknown;
    }
  | { readonly kind: 'text'; readonly text: string; readonly contentType: string };

/** A unary route that answered with a stream (StreamAnswer): its frames, as openStream's. */
export interface StreamOutcome {
  readonly kind: 'stream';
  readonly frames: AsyncGenerator<StreamFrame, void, undefined>;
  /** The route's own last event for a failure frame (StreamAnswer.failureEvent). */
  readonly failureEvent: (error: ErrorObject) => unknown;
  /** That event's SSE name (StreamAnswer.failureEventName). */
  readonly failureEventName: string | undefined;
}

/** A unary route's StreamAnswer, read inside the request slot and served as a stream after it. */
interface AnsweredStream {
  readonly kind: 'answered_stream';
  readonly answer: StreamAnswer;
}

/** The content type each text operation is answered with. */
const TEXT_CONTENT_TYPES: Readonly<Record<string, string>> = {
  'text/html': 'text/html; charset=utf-8',
  'text/plain': 'text/plain; version=0.0.4; charset=utf-8',
};

/** One frame of a served stream; the one with `final` true is the last. */
export type StreamFrame =
  | {
      readonly ok: true;
      readonly encoded: EncodedJson;
      /** The normalized result the text was made from, for wires that do not send JSON text. */
      readonly value: unknown;
      readonly final: boolean;
      /**
       * An in-process reader's own copy of `value`, made while the event was measured;
       * absent otherwise (the reader parses the text).
       */
      readonly copy?: unknown;
      /** The item's position (StreamItem.eventId), sent where the wire has a place for it. */
      readonly eventId?: string;
      /** The item's SSE event name (StreamItem.eventName). */
      readonly eventName?: string;
    }
  | { readonly ok: false; readonly error: ErrorObject; readonly final: true };

export class Dispatcher {
  private readonly paths = new Map<string, Set<string>>();
  /** Routes with {name} parts in their path, tried only when no exact route matches; null when none. */
  private readonly templates: RouteTemplates<Endpoint> | null = null;
  private readonly idempotency: IdempotencyRunner;
  private readonly inbound: Slots;
  private readonly streams: Slots;
  /** Model-backed work waits here first, holding no other slot (Endpoint.modelBacked). */
  private readonly models: Slots;
  /** Requests and streams being served, counted whatever the metrics setting: shutdown waits for them. */
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  /** The request-ended hook; null without a logger or a hook to make it (then a null check per request). */
  private readonly log: RequestEndedHook | null;

  constructor(
    readonly endpoints: EndpointTable,
    private readonly options: DispatcherOptions,
  ) {
    for (const [key, endpoint] of endpoints) {
      if (endpoint.grpc) continue;
      // A key is `METHOD path`; a path with {name} parts is matched by templates (route-templates.ts).
      const path = key.slice(key.indexOf(' ') + 1);
      if (PathTemplate.isTemplate(path)) {
        (this.templates ??= new RouteTemplates()).add(endpoint.spec.method, path, endpoint);
        continue;
      }
      const methods = this.paths.get(path) ?? new Set();
      methods.add(endpoint.spec.method);
      this.paths.set(path, methods);
    }
    const bounds = {
      ttlSeconds: options.config.idempotencyTtl,
      maxEntries: options.config.idempotencyCacheSize,
      maxWeight: options.config.idempotencyCacheBytes,
    };
    this.idempotency = options.idempotencyStore?.(bounds) ?? new IdempotencyCache(bounds.ttlSeconds, bounds);
    this.inbound = new Slots(options.config.limits.maxConcurrentRequests);
    this.streams = new Slots(options.config.limits.maxConcurrentStreams);
    this.models = new Slots(options.config.limits.maxConcurrentModelRequests);
    const requestLog = options.hooks?.requestLog;
    this.log = options.logger && requestLog ? requestLog(options.logger, options.name) : null;
  }

  /** Whether requests are logged: a transport times the requests it may refuse only then. */
  get logging(): boolean {
    return this.log !== null;
  }

  get config(): ResolvedConfig {
    return this.options.config;
  }

  get metrics(): TransportMetrics {
    return this.options.metrics;
  }

  /**
   * Counts a request the transport refused before it reached the dispatcher (unknown route,
   * unreadable or oversize body), so the metrics show every request that arrived, and logs it
   * when the transport says what it was.
   */
  countRefused(receivedBytes: number, sentBytes: number, refusal?: Refusal): void {
    const { metrics } = this.options;
    metrics.requestStarted();
    metrics.received(receivedBytes);
    metrics.sent(sentBytes);
    metrics.requestFinished(false, performance.now());
    if (refusal) this.log?.refused(refusal);
  }

  /** Logs a refusal that is not a request of the metrics (a websocket handshake turned away). */
  logRefused(refusal: Refusal): void {
    this.log?.refused(refusal);
  }

  /**
   * Reports an error that escaped a connection or call handler (see escaped-error.ts): in the
   * log when there is one, else on stderr.
   */
  reportEscaped(where: string, error: unknown): void {
    const logger = this.options.logger;
    if (logger) logger.error({ err: error, transport: this.options.name, where }, `an error escaped ${where}`);
    else reportEscapedError(where, error);
  }

  /**
   * Resolves once nothing is being served, or after `timeoutMs` (whichever comes first), so a
   * stopping server lets its work finish without waiting forever on it.
   */
  idle(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const waiters = this.idleWaiters;
      function done() {
        clearTimeout(timer);
        const at = waiters.indexOf(done);
        if (at >= 0) waiters.splice(at, 1);
        resolve();
      }
      waiters.push(done);
    });
  }

  private settle(): void {
    if (--this.inFlight > 0 || this.idleWaiters.length === 0) return;
    for (const waiter of this.idleWaiters.slice()) waiter();
  }

  /** The endpoint for a route, or a 404/405 EndpointError. */
  route(method: string, path: string): Endpoint {
    const endpoint = this.routable(method, path);
    if (endpoint) return endpoint;
    const templated = this.templates?.methodsFor(path);
    const allowed = this.paths.get(path) ?? (templated && templated.length > 0 ? templated : undefined);
    if (allowed) {
      throw new EndpointError('method_not_allowed', `${method} is not allowed on ${path}`, {
        allowed: [...allowed].sort(),
      });
    }
    // The commonest slip: a trailing slash too many or too few (`/tasks` for `/tasks/`).
    const near = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    if (this.routable(method, near)) {
      throw new EndpointError('not_found', `no endpoint for ${method} ${path}; did you mean ${method} ${near}?`);
    }
    throw new EndpointError('not_found', `no endpoint for ${method} ${path}`);
  }

  /**
   * The caller's security context for a route: null when the route is public or there is no
   * authenticator, else what the authenticator accepted; a refusal is thrown as an
   * `unauthenticated` EndpointError. Answered at once when the authenticator can
   * (authenticateNow), else a Promise; callers may simply await it (websocket does, at the
   * handshake).
   */
  authenticate(endpoint: Endpoint, credentials: string | null): SecurityContext | null | Promise<SecurityContext | null> {
    const authenticator = this.options.authenticator;
    if (!authenticator || endpoint.spec.public) return null;
    if (credentials === null) throw new EndpointError('unauthenticated', 'credentials are required');
    const refused = (error: unknown): EndpointError => {
      const reason = error instanceof Error ? error.message : String(error);
      return new EndpointError('unauthenticated', reason || 'credentials were rejected');
    };
    let answer: SecurityContext | PromiseLike<SecurityContext>;
    try {
      answer = authenticator.authenticateNow
        ? authenticator.authenticateNow(credentials)
        : authenticator.authenticate(credentials);
    } catch (error) {
      throw refused(error);
    }
    // Any thenable is waited for, not only a native Promise: one taken for a context would
    // let its refusal through.
    if (typeof (answer as Partial<PromiseLike<unknown>> | null)?.then === 'function') {
      return Promise.resolve(answer).then(contextOrRefusal, (error: unknown) => {
        throw refused(error);
      });
    }
    return contextOrRefusal(answer);
  }

  /**
   * Serves a unary request end to end. Errors come back as EndpointError. With tracing on,
   * here and in openStream, the request is served inside its span (the one place tracing hooks in).
   */
  unary(request: InboundRequest, endpoint?: Endpoint): Promise<UnaryOutcome> {
    return this.serveUnaryTraced(request, endpoint, false) as Promise<UnaryOutcome>;
  }

  /**
   * unary for a wire that can also write a unary route's StreamAnswer as a stream (http, as
   * text/event-stream); every other wire refuses such an answer.
   */
  unaryOrStream(request: InboundRequest, endpoint?: Endpoint): Promise<UnaryOutcome | StreamOutcome> {
    return this.serveUnaryTraced(request, endpoint, true);
  }

  private serveUnaryTraced(
    request: InboundRequest,
    endpoint: Endpoint | undefined,
    streams: boolean,
  ): Promise<UnaryOutcome | StreamOutcome> {
    const { tracing } = this.options;
    if (!tracing) return this.serveUnary(request, endpoint, null, streams);
    // Looked up once, for the span's name and for serving (an unknown route is refused there).
    const found = this.lookUp(request, endpoint);
    const serve = (span: SpanHandle | null) => this.serveUnary(request, found, span, streams);
    return tracing.serveUnary(request, found, this.options.name, serve);
  }

  /**
   * Opens a stream: routes, authenticates and validates before the first event, so a
   * transport can still answer with a plain error (it throws EndpointError). Then every event
   * is normalized and size-checked on its own. A failure after the stream opened becomes a
   * final error frame, so every wire ends its streams the same way. The stream slot is held
   * until the frames end or the consumer stops reading.
   */
  openStream(
    request: InboundRequest,
    endpoint?: Endpoint,
    options: { holdSlot?: boolean } = {},
  ): Promise<AsyncGenerator<StreamFrame, void, undefined>> {
    const { tracing } = this.options;
    if (!tracing) return this.serveStream(request, endpoint, options);
    const found = this.lookUp(request, endpoint);
    const open = (span: SpanHandle | null) => this.serveStream(request, found, options, span);
    return tracing.serveStream(request, found, this.options.name, open);
  }

  /** The endpoint a request names, or undefined when no route matches (route() then refuses it). */
  private lookUp(request: InboundRequest, endpoint: Endpoint | undefined): Endpoint | undefined {
    return endpoint ?? this.routable(request.method, request.path);
  }

  /**
   * The table's endpoint for a route (an exact one first, then a template's), unless it is
   * served as a gRPC method only (Endpoint.grpc).
   */
  private routable(method: string, path: string): Endpoint | undefined {
    const endpoint = this.endpoints.get(routeKey(method, path)) ?? this.templates?.find(method, path);
    return endpoint?.grpc ? undefined : endpoint;
  }

  /** `span`: the request's SERVER span, for the handler to refine, when it records. */
  private async serveUnary(
    request: InboundRequest,
    endpoint: Endpoint | undefined,
    span: SpanHandle | null,
    streams: boolean,
  ): Promise<UnaryOutcome | StreamOutcome> {
    const started = performance.now();
    const { metrics } = this.options;
    this.inFlight++;
    metrics.requestStarted();
    metrics.received(request.receivedBytes);
    let operation: string | null = null;
    let security: SecurityContext | null = null;
    try {
      const target = endpoint ?? this.route(request.method, request.path);
      operation = target.spec.name;
      if (target.spec.streaming || !target.unary) {
        throw new EndpointError('invalid_request', `${target.spec.method} ${target.spec.path} is a stream; open it as one`);
      }
      const prepared = this.prepare(target, request, span);
      // Without an authenticator there is nothing to wait for: skip the extra turn.
      const { input, context } = prepared instanceof Promise ? await prepared : prepared;
      security = context.security;
      const run = target.unary;
      let replayable = true;
      let copy: unknown;
      const invoke = async (): Promise<UnaryOutcome | AnsweredStream> => {
        const result = await run(input, context);
        if (result instanceof StreamAnswer) {
          // Its stream slot is waited for once the request slot is given back (below).
          if (streams && !target.spec.idempotent) return { kind: 'answered_stream', answer: result };
          result.abandon();
          throw new EndpointError(
            'invalid_request',
            `${target.spec.method} ${target.spec.path} answered with a stream this wire cannot carry`,
          );
        }
        const textType = TEXT_CONTENT_TYPES[target.spec.responseContentType];
        if (textType) return { kind: 'text', text: String(result), contentType: textType };
        replayable = target.replayable?.(result) ?? true;
        const limit = this.options.config.limits.maxResponseBytes;
        // The answer to a large request is mostly as large (a task carries its messages back):
        // writing its JSON is a heavy step of its own, apart from the validation and the handler.
        if (isLargePayload(request.receivedBytes)) await largePayloadTurn();
        // An in-process caller's own copy comes with it, made in the walk that measures the answer.
        const payload = preparePayload('response', result, limit, request);
        copy = payload.copy;
        return { kind: 'json', encoded: payload.encoded, replayed: false };
      };
      // Control-plane calls (and probes) never wait behind the work they control; model-backed
      // work waits for a model slot before it takes a request slot.
      const signal = () => request.signal;
      const slotted = target.spec.controlPlane
        ? invoke
        : target.modelBacked
          ? () => this.models.run(() => this.inbound.run(invoke, signal), signal)
          : () => this.inbound.run(invoke, signal);
      let outcome: UnaryOutcome | StreamOutcome | AnsweredStream;
      if (target.spec.idempotent && request.idempotencyKey) {
        const principal = context.security?.principal_id ?? null;
        const key = IdempotencyCache.key(target.spec.method, target.spec.path, request.idempotencyKey, principal);
        // An idempotent route never answers as a stream (invoke refuses it): only unary outcomes are kept.
        const once = slotted as () => Promise<UnaryOutcome>;
        const { value, replayed } = await this.idempotency.run(key, once, () => replayable, outcomeBytes, target.replayWhen);
        outcome = replayed && value.kind === 'json' ? { ...value, replayed } : value;
      } else {
        outcome = await slotted();
      }
      // A stream waits for its stream slot holding no request (or model) slot: streams queued
      // behind the open ones must not starve every unary call of the server.
      if (outcome.kind === 'answered_stream')
        outcome = await this.answerAsStream(outcome.answer, request, target, operation, context.security);
      // A stream's events are counted as they are sent.
      if (outcome.kind !== 'stream') metrics.sent(outcomeBytes(outcome));
      metrics.requestFinished(true, started, operation);
      this.log?.unary(request, operation, started, security, null);
      if (copy !== undefined && outcome.kind === 'json' && !outcome.replayed) {
        return { kind: 'json', encoded: outcome.encoded, replayed: false, value: copy };
      }
      return outcome;
    } catch (error) {
      metrics.requestFinished(false, started, operation);
      const failure = toEndpointError(error);
      this.log?.unary(request, operation, started, security, failure);
      throw failure;
    } finally {
      this.settle();
    }
  }

  private async serveStream(
    request: InboundRequest,
    endpoint: Endpoint | undefined,
    options: { holdSlot?: boolean },
    span: SpanHandle | null = null,
  ): Promise<AsyncGenerator<StreamFrame, void, undefined>> {
    const { metrics } = this.options;
    const log = this.log;
    const started = log ? performance.now() : 0;
    let source: AsyncIterable<StreamItem>;
    let release: () => void = () => undefined;
    let operation: string | null = null;
    let security: SecurityContext | null = null;
    let endsWithSource = false;
    try {
      const target = endpoint ?? this.route(request.method, request.path);
      operation = target.spec.name;
      endsWithSource = target.endsWithSource === true;
      if (!target.spec.streaming || !target.stream) {
        throw new EndpointError('invalid_request', `${target.spec.method} ${target.spec.path} is not a stream`);
      }
      const { input, context } = await this.prepare(target, request, span);
      security = context.security;
      // A stream is served no longer than its credentials count: one opened after that is
      // refused, one open then ends with the refusal as its last event (credential-expiry.ts).
      const expiresAt = expiryOf(security);
      if (hasExpired(expiresAt)) throw credentialsExpired();
      if (options.holdSlot !== false) release = await this.streamSlot(target, request.signal);
      source = target.stream(input, context);
      if (expiresAt !== null) source = untilExpired(source, expiresAt);
    } catch (error) {
      // A stream refused before its first event still counts, as a failed one, and gives its
      // slot back if it had one (an endpoint may refuse synchronously, after the slot).
      release();
      metrics.streamStarted();
      metrics.streamFinished(false);
      const failure = toEndpointError(error);
      log?.stream(request, operation, started, security, failure, 0);
      throw failure;
    }
    metrics.received(request.receivedBytes);
    return this.framesOf(request, source, release, operation, security, started, endsWithSource);
  }

  /**
   * A unary route's StreamAnswer, served as a stream: the credentials' expiry and a stream
   * slot as openStream takes them, then the same frames.
   */
  private async answerAsStream(
    answer: StreamAnswer,
    request: InboundRequest,
    target: Endpoint,
    operation: string | null,
    security: SecurityContext | null,
  ): Promise<StreamOutcome> {
    const started = this.log ? performance.now() : 0;
    let source = answer.items;
    let release: () => void = () => undefined;
    try {
      const expiresAt = expiryOf(security);
      if (hasExpired(expiresAt)) throw credentialsExpired();
      release = await this.streamSlot(target, request.signal);
      if (expiresAt !== null) source = untilExpired(source, expiresAt);
    } catch (error) {
      release();
      // The items were never read: let their producer stop.
      answer.abandon();
      throw error;
    }
    const frames = this.framesOf(request, source, release, operation, security, started, false);
    return { kind: 'stream', frames, failureEvent: answer.failureEvent, failureEventName: answer.failureEventName };
  }

  /**
   * A stream's frames from its items: every event normalized and size-checked on its own, a
   * failure after the stream opened as a final error frame, the stream counted, logged and its
   * slot freed once, however it ends.
   */
  private framesOf(
    request: InboundRequest,
    source: AsyncIterable<StreamItem>,
    release: () => void,
    operation: string | null,
    security: SecurityContext | null,
    started: number,
    /** The endpoint's `endsWithSource`: its items end without a final one, and that is a whole stream. */
    endsWithSource: boolean,
  ): AsyncGenerator<StreamFrame, void, undefined> {
    const { metrics, config } = this.options;
    const log = this.log;
    // The request's bytes are counted by whoever opened it (serveStream, or serveUnary for a StreamAnswer).
    metrics.streamStarted();
    this.inFlight++;
    let finished = false;
    let events = 0;
    /** Counts (and logs) the stream and frees its slot, once, however it ends. */
    const finish = (ok: boolean, failure: RequestEnding | null = null) => {
      if (finished) return;
      finished = true;
      const completed = ok && !request.signal.aborted;
      metrics.streamFinished(completed);
      release();
      this.settle();
      log?.stream(request, operation, started, security, completed ? null : (failure ?? CLIENT_CLOSED), events);
    };
    const limit = config.limits.maxEventBytes;
    const frames = async function* (): AsyncGenerator<StreamFrame, void, undefined> {
      let ok = false;
      let failure: ErrorObject | null = null;
      try {
        for await (const item of source) {
          const value = item.encoded ? item.result : normalizeJson(item.result);
          const payload = prepareEvent(value, item.encoded, limit, request);
          const frame: StreamFrame = { ok: true, encoded: payload.encoded, value, final: item.final, copy: payload.copy };
          if (item.eventId !== undefined) (frame as { eventId?: string }).eventId = item.eventId;
          if (item.eventName !== undefined) (frame as { eventName?: string }).eventName = item.eventName;
          metrics.sent(frame.encoded.bytes);
          // Marked before the yield: a consumer may stop reading once it has the final frame.
          if (item.final) ok = true;
          events++;
          yield frame;
          if (item.final) return;
        }
        if (endsWithSource) {
          ok = true;
          return;
        }
        failure = new EndpointError('internal', 'the stream handler ended without a final event').toObject(request.requestId);
        yield { ok: false, error: failure, final: true };
      } catch (error) {
        if (request.signal.aborted) return;
        failure = toEndpointError(error).toObject(request.requestId);
        yield { ok: false, error: failure, final: true };
      } finally {
        finish(ok, failure);
      }
    };
    const stream = frames();
    // A generator closed before its first step skips its body, finally included (a caller
    // that left while the stream was being opened): the slot is freed here then.
    const close = stream.return.bind(stream);
    stream.return = (value) => close(value).finally(() => finish(false));
    return stream;
  }

  /** A stream slot, after a model slot for model-backed work; the release frees both. */
  private async streamSlot(endpoint: Endpoint, signal: AbortSignal): Promise<() => void> {
    if (!endpoint.modelBacked) return this.streams.acquire(signal);
    const model = await this.models.acquire(signal);
    try {
      const stream = await this.streams.acquire(signal);
      return () => {
        stream();
        model();
      };
    } catch (error) {
      model();
      throw error;
    }
  }

  /** Authenticates, checks size and schema, and says what the handler receives. */
  private prepare(endpoint: Endpoint, request: InboundRequest, span: SpanHandle | null): Prepared | Promise<Prepared> {
    const needsAuthenticator = this.options.authenticator !== null && !endpoint.spec.public;
    if (!needsAuthenticator) return this.admit(endpoint, request, null, span);
    if (request.authenticated !== undefined) {
      // A context kept from a connection's handshake serves each request only until it expires.
      assertNotExpired(request.authenticated);
      return this.admit(endpoint, request, request.authenticated, span);
    }
    const security = this.authenticate(endpoint, request.credentials);
    // An authenticator that answered at once adds no turn (API keys, a JWT verified before).
    if (security instanceof Promise) return security.then((context) => this.admit(endpoint, request, context, span));
    return this.admit(endpoint, request, security, span);
  }

  private admit(
    endpoint: Endpoint,
    request: InboundRequest,
    security: SecurityContext | null,
    span: SpanHandle | null,
  ): Prepared {
    assertWithin('request', request.receivedBytes, this.options.config.limits.maxRequestBytes, request);
    const { spec } = endpoint;
    // Body operations get the body; query operations (registry discovery) get the parameters. An
    // endpoint that reads its body itself (rawBody: A2A's bindings) gets the raw body, which holds
    // the headers and path too, and checks what it reads in its own protocol's terms.
    const input = endpoint.rawBody ? request.data : spec.request ? request.data : spec.query ? request.params : undefined;
    const schema = endpoint.rawBody ? null : (spec.request ?? spec.query);
    if (schema && isSchemaName(schema)) {
      const checked = validate(schema, input);
      if (!checked.valid) throw EndpointError.invalidRequest(spec.request ? 'request body' : 'query', checked.errors);
    }
    return { input, context: new HandlerContext(request, security, this.options.name, this.options.url(), span) };
  }
}

/**
 * What an authenticator accepted, which must be a security context: an object with
 * `principal_id` and `token` strings. An answer without one (undefined from a forgotten return,
 * null, an array, a context missing its token) refuses the request rather than admit a caller
 * nobody named. Only those two fields are checked on every request (the full schema's
 * date-time formats cost more than the API key check itself; the expiry check reads
 * `expires_at` with its own errors); the schema describes what is wrong with a refused one.
 */
function contextOrRefusal(answer: unknown): SecurityContext {
  const context = answer as Partial<SecurityContext> | null;
  if (
    typeof context === 'object' &&
    context !== null &&
    !Array.isArray(context) &&
    typeof context.principal_id === 'string' &&
    typeof context.token === 'string'
  ) {
    return context as SecurityContext;
  }
  const checked = validateSecurityContext(answer);
  const reasons = checked.valid ? [] : checked.errors.map((issue) => `${issue.pointer || '(the answer)'} ${issue.message}`);
  throw new EndpointError(
    'unauthenticated',
    `the authenticator accepted the credentials without a security context (${reasons.join('; ')})`,
  );
}

/** What a stored answer weighs in the idempotency cache: the bytes it is sent as. */
function outcomeBytes(outcome: UnaryOutcome): number {
  return outcome.kind === 'json' ? outcome.encoded.bytes : Buffer.byteLength(outcome.text);
}

interface Prepared {
  readonly input: unknown;
  readonly context: RequestContext;
}

/**
 * What a handler sees of its request. A class rather than an object literal: the signal is
 * read through a prototype getter (so one is only made for handlers that look at it), and
 * literals with accessors are slow to create in V8.
 */
class HandlerContext implements RequestContext {
  readonly requestId: string;
  readonly idempotencyKey: string | null;
  readonly params: QueryParams;

  constructor(
    private readonly request: InboundRequest,
    readonly security: SecurityContext | null,
    readonly transport: TransportName,
    readonly url: string,
    readonly span: SpanHandle | null,
  ) {
    this.requestId = request.requestId;
    this.idempotencyKey = request.idempotencyKey;
    this.params = request.params;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}
