// Server side of idempotency. The first request with a key owns the operation; duplicates that
// arrive while it runs wait for its outcome; later duplicates get the stored result until the
// TTL runs out. A failed or cancelled operation is released, not stored, so a retry runs again.

interface Stored {
  readonly value: unknown;
  readonly expiresAt: number;
}

export class IdempotencyCache {
  private readonly done = new Map<string, Stored>();
  private readonly running = new Map<string, Promise<unknown>>();

  /**
   * @param ttlSeconds how long a completed result may be replayed
   * @param maxEntries completed results kept; the oldest is evicted first
   */
  constructor(
    private readonly ttlSeconds: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.done.size;
  }

  /** Keys are namespaced by method and path, so one task id means different things per route. */
  static key(method: string, path: string, key: string): string {
    return `${method} ${path} ${key}`;
  }

  /**
   * Runs `operation` once per key: concurrently or later within the TTL, callers with the same
   * key share the first caller's result. `replayed` says whether this caller's answer came
   * from someone else's run. A result `storable` rejects is shared with concurrent duplicates
   * but not kept for later ones.
   */
  run<T>(key: string, operation: () => Promise<T>, storable: (value: T) => boolean = () => true): Promise<{ value: T; replayed: boolean }> {
    const stored = this.done.get(key);
    if (stored) {
      if (stored.expiresAt > this.now()) return Promise.resolve({ value: stored.value as T, replayed: true });
      this.done.delete(key);
    }
    const inFlight = this.running.get(key);
    if (inFlight) {
      return inFlight.then(
        (value) => ({ value: value as T, replayed: true }),
        // The owner failed and released the key; this duplicate runs it afresh.
        () => this.run(key, operation, storable),
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
        if (storable(value)) this.store(key, value);
        return { value, replayed: false };
      },
      (error: unknown) => {
        this.running.delete(key);
        throw error;
      },
    );
  }

  private store(key: string, value: unknown): void {
    this.done.delete(key);
    this.done.set(key, { value, expiresAt: this.now() + this.ttlSeconds * 1000 });
    // Maps iterate in insertion order, so the first key is the oldest.
    while (this.done.size > this.maxEntries) this.done.delete(this.done.keys().next().value!);
  }
}
