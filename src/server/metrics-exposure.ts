// Where a server's Prometheus metrics are scraped: GET /metrics on its own transport when that
// transport serves pages (http, sse), and on a small http listener of its own when the
// `metrics` option gives a URL (the way for websocket and grpc). The route follows the
// server's authenticator unless the option makes it public.
import type { OperationSpec } from '../../generated/operations/spec.js';
import type { Authenticator } from '../auth/authenticator.js';
import { routeKey, type Endpoint } from '../transport/endpoint.js';
import { createTransport } from '../transport/factory.js';
import type { Transport } from '../transport/transport.js';
import { PrometheusMetrics, type MetricsOptions, type MetricsSource } from '../observability/prometheus-metrics.js';

/** The `metrics` option as given (`true` for the defaults) made into options, or null when off. */
export function metricsOptions(option: boolean | MetricsOptions | undefined): MetricsOptions | null {
  if (option === undefined || option === false) return null;
  return option === true ? {} : option;
}

export class MetricsExposure {
  private constructor(
    readonly prometheus: PrometheusMetrics,
    private readonly options: MetricsOptions,
    private listener: Transport | null,
  ) {}

  /** Starts collecting from `source` and, when the options give a URL, serving there. */
  static async start(
    options: MetricsOptions,
    source: MetricsSource,
    spec: OperationSpec,
    authenticator: Authenticator | null,
  ): Promise<MetricsExposure> {
    const prometheus = await PrometheusMetrics.create(source, options);
    let listener: Transport | null = null;
    if (options.url !== undefined) {
      // Scrapes are not the server's traffic: this listener keeps no counters of its own.
      listener = await createTransport('http', options.url, { authenticator: authenticator ?? undefined, collectMetrics: false });
      const table = new Map<string, Endpoint>([[routeKey(spec.method, spec.path), metricsEndpoint(spec, prometheus, options)]]);
      try {
        await listener.start(table);
      } catch (error) {
        prometheus.detach();
        throw error;
      }
    }
    return new MetricsExposure(prometheus, options, listener);
  }

  /** Where the separate listener serves GET /metrics; null without one. */
  get url(): string | null {
    return this.listener ? `${this.listener.url}/metrics` : null;
  }

  /** Puts the route in a server's table where the table has it (transports with pages), public when configured. */
  mount(table: Map<string, Endpoint>, spec: OperationSpec): void {
    const key = routeKey(spec.method, spec.path);
    if (table.has(key)) table.set(key, metricsEndpoint(spec, this.prometheus, this.options));
  }

  async stop(): Promise<void> {
    this.prometheus.detach();
    const listener = this.listener;
    this.listener = null;
    await listener?.stop();
  }
}

/** Takes GET /metrics out of a server's table: metrics are off. */
export function unmountMetrics(table: Map<string, Endpoint>, spec: OperationSpec): void {
  table.delete(routeKey(spec.method, spec.path));
}

function metricsEndpoint(spec: OperationSpec, prometheus: PrometheusMetrics, options: MetricsOptions): Endpoint {
  return { spec: options.public ? { ...spec, public: true } : spec, unary: () => prometheus.text() };
}
