// A small map whose entries expire `ttlMs` after they were set and whose size is capped, the
// oldest entry going first: the outbound protocol choice (5 minutes, 1,024 peers) and the
// local-to-remote task ids (1 hour, 1,024 tasks) are both this.

export interface BoundedCacheOptions {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /** The clock, in ms (tests move it instead of waiting). */
  readonly now?: () => number;
}

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();
  private readonly now: () => number;

  constructor(private readonly options: BoundedCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires < this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    const now = this.now();
    this.entries.set(key, { value, expires: now + this.options.ttlMs });
    if (this.entries.size <= this.options.maxEntries) return;
    // Over the cap: expired entries first, then the oldest.
    for (const [stored, entry] of this.entries) if (entry.expires < now) this.entries.delete(stored);
    while (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
