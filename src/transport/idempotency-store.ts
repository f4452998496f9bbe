// Where a transport's dispatcher keeps its idempotency records. By default each dispatcher has
// its own in-process IdempotencyCache; replicas behind one load balancer share one instead (the
// Redis store, src/stores/redis/redis-idempotency.ts), so a retry that lands on another replica
// still replays the first answer. The contract is IdempotencyCache.run's.
import type { UnaryOutcome } from './dispatcher.js';

/** The bounds of the transport's configuration (idempotency_ttl, _cache_size, _cache_bytes). */
export interface IdempotencyBounds {
  readonly ttlSeconds: number;
  readonly maxEntries: number;
  readonly maxWeight: number;
}

export interface IdempotencyRunner {
  /**
   * Runs `operation` once per key; duplicates share the first run's answer, and `replayed` says
   * whether this caller's answer came from another run. A failed run releases the key. With
   * `replayWhen`, a duplicate that finds a stored answer runs the operation again first: its
   * answer replaces the stored one, and a failure `replayWhen` accepts is answered with the
   * stored one, replayed (an operation whose effect depends on the moment: cancel).
   */
  run(
    key: string,
    operation: () => Promise<UnaryOutcome>,
    storable: (value: UnaryOutcome) => boolean,
    weigh: (value: UnaryOutcome) => number,
    replayWhen?: (error: unknown) => boolean,
  ): Promise<{ value: UnaryOutcome; replayed: boolean }>;
}

/** Makes the runner for one dispatcher, given its transport's bounds. */
export type IdempotencyStore = (bounds: IdempotencyBounds) => IdempotencyRunner;
