// The Prometheus view of a server: its transport's counters (the spec's health metrics) as
// counters and gauges, a latency histogram per operation, task states, and the process metrics
// prom-client collects by default, all in a registry of its own so two servers in one process
// never mix their numbers. prom-client is optional: it is loaded when metrics are switched on.
import type * as PromClient from 'prom-client';
import { importOptional } from '../core/errors.js';
import { lazyLoader } from '../core/lazy-import.js';
import type { MetricsSnapshot, TransportMetrics } from '../transport/metrics.js';
import { LatencyHistogram } from './latency-histogram.js';
import { PUSH_DELIVERY_OUTCOMES, type PushDeliveryWatch } from './push-delivery-watch.js';

/** The `metrics` option of AgentServer and RegistryServer. */
export interface MetricsOptions {
  /** Serve GET /metrics without credentials. Default false: it needs them whenever the server has an authenticator. */
  readonly public?: boolean;
  /**
   * Also serve GET /metrics over http at this URL (`http://127.0.0.1:9464`): the way to scrape
   * transports that serve no pages (websocket, grpc). On http and sse it is served on the
   * transport's own port as well.
   */
  readonly url?: string;
  /** Collect prom-client's default process metrics (CPU, memory, event loop lag). Default true. */
  readonly processMetrics?: boolean;
}

/** What a server exposes: its transport's counters and, for an agent, how many tasks are in each state. */
export interface MetricsSource {
  readonly transport: string;
  readonly metrics: TransportMetrics;
  readonly tasks?: () => Readonly<Record<string, number | undefined>>;
  /** An agent that delivers A2A push notifications: where each webhook call's end is reported. */
  readonly pushDeliveries?: PushDeliveryWatch;
}

/** Upper bounds of the latency histogram, in seconds: sub-millisecond local calls to slow model runs. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Upper bounds of the push delivery histogram, in seconds: a local receiver to retries over a minute. */
const PUSH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Each spec counter, its Prometheus name and help; total_latency_ms is exported in seconds. */
const COUNTERS: readonly (readonly [keyof MetricsSnapshot, string, string])[] = [
  ['requests_started', 'parley_requests_started_total', 'Requests received (served) or made (called), refused ones included.'],
  ['requests_succeeded', 'parley_requests_succeeded_total', 'Requests that ended with a success answer.'],
  ['requests_failed', 'parley_requests_failed_total', 'Requests that ended with an error answer.'],
  ['retries', 'parley_retries_total', 'Retried attempts of idempotent calls.'],
  ['streams_started', 'parley_streams_started_total', 'Streams opened, refused ones included.'],
  ['streams_completed', 'parley_streams_completed_total', 'Streams that ended with their final event.'],
  ['streams_failed', 'parley_streams_failed_total', 'Streams that ended with an error or were cut.'],
  ['bytes_sent', 'parley_bytes_sent_total', 'Payload bytes sent.'],
  ['bytes_received', 'parley_bytes_received_total', 'Payload bytes received.'],
];

const GAUGES: readonly (readonly [keyof MetricsSnapshot, string, string])[] = [
  ['active_requests', 'parley_active_requests', 'Requests in flight.'],
  ['active_streams', 'parley_active_streams', 'Streams open.'],
];

const loadPromClient = lazyLoader(() => importOptional<typeof PromClient>('prom-client', 'Prometheus metrics'));

export class PrometheusMetrics {
  private constructor(
    private readonly registry: PromClient.Registry,
    private readonly source: MetricsSource,
  ) {}

  /**
   * Loads prom-client (a MissingDependencyError when it is not installed) and starts watching
   * `source`: its counters are read at each scrape, its request latencies as they happen.
   */
  static async create(source: MetricsSource, options: MetricsOptions = {}): Promise<PrometheusMetrics> {
    const prom = await loadPromClient();
    // The CommonJS build arrives as a default export under some loaders.
    const client = ((prom as unknown as { default?: typeof PromClient }).default ?? prom) as typeof PromClient;
    const registry = new client.Registry();
    if (options.processMetrics !== false) client.collectDefaultMetrics({ register: registry });
    const labels = { transport: source.transport };
    for (const [field, name, help] of COUNTERS) {
      new client.Counter({
        name,
        help,
        labelNames: ['transport'],
        registers: [registry],
        collect() {
          this.reset();
          this.inc(labels, source.metrics.snapshot()[field]);
        },
      });
    }
    new client.Counter({
      name: 'parley_request_latency_seconds_total',
      help: 'Time spent on requests, summed (the spec total_latency_ms, in seconds).',
      labelNames: ['transport'],
      registers: [registry],
      collect() {
        this.reset();
        this.inc(labels, source.metrics.snapshot().total_latency_ms / 1000);
      },
    });
    for (const [field, name, help] of GAUGES) {
      new client.Gauge({
        name,
        help,
        labelNames: ['transport'],
        registers: [registry],
        collect() {
          this.set(labels, source.metrics.snapshot()[field]);
        },
      });
    }
    const tasks = source.tasks;
    if (tasks) {
      new client.Gauge({
        name: 'parley_tasks',
        help: 'Tasks the agent holds (active and recently finished), by state.',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [state, count] of Object.entries(tasks())) this.set({ state }, count ?? 0);
        },
      });
    }
    const histogram = new LatencyHistogram(
      'parley_request_duration_seconds',
      'Duration of served requests, by operation and outcome.',
      LATENCY_BUCKETS,
      source.transport,
    );
    // The registry takes any metric that answers get() as prom-client's do.
    registry.registerMetric(histogram as unknown as PromClient.Metric);
    source.metrics.observer = (operation, ok, seconds) => histogram.observe(operation, ok, seconds);
    if (source.pushDeliveries) watchPushDeliveries(client, registry, source.pushDeliveries);
    return new PrometheusMetrics(registry, source);
  }

  /** The exposition text of every metric, as GET /metrics answers. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Stops watching the transport's requests. */
  detach(): void {
    this.source.metrics.observer = null;
    if (this.source.pushDeliveries) this.source.pushDeliveries.observer = null;
  }
}

/** The push delivery counter and duration histogram, fed by `watch` from now on. */
function watchPushDeliveries(client: typeof PromClient, registry: PromClient.Registry, watch: PushDeliveryWatch): void {
  const deliveries = new client.Counter({
    name: 'parley_a2a_push_deliveries_total',
    help: 'A2A push notification calls (webhook POSTs) that ended, by outcome; config_read_failed counts task changes never pushed because their webhook configs could not be read.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every outcome shows from the first scrape, at 0: an alert on a rate needs the series to exist.
  for (const outcome of PUSH_DELIVERY_OUTCOMES) deliveries.inc({ outcome }, 0);
  const duration = new client.Histogram({
    name: 'parley_a2a_push_delivery_duration_seconds',
    help: 'Time from the first attempt of an A2A push notification call to its end, retries included, by outcome.',
    labelNames: ['outcome'],
    buckets: PUSH_BUCKETS,
    registers: [registry],
  });
  watch.observer = (outcome, seconds) => {
    deliveries.inc({ outcome });
    if (seconds !== null) duration.observe({ outcome }, seconds);
  };
}
