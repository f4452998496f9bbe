// A transport: one wire, both roles. As a server it serves an endpoint table; as a client it
// calls a peer. The wire-specific parts come from a binding (src/transport/<name>/); the
// lifecycle, health, metrics, limits, retry and idempotency are the same for all.
import type { OperationSpec, OperationInvoker } from '../../generated/operations/spec.js';
import type { Health, SecurityContext } from '../../generated/types/index.js';
import { StateError } from '../core/errors.js';
import type { Authenticator } from '../auth/authenticator.js';
import { type AuthHeaderSource, type ClientAuth, clientAuthHeaders } from '../auth/client-auth.js';
import { credentialHeaders } from '../auth/credentials.js';
import { InvalidArgumentError } from '../core/errors.js';
import { clientTlsOptions } from '../tls/node-tls-options.js';
import { splitTlsOption, type TlsMaterial, type TransportTlsOptions } from '../tls/tls-material.js';
import type { BindingContext, TransportBinding, TransportClient, TransportServer } from './binding.js';
import type { Capabilities, Capability, TransportName } from './capabilities.js';
import { ResolvedConfig, type TransportConfigOptions } from './config.js';
import { Dispatcher } from './dispatcher.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { EndpointTable } from './endpoint.js';
import { EndpointError } from './endpoint-error.js';
import type { ClientSpanHook, Logger, ServerSpanHook, TransportHooks } from './hooks.js';
import { TransportMetrics } from './metrics.js';
import { Outbound, type OutboundOptions } from './outbound.js';
import { parseTransportUrl } from './url.js';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export interface TransportOptions extends Omit<TransportConfigOptions, 'tls'> {
  /**
   * Client side: what is sent to protected peers, `{ apiKey }` (X-API-Key), `{ bearer }`
   * (Authorization: Bearer; a string, or a function returning the current token, called before
   * each call) or `{ basic: { user, password } }`. Needs no authenticator. Over websocket the
   * token is sent at the handshake: a different token opens a new connection, so a function
   * should return the same token until it has to change.
   */
  auth?: ClientAuth;
  /**
   * TLS, used when the URL scheme is a secure one: the configuration's files and checks
   * (certfile, keyfile, cafile, requireClientCert, checkHostname) and, for clients, the same
   * material in memory (`ca`, `cert`, `key` as PEM) and `servername`.
   */
  tls?: TransportTlsOptions | null;
  /** Server side: verifies credentials on protected routes. Client side: turns `credentials` into a context. */
  authenticator?: Authenticator;
  /**
   * Client side, with `authenticator`: the raw credential sent to peers, authenticated lazily on
   * first use (how a server's own outbound calls reuse its scheme). Clients without an
   * authenticator use `auth`.
   */
  credentials?: string;
  /** Server side: idempotency records shared by several replicas (e.g. on Redis); default in process. */
  idempotencyStore?: IdempotencyStore;
  /**
   * OpenTelemetry spans (needs @opentelemetry/api): a SERVER span around every served operation
   * and a CLIENT span around every call, with W3C trace context read from and sent to peers.
   * Spans go to whatever SDK the application registered. Default false. The spans come from
   * `hooks.loadTracing` (AgentClient, RegistryClient and both servers install observability's);
   * without it a traced transport fails its first start or call.
   */
  tracing?: boolean;
  /**
   * Where cross-cutting concerns plug in (transport/hooks.ts): the request log and the tracer.
   * `observabilityHooks` is parley's own; absent, a started server writes no request lines.
   */
  hooks?: TransportHooks;
}

type SpanHooks = ServerSpanHook & ClientSpanHook;

// `draining`: stop has begun; requests in flight (and any still arriving) are served, readiness is off.
type LifecycleState = 'stopped' | 'starting' | 'ready' | 'draining' | 'stopping';

export class Transport implements OperationInvoker {
  readonly name: TransportName;
  /** The spec's five flags, as the health payload reports them. */
  readonly capabilities: Capabilities;
  readonly config: ResolvedConfig;
  readonly metrics: TransportMetrics;
  readonly authenticator: Authenticator | null;
  private readonly credentials: string | null;
  /** The `auth` option's headers; null when the old credentials + authenticator path (or nothing) is used. */
  private readonly clientAuth: AuthHeaderSource | null;
  private readonly tlsMaterial: TlsMaterial | null;
  private readonly idempotencyStore: IdempotencyStore | null;
  private boundUrl: string;
  private state: LifecycleState = 'stopped';
  /** Readiness turned off ahead of stop() while calls are still served (see withdraw()). */
  private withdrawn = false;
  private transition: Promise<void> | null = null;
  private server: TransportServer | null = null;
  private dispatcher: Dispatcher | null = null;
  private stopping: Promise<void> | null = null;
  private clientInstance: TransportClient | null = null;
  private security: Promise<SecurityContext> | null = null;
  private readonly outbound: Outbound;
  /** Where this start's lifecycle and request lines go; null logs nothing. */
  private logger: Logger | null = null;
  private readonly traced: boolean;
  private readonly hooks: TransportHooks | null;
  /** Loaded on first need when `traced`; a promise while @opentelemetry/api loads. */
  private tracer: SpanHooks | Promise<SpanHooks> | null = null;

  constructor(
    private readonly binding: TransportBinding,
    url: string,
    options: TransportOptions = {},
  ) {
    this.name = binding.name;
    const { pages: _pages, ...capabilities } = binding.capabilities;
    this.capabilities = Object.freeze(capabilities);
    parseTransportUrl(binding, url);
    this.boundUrl = url;
    const { authenticator, credentials, auth, idempotencyStore, tracing, hooks, tls, ...config } = options;
    if (auth !== undefined && credentials !== undefined) {
      throw new InvalidArgumentError('give auth, or credentials with an authenticator, not both', 'invalid_auth');
    }
    this.clientAuth = auth === undefined ? null : clientAuthHeaders(auth);
    const { settings, material } = splitTlsOption(tls);
    this.tlsMaterial = material;
    this.traced = tracing === true;
    this.hooks = hooks ?? null;
    this.config = new ResolvedConfig(tls === undefined ? config : { ...config, tls: settings });
    this.metrics = new TransportMetrics(this.config.collectMetrics);
    this.authenticator = authenticator ?? null;
    this.credentials = credentials ?? null;
    this.idempotencyStore = idempotencyStore ?? null;
    this.outbound = new Outbound({
      name: this.name,
      url: () => this.boundUrl,
      config: this.config,
      metrics: this.metrics,
      client: () => (this.clientInstance ??= this.binding.createClient(this.bindingContext())),
      authHeaders: () => this.authHeaders(),
      tracing: () => this.tracing(),
    });
  }

  /** The transport URL; after start, the address actually bound. */
  get url(): string {
    return this.boundUrl;
  }

  /** Whether this transport can do `capability`: one of the spec's five, or serving HTML `pages`. */
  supports(capability: Capability): boolean {
    return this.binding.capabilities[capability];
  }

  get ready(): boolean {
    return this.state === 'ready' && !this.withdrawn;
  }

  /**
   * Turns readiness off while the server still serves: a server that has something to leave
   * before it stops (its registry) calls this first, so probes and load balancers take it out
   * at once rather than after the leave. stop() drains as usual; readiness comes back with the
   * start after that stop (a start while still serving does nothing, this included).
   */
  withdraw(): void {
    if (this.state === 'ready') this.withdrawn = true;
  }

  /**
   * Serves `endpoints`. A second start while running does nothing. With a `logger`, the server
   * logs when it listens and stops, one line per request, and errors that escape its handlers.
   */
  async start(
    endpoints: EndpointTable,
    options: { readonly logger?: Logger | null; readonly hooks?: TransportHooks | null } = {},
  ): Promise<void> {
    if (this.state === 'ready') return;
    if (this.transition) return this.transition;
    this.state = 'starting';
    this.transition = (async () => {
      // A missing @opentelemetry/api fails the start, before anything listens.
      const tracing = this.traced ? await this.tracing() : null;
      const server = this.binding.createServer(this.bindingContext());
      const logger = options.logger ?? null;
      const dispatcher = new Dispatcher(endpoints, {
        name: this.name,
        url: () => this.boundUrl,
        config: this.config,
        metrics: this.metrics,
        authenticator: this.authenticator,
        idempotencyStore: this.idempotencyStore,
        logger,
        hooks: options.hooks ?? this.hooks,
        tracing,
      });
      try {
        this.boundUrl = await server.listen(this.boundUrl, dispatcher);
        this.server = server;
        this.dispatcher = dispatcher;
        this.logger = logger;
        this.withdrawn = false;
        this.state = 'ready';
        logger?.info({ transport: this.name, url: this.boundUrl }, 'listening');
      } catch (error) {
        this.state = 'stopped';
        throw error;
      }
    })().finally(() => (this.transition = null));
    return this.transition;
  }

  /**
   * Stops serving, gracefully: readiness turns off first (readyz answers 503, so a load balancer
   * drains this instance), the requests and streams in flight get up to `shutdownTimeout`
   * seconds to finish, then the server stops accepting and closes its connections (each again
   * within `shutdownTimeout`). Safe to repeat.
   */
  stop(): Promise<void> {
    // Concurrent callers share one stop: a second must not cut short the first one's drain.
    this.stopping ??= this.stopOnce().finally(() => (this.stopping = null));
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    if (this.transition) await this.transition.catch(() => undefined);
    const server = this.server;
    const client = this.clientInstance;
    if (!server && !client) {
      this.state = 'stopped';
      return;
    }
    const dispatcher = this.dispatcher;
    const logger = server ? this.logger : null;
    this.logger = null;
    const fields = { transport: this.name, url: this.boundUrl };
    logger?.info(fields, 'stopping');
    if (dispatcher && this.state === 'ready') {
      this.state = 'draining';
      await dispatcher.idle(this.config.shutdownTimeout * 1000);
    }
    this.dispatcher = null;
    this.state = 'stopping';
    this.server = null;
    this.clientInstance = null;
    try {
      await Promise.all([server?.close(), client?.close()]);
    } finally {
      this.state = 'stopped';
      logger?.info(fields, 'stopped');
    }
  }

  health(): Health {
    const ready = this.ready;
    return {
      status: ready ? 'ready' : 'stopped',
      ready,
      transport: this.name,
      url: this.boundUrl,
      capabilities: { ...this.capabilities },
      metrics: this.metrics.snapshot(),
    };
  }

  /**
   * The readyz answer: the health payload while serving, a 503 `unavailable` (the payload in
   * its details) once stop has begun, so load balancers and probes take the instance out.
   */
  readiness(): Health {
    const health = this.health();
    if (!health.ready) throw new EndpointError('unavailable', `the ${this.name} server is shutting down`, health);
    return health;
  }

  /** Calls a unary operation on the peer at this transport's URL. */
  unary(spec: OperationSpec, request: unknown, options?: OutboundOptions): Promise<unknown> {
    return this.outbound.unary(spec, request, options);
  }

  /** Opens a stream on the peer; yields each event's result until the final one. */
  stream(spec: OperationSpec, request: unknown, options?: OutboundOptions): AsyncIterable<unknown> {
    return this.outbound.stream(spec, request, options);
  }

  /** Authenticates the configured credentials once and caches the context. */
  authenticate(): Promise<SecurityContext> {
    if (!this.authenticator) throw new StateError('this transport has no authenticator configured');
    const authenticator = this.authenticator;
    this.security ??= authenticator.authenticate(this.credentials ?? '').catch((error: unknown) => {
      this.security = null;
      throw error;
    });
    return this.security;
  }

  /** The tracer when tracing is on; a promise only until @opentelemetry/api has loaded. */
  private tracing(): SpanHooks | Promise<SpanHooks> | null {
    if (!this.traced) return null;
    const load = this.hooks?.loadTracing ?? missingTracing;
    this.tracer ??= load().then(
      (loaded) => (this.tracer = loaded),
      (error: unknown) => {
        this.tracer = null;
        throw error;
      },
    );
    return this.tracer;
  }

  /** Headers for the configured credentials; nothing to wait for when there are none. */
  private authHeaders(): Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>> {
    if (this.clientAuth) return this.clientAuth();
    if (!this.authenticator) return NO_HEADERS;
    const scheme = this.authenticator.scheme;
    return this.authenticate().then((context) => credentialHeaders(scheme, context));
  }

  private bindingContext(): BindingContext {
    const { config, tlsMaterial } = this;
    return { name: this.name, config, metrics: this.metrics, clientTls: () => clientTlsOptions(config.tls, tlsMaterial) };
  }
}

/** A traced transport nobody gave a tracer: say which option is missing, at the first start or call. */
function missingTracing(): Promise<never> {
  return Promise.reject(
    new StateError("tracing is on but no tracer was handed in: pass `hooks: observabilityHooks` (from 'parley-agents')"),
  );
}
