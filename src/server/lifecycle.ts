// The lifecycle an agent server and a registry server share: one transport, built at the first
// start from the options (or given ready), and the steps around it. start() resolves the logger
// (a missing pino fails before anything opens), opens the server's stores, builds the endpoint
// table, starts metrics and then the transport; only then is the server running, and a failing
// step undoes the ones before it. stop() leaves what the server has joined, stops the transport
// (readiness off, drain within shutdown_timeout, close) while the server finishes its own work in
// the same window (an agent's queued tasks), then metrics, then closes the stores;
// a failing step leaves the server running. It is the composer of the server's transport: it
// hands observability's hooks (request log, tracing) to it, so the pipeline imports neither.
import type { OperationSpec } from '../../generated/operations/spec.js';
import type { Health } from '../../generated/types/index.js';
import type { Authenticator } from '../auth/authenticator.js';
import { StateError } from '../core/errors.js';
import { observabilityHooks } from '../observability/hooks.js';
import { resolveLogger, type Logger, type LoggerOption } from '../observability/logger.js';
import type { MetricsOptions, MetricsSource } from '../observability/prometheus-metrics.js';
import type { TransportName } from '../transport/capabilities.js';
import type { Endpoint } from '../transport/endpoint.js';
import { EndpointError } from '../transport/endpoint-error.js';
import { createTransport, resolveTransportName } from '../transport/factory.js';
import type { Transport, TransportOptions } from '../transport/transport.js';
import { MetricsExposure, metricsOptions, unmountMetrics } from './metrics-exposure.js';

/** The options every server over a transport has: AgentServerOptions and RegistryServerOptions extend them. */
export interface ServerLifecycleOptions {
  /** A transport name (`http`, `sse`, `websocket`, `grpc`, `runtime`) or a ready Transport. */
  readonly transport?: string | Transport;
  /** Where to listen: `http://127.0.0.1:8080`, `runtime://echo`, ... Ignored for a ready Transport. Default `http://127.0.0.1:0`. */
  readonly url?: string;
  /** Options for the transport built from `transport` and `url`. */
  readonly transportOptions?: Omit<TransportOptions, 'authenticator'>;
  /** Verifies credentials on every route but the public ones (/healthz, /readyz, the status page, ...). */
  readonly authenticator?: Authenticator;
  /**
   * Prometheus metrics (needs prom-client): GET /metrics on http and sse, and on a listener of
   * its own when a `url` is given (for websocket and grpc). `true` for the defaults. Off by default.
   */
  readonly metrics?: boolean | MetricsOptions;
  /**
   * Structured logs through pino (optional dependency): a line when the server listens and
   * stops, one per request (docs/operations.md, Logs) and errors that escaped a handler. A
   * pino logger (or any with pino's level methods and isLevelEnabled), or options: `level`,
   * `destination` (default stdout), `pretty`. Off by default: a library stays quiet unless asked.
   */
  readonly logger?: LoggerOption;
  /**
   * OpenTelemetry tracing (needs @opentelemetry/api): a SERVER span for every served operation,
   * a child of the caller's W3C trace context, with the handler running inside it (so an agent's
   * calls through an AgentClient with `tracing` on continue the trace). Spans go to the SDK the
   * application registered (docs/operations.md). Ignored for a ready Transport, which has its
   * own option. Off by default.
   */
  readonly tracing?: boolean;
}

export abstract class ServerLifecycle {
  private transportInstance: Transport | null;
  private running = false;
  /** The stop under way; null when none is. */
  private stopping: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private metricsExposure: MetricsExposure | null = null;
  private resolvedLogger: Logger | null = null;

  /**
   * `kind` names the server in its errors (`agent`, `registry`); `metricsSpec` is its GET /metrics
   * operation. A transport given by name is checked here, so a bad name fails construction.
   */
  protected constructor(
    private readonly served: ServerLifecycleOptions,
    private readonly kind: string,
    private readonly metricsSpec: OperationSpec,
  ) {
    if (typeof served.transport === 'string' || served.transport === undefined) {
      resolveTransportName(served.transport ?? 'http');
      this.transportInstance = null;
    } else {
      this.transportInstance = served.transport;
    }
  }

  /** Opens what the server keeps its state in; called at start, before anything listens. */
  protected abstract openStores(): Promise<void>;

  /** Closes what openStores() opened: at stop, and when a start fails after it. */
  protected abstract closeStores(): Promise<void>;

  /** The server's endpoint table over `transport`, built anew at every start. */
  protected abstract buildEndpoints(transport: Transport): Map<string, Endpoint>;

  /** Transport options of the server's own, over the shared ones; read once the stores are open. */
  protected extraTransportOptions(): Partial<TransportOptions> {
    return {};
  }

  /** What the Prometheus metrics read. */
  protected metricsSource(transport: Transport): MetricsSource {
    return { transport: transport.name, metrics: transport.metrics };
  }

  /**
   * Work of the server's own to finish while the transport drains (given the same window, in
   * milliseconds), before the stores close; nothing by default.
   */
  protected draining(_windowMs: number): Promise<void> | undefined {
    return undefined;
  }

  /** Called once the server is running. */
  protected started(): void {}

  /** What to leave before serving stops (readiness is already off); nothing by default. */
  protected leaving(): Promise<void> | undefined {
    return undefined;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** The transport; available once start() has built it. */
  get transport(): Transport {
    if (!this.transportInstance) throw new StateError(`the ${this.kind} has not been started yet`);
    return this.transportInstance;
  }

  get url(): string {
    return this.transport.url;
  }

  /** The transport's name, known from construction on (a ready transport's, or the one named). */
  protected get transportName(): TransportName {
    return this.transportInstance?.name ?? resolveTransportName((this.served.transport as string | undefined) ?? 'http');
  }

  async start(): Promise<void> {
    if (this.running) return;
    // Concurrent callers share one start: otherwise each would build its own transport.
    this.starting ??= this.startOnce().finally(() => (this.starting = null));
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    // Before anything is opened: a missing pino fails the start with nothing to undo.
    const logger = await resolveLogger(this.served.logger);
    this.resolvedLogger = logger;
    // A store that cannot be reached fails the start here, before anything listens.
    await this.openStores();
    try {
      const transport = (this.transportInstance ??= await createTransport(
        (this.served.transport as string | undefined) ?? 'http',
        this.served.url ?? 'http://127.0.0.1:0',
        {
          ...this.served.transportOptions,
          tracing: this.served.tracing ?? this.served.transportOptions?.tracing,
          hooks: this.served.transportOptions?.hooks ?? observabilityHooks,
          authenticator: this.served.authenticator,
          ...this.extraTransportOptions(),
        },
      ));
      const endpoints = this.buildEndpoints(transport);
      const metrics = metricsOptions(this.served.metrics);
      if (metrics) {
        const source = this.metricsSource(transport);
        this.metricsExposure = await MetricsExposure.start(metrics, source, this.metricsSpec, this.served.authenticator ?? null);
        this.metricsExposure.mount(endpoints, this.metricsSpec);
      } else {
        unmountMetrics(endpoints, this.metricsSpec);
      }
      // A ready Transport made without hooks still gets its request lines.
      await transport.start(endpoints, { logger, hooks: this.served.transportOptions?.hooks ?? observabilityHooks });
    } catch (error) {
      await this.stopMetrics();
      await this.closeStores();
      throw error;
    }
    this.running = true;
    this.started();
  }

  stop(): Promise<void> {
    if (!this.running) return Promise.resolve();
    // A stop called while one is under way (a signal handler and a test's cleanup, say) waits
    // for that one: the registry is left, the transport drained and the stores closed once.
    this.stopping ??= this.stopSteps().finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }

  private async stopSteps(): Promise<void> {
    // Readiness off first, in this turn: probes must not see `ready` while the server leaves
    // its registry (which may take a while) or drains.
    this.transport.withdraw();
    await this.leaving();
    // Side by side: the requests in flight and the server's own work get the same drain window.
    await Promise.all([this.transport.stop(), this.draining(this.transport.config.shutdownTimeout * 1000)]);
    await this.stopMetrics();
    await this.closeStores();
    this.running = false;
  }

  /** The logger the `logger` option resolved to at start; null without one (or before start). */
  protected get logger(): Logger | null {
    return this.resolvedLogger;
  }

  /** The full scrape URL (ending in `/metrics`) of the listener of its own that the `metrics` option's url adds; null without one. */
  get metricsUrl(): string | null {
    return this.metricsExposure?.url ?? null;
  }

  /** The Prometheus exposition (GET /metrics); the route exists only with the `metrics` option. */
  getMetrics(): Promise<string> {
    if (!this.metricsExposure) {
      return Promise.reject(new EndpointError('not_found', `metrics are not enabled on this ${this.kind}`));
    }
    return this.metricsExposure.prometheus.text();
  }

  healthz(): Health {
    return this.transport.health();
  }

  /** Answers 503 once stop has begun, while requests in flight finish. */
  readyz(): Health {
    return this.transport.readiness();
  }

  private async stopMetrics(): Promise<void> {
    const exposure = this.metricsExposure;
    this.metricsExposure = null;
    await exposure?.stop();
  }
}
