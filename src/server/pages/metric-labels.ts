// The transport counters a status page shows, in order, with the label a person reads. Both the
// agent's and the registry's status pages list the same counters, so the labels live here, with
// the page helpers both servers share, rather than in one server's page.
import type { Health } from '../../../generated/types/index.js';

export const METRIC_LABELS: ReadonlyArray<[keyof Health['metrics'], string]> = [
  ['requests_started', 'requests started'],
  ['requests_succeeded', 'succeeded'],
  ['requests_failed', 'failed'],
  ['retries', 'retries'],
  ['active_requests', 'active requests'],
  ['streams_started', 'streams started'],
  ['streams_completed', 'streams completed'],
  ['streams_failed', 'streams failed'],
  ['active_streams', 'active streams'],
  ['bytes_sent', 'bytes sent'],
  ['bytes_received', 'bytes received'],
  ['total_latency_ms', 'total latency (ms)'],
];
