// Server side of idempotency. The first request with a key owns the operation; duplicates that
// arrive while it runs wait for its outcome; later duplicates get the stored result until the
// TTL runs out. A failed or cancelled operation is released, not stored, so a retry runs again.
// Stored results are bounded twice: by count, and by the total of their weights (the dispatcher
// weighs an answer by its encoded bytes), so a few large answers cannot exhaust the heap.

/** A key's record: its run while it runs, then its stored result. */
interface Entry {
  /** The owner's run, until it settles. */
  running: Promise<unknown> | null;
  value: unknown;
  expiresAt: number;
  weight: number;
}

export interface IdempotencyCacheLimits {
  /** Completed results kept at most. */
  readonly maxEntries: number;
  /** Total weight of the completed results kept; the oldest are evicted until it fits. */
  readonly maxWeight: number;
}

export class IdempotencyCache {
  // One map for runs and results: a key is looked up, added and evicted once each, and a run
  // that ends becomes its result in place. Insertion order is the order runs began, so the
  // first stored entry is the oldest.
  private readonly entries = new Map<string, Entry>();
  private storedCount = 0;
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
    return this.storedCount;
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
    const found = this.entries.get(key);
    if (found) {
      if (found.running) {
        return found.running.then(
          (value) => ({ value: value as T, replayed: true }),
          // The owner failed and released the key; this duplicate runs it afresh.
          () => this.run(key, operation, storable, weigh),
        );
      }
      if (found.expiresAt > this.now()) return Promise.resolve({ value: found.value as T, replayed: true });
      this.evict(key, found);
    }
    let owned: Promise<T>;
    try {
      owned = operation();
    } catch (error) {
      return Promise.reject(error);
    }
    const entry: Entry = { running: owned, value: undefined, expiresAt: 0, weight: 0 };
    this.entries.set(key, entry);
    return owned.then(
      (value) => {
        const weight = storable(value) ? weigh(value) : Number.POSITIVE_INFINITY;
        if (weight <= this.limits.maxWeight) this.store(entry, value, weight);
        else this.release(key, entry);
        return { value, replayed: false };
      },
      (error: unknown) => {
        this.release(key, entry);
        throw error;
      },
    );
  }

  private store(entry: Entry, value: unknown, weight: number): void {
    entry.running = null;
    entry.value = value;
    entry.expiresAt = this.now() + this.ttlSeconds * 1000;
    entry.weight = weight;
    this.storedCount++;
    this.storedWeight += weight;
    const { maxEntries, maxWeight } = this.limits;
    if (this.storedCount <= maxEntries && this.storedWeight <= maxWeight) return;
    // The oldest results go first; runs still going are passed over.
    for (const [oldestKey, oldest] of this.entries) {
      if (!oldest.running) this.evict(oldestKey, oldest);
      if (this.storedCount <= maxEntries && this.storedWeight <= maxWeight) return;
    }
  }

  /** Forgets a run that ended without a result to keep, unless the key has moved on to another run. */
  private release(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }

  private evict(key: string, stored: Entry): void {
    this.entries.delete(key);
    this.storedCount--;
    this.storedWeight -= stored.weight;
  }
}
