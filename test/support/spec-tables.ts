// Tables of the spec that tests compare against, written out here once rather than imported
// from src, so a change in src cannot move the expectation with it.
import type { Health } from '../../generated/types/index.js';

export type SpecTransport = 'http' | 'sse' | 'websocket' | 'grpc' | 'runtime';

/** "Health payload": the capabilities row of each transport. */
export const SPEC_CAPABILITIES: Readonly<Record<SpecTransport, Health['capabilities']>> = {
  http: { networked: true, streaming: false, tls: true, bidirectional: false, persistent_connections: true },
  sse: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true },
  websocket: { networked: true, streaming: true, tls: true, bidirectional: true, persistent_connections: true },
  grpc: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true },
  runtime: { networked: false, streaming: true, tls: false, bidirectional: false, persistent_connections: false },
};

/** "Health payload": every metric counter, sorted by name. */
export const SPEC_METRIC_NAMES: readonly string[] = [
  'active_requests',
  'active_streams',
  'bytes_received',
  'bytes_sent',
  'requests_failed',
  'requests_started',
  'requests_succeeded',
  'retries',
  'streams_completed',
  'streams_failed',
  'streams_started',
  'total_latency_ms',
];
