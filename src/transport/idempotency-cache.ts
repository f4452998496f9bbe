// Server side of idempotency. The first request with a key owns the operation; duplicates that
// arrive while it runs wait for its outcome; later duplicates get the stored result until the
// TTL runs out. A failed or cancelled operation is released, not stored, so a retry runs again.
// Stored results are bounded twice: by count, and by the total of their weights (the dispatcher
// weighs an answer by its encoded bytes), so a few large answers cannot exhaust the heap.
// An operation whose effect depends on the moment (cancel) may ask to act first (`replayWhen`):
// a later duplicate runs it again, and the stored result is replayed only when that run fails
// as `replayWhen` accepts (nothing left to act on); a result of the new run replaces it.

/** A key's record: its run while it runs, then its stored result. */
interface Entry {
  readonly key: string;
  /** The owner's run, until it settles. */
  running: Promise<unknown> | null;
  value: unknown;
  expiresAt: number;
  weight: number;
  /** Counted among the stored results (false again once evicted). */
  stored: boolean;
}

export interface IdempotencyCacheLimits {
  /** Completed results kept at most. */
  readonly maxEntries: number;
  /** Total weight of the completed results kept; the oldest are evicted until it fits. */
  readonly maxWeight: number;
}

export class IdempotencyCache {
  // One map for runs and results: a key is looked up, added and evicted once each, and a run
  // that ends becomes its result in place.
  private readonly entries = new Map<string, Entry>();
  // Stored results, oldest first, from `head` on; entries evicted out of turn (expired) stay
  // until they come up. Not the map's own order: finding a map's first entry means stepping
  // over every slot deleted since the map last rehashed, hundreds when it is full and turning
  // over (about 0.5 µs an eviction).
  private readonly order: (Entry | undefined)[] = [];
  private head = 0;
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
   * budget, is shared with concurrent duplicates but not kept for later ones. With
   * `replayWhen`, a later duplicate acts first (see the top of this file).
   */
  run<T>(
    key: string,
    operation: () => Promise<T>,
    storable: (value: T) => boolean = () => true,
    weigh: (value: T) => number = () => 0,
    replayWhen?: (error: unknown) => boolean,
  ): Promise<{ value: T; replayed: boolean }> {
    const found = this.entries.get(key);
    let previous: Entry | null = null;
    if (found) {
      if (found.running) {
        return found.running.then(
          (value) => ({ value: value as T, replayed: true }),
          // The owner failed and released the key; this duplicate runs it afresh.
          () => this.run(key, operation, storable, weigh, replayWhen),
        );
      }
      if (found.expiresAt <= this.now()) this.evict(found);
      else if (!replayWhen) return Promise.resolve({ value: found.value as T, replayed: true });
      else previous = found;
    }
    let owned: Promise<T>;
    try {
      owned = operation();
    } catch (error) {
      return Promise.reject(error);
    }
    // Acting first, the stored result stays counted, but out of the map: duplicates that come
    // meanwhile share this run.
    const entry: Entry = { key, running: owned, value: undefined, expiresAt: 0, weight: 0, stored: false };
    this.entries.set(key, entry);
    return owned.then(
      (value) => {
        if (previous?.stored) this.evict(previous);
        const weight = storable(value) ? weigh(value) : Number.POSITIVE_INFINITY;
        if (weight <= this.limits.maxWeight) this.store(entry, value, weight);
        else this.release(entry);
        return { value, replayed: false };
      },
      (error: unknown) => {
        this.release(entry);
        // The stored result is the key's again (unless it was evicted or ran out meanwhile).
        const kept = previous?.stored && previous.expiresAt > this.now() ? previous : null;
        if (previous?.stored && !kept) this.evict(previous);
        if (kept && !this.entries.has(key)) this.entries.set(key, kept);
        if (kept && replayWhen!(error)) return { value: kept.value as T, replayed: true };
        throw error;
      },
    );
  }

  private store(entry: Entry, value: unknown, weight: number): void {
    entry.running = null;
    entry.value = value;
    entry.expiresAt = this.now() + this.ttlSeconds * 1000;
    entry.weight = weight;
    entry.stored = true;
    this.storedCount++;
    this.storedWeight += weight;
    this.order.push(entry);
    const { maxEntries, maxWeight } = this.limits;
    while (this.storedCount > maxEntries || this.storedWeight > maxWeight) {
      const oldest = this.order[this.head]!;
      this.order[this.head++] = undefined;
      if (oldest.stored) this.evict(oldest);
    }
    this.compact();
  }

  /** Forgets the key's entry, unless the key has moved on to another. */
  private release(entry: Entry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  private evict(entry: Entry): void {
    this.release(entry);
    // The list may hold the entry a while longer (evicted out of turn); its result goes now.
    entry.value = undefined;
    entry.stored = false;
    this.storedCount--;
    this.storedWeight -= entry.weight;
  }

  /** Drops the slots before `head`, and entries evicted out of turn, once they outnumber the stored ones. */
  private compact(): void {
    const length = this.order.length;
    if (length < 64 || length < 2 * this.storedCount) return;
    let kept = 0;
    for (let i = this.head; i < length; i++) {
      const entry = this.order[i];
      if (entry?.stored) this.order[kept++] = entry;
    }
    this.order.length = kept;
    this.head = 0;
  }
}
