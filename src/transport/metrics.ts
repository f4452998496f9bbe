// Per-transport, in-process counters. With collection off every counter stays at zero. An
// exporter (Prometheus) may also watch each served request's duration through `observer`, the
// latency hook (transport/hooks.ts).
import type { Health } from '../../generated/types/index.js';
import type { LatencyObserver } from './hooks.js';

export type MetricsSnapshot = Health['metrics'];

export class TransportMetrics {
  private readonly counters: MetricsSnapshot = {
    requests_started: 0,
    requests_succeeded: 0,
    requests_failed: 0,
    retries: 0,
    streams_started: 0,
    streams_completed: 0,
    streams_failed: 0,
    active_requests: 0,
    active_streams: 0,
    bytes_sent: 0,
    bytes_received: 0,
    total_latency_ms: 0,
  };

  /** Set by an exporter that keeps latency histograms; null costs nothing per request. */
  observer: LatencyObserver | null = null;

  constructor(readonly enabled: boolean) {}

  requestStarted(): void {
    if (!this.enabled) return;
    this.counters.requests_started++;
    this.counters.active_requests++;
  }

  /** `operation` is the served operation's name; null for calls and for requests no route matched. */
  requestFinished(ok: boolean, startedAt: number, operation: string | null = null): void {
    if (!this.enabled) return;
    this.counters.active_requests--;
    if (ok) this.counters.requests_succeeded++;
    else this.counters.requests_failed++;
    const elapsed = performance.now() - startedAt;
    this.counters.total_latency_ms += elapsed;
    if (this.observer && operation !== null) this.observer(operation, ok, elapsed / 1000);
  }

  retried(): void {
    if (this.enabled) this.counters.retries++;
  }

  streamStarted(): void {
    if (!this.enabled) return;
    this.counters.streams_started++;
    this.counters.active_streams++;
  }

  streamFinished(ok: boolean): void {
    if (!this.enabled) return;
    this.counters.active_streams--;
    if (ok) this.counters.streams_completed++;
    else this.counters.streams_failed++;
  }

  sent(bytes: number): void {
    if (this.enabled) this.counters.bytes_sent += bytes;
  }

  received(bytes: number): void {
    if (this.enabled) this.counters.bytes_received += bytes;
  }

  snapshot(): MetricsSnapshot {
    return { ...this.counters, total_latency_ms: Math.round(this.counters.total_latency_ms * 1000) / 1000 };
  }
}
