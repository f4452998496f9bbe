// Server side of idempotency. The first request with a key owns the operation; duplicates that
// arrive while it runs wait for its outcome; later duplicates get the stored result until the
// TTL runs out. A failed or cancelled operation is released, not stored, so a retry runs again.
// Stored results are bounded twice: by count, and by the total of their weights (the dispatcher
// weighs an answer by its encoded bytes), so a few large answers cannot exhaust the heap.

interface Stored {
  readonly value: unknown;
  readonly expiresAt: number;
  readonly weight: number;
}

export interface IdempotencyCacheLimits {
  /** Completed results kept at most. */
  readonly maxEntries: number;
  /** Total weight of the completed results kept; the oldest are evicted until it fits. */
  readonly maxWeight: number;
}

export class IdempotencyCache {
  private readonly done = new Map<string, Stored>();
  private readonly running = new Map<string, Promise<unknown>>();
  private storedWeight = 0;

  /**
   * @param ttlSeconds how long a completed result may be replayed
   * @param limits how many results, and how much of their total weight, are kept; the oldest go first
   */
  constructor(
    private readonly ttlSeconds: number,
    private readonly limits: IdempotencyCacheLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.done.size;
  }

  /** The total weight of the stored results. */
  get weight(): number {
    return this.storedWeight;
  }

  /**
   * Keys are namespaced by method and path, so one task id means different things per route,
   * and by the caller's principal (null without an authenticator), so one caller never gets
   * an answer made for another.
   */
  static key(method: string, path: string, key: string, principal: string | null = null): string {
    // A principal goes in as a JSON string and its absence as `-`, so no key can pass for another.
    return `${method} ${path} ${principal === null ? '-' : JSON.stringify(principal)} ${key}`;
  }

  /**
   * Runs `operation` once per key: concurrently or later within the TTL, callers with the same
   * key share the first caller's result. `replayed` says whether this caller's answer came
   * from someone else's run. A result `storable` rejects, or one weighing more than the whole
   * budget, is shared with concurrent duplicates but not kept for later ones.
   */
  run<T>(
    key: string,
    operation: () => Promise<T>,
    storable: (value: T) => boolean = () => true,
    weigh: (value: T) => number = () => 0,
  ): Promise<{ value: T; replayed: boolean }> {
    const stored = this.done.get(key);
    if (stored) {
      if (stored.expiresAt > this.now()) return Promise.resolve({ value: stored.value as T, replayed: true });
      this.evict(key, stored);
    }
    const inFlight = this.running.get(key);
    if (inFlight) {
      return inFlight.then(
        (value) => ({ value: value as T, replayed: true }),
        // The owner failed and released the key; this duplicate runs it afresh.
        () => this.run(key, operation, storable, weigh),
      );
    }
    let owned: Promise<T>;
    try {
      owned = operation();
    } catch (error) {
      return Promise.reject(error);
    }
    this.running.set(key, owned);
    return owned.then(
      (value) => {
        this.running.delete(key);
        if (storable(value)) this.store(key, value, weigh(value));
        return { value, replayed: false };
      },
      (error: unknown) => {
        this.running.delete(key);
        throw error;
      },
    );
  }

  private store(key: string, value: unknown, weight: number): void {
    const previous = this.done.get(key);
    if (previous) this.evict(key, previous);
    if (weight > this.limits.maxWeight) return;
    this.done.set(key, { value, expiresAt: this.now() + this.ttlSeconds * 1000, weight });
    this.storedWeight += weight;
    // Maps iterate in insertion order, so the first entry is the oldest.
    while (this.done.size > this.limits.maxEntries || this.storedWeight > this.limits.maxWeight) {
      const [oldestKey, oldest] = this.done.entries().next().value!;
      this.evict(oldestKey, oldest);
    }
  }

  private evict(key: string, stored: Stored): void {
    this.done.delete(key);
    this.storedWeight -= stored.weight;
  }
}
