// `--metrics`, `--metrics-url URL` and `--metrics-public` of `parley serve agent` and `parley
// serve registry`: Prometheus metrics (prom-client) at GET /metrics. http and sse serve them on
// their own port; websocket and grpc serve no pages, so there they need a listener of their
// own, which --metrics-url gives (it can be used on http and sse too, for a separate port).
import type { MetricsOptions } from '../observability/prometheus-metrics.js';
import type { TransportName } from '../transport/capabilities.js';
import type { OptionSpecs, ParsedArgs } from './args.js';
import { UsageError } from './usage-error.js';

export const METRICS_OPTIONS: OptionSpecs = {
  metrics: { type: 'boolean' },
  'metrics-url': { type: 'string' },
  'metrics-public': { type: 'boolean' },
};

export const METRICS_USAGE = `  --metrics         Prometheus metrics at GET /metrics (needs prom-client), on the server's
                    own port for http and sse; they need the server's credentials unless
                    --metrics-public
  --metrics-url URL also serve them over plain http at URL (http://127.0.0.1:9464; port 0
                    picks one): the way for websocket and grpc, which cannot serve them
                    on their own port. Implies --metrics
  --metrics-public  serve /metrics without credentials. Implies --metrics
`;

/** The server's `metrics` option for the flags, or undefined when they ask for none. */
export function metricsFromFlags(
  command: string,
  options: ParsedArgs['options'],
  transport: Exclude<TransportName, 'runtime'>,
): MetricsOptions | undefined {
  const url = options['metrics-url'] as string | undefined;
  const open = options['metrics-public'] === true;
  if (options.metrics !== true && url === undefined && !open) return undefined;
  if (url !== undefined && !/^http:\/\//.test(url)) {
    throw new UsageError(
      `${command}: --metrics-url takes an http:// URL, such as http://127.0.0.1:9464 (got ${JSON.stringify(url)})`,
    );
  }
  if (url === undefined && (transport === 'websocket' || transport === 'grpc')) {
    throw new UsageError(
      `${command}: --metrics with --transport ${transport} needs --metrics-url URL: ${transport} cannot serve /metrics on its own port`,
    );
  }
  return { ...(url !== undefined && { url }), ...(open && { public: true }) };
}

/** Where the metrics can be scraped once the server has started, for the line printed before `ready`. */
export function metricsAddress(serverUrl: string, separate: string | null): string {
  return separate ?? `${serverUrl.replace(/\/$/, '')}/metrics`;
}
