// The in-memory registry store: a map of entries keyed by card URL plus one index map each for
// name, role and tag. The entry map is kept in order of last_seen, so pruning reads only the
// entries it removes and stops at the first live one. Nothing survives the process.
import type { RegistryEntry } from '../../../generated/types/index.js';
import { checkLookupSize, isExpired, mayWrite, type IndexKeys } from '../registry-entries.js';

type Index = Map<string, Set<string>>;

export class MemoryRegistryStore {
  readonly kind = 'memory';
  readonly location = 'process memory';
  private readonly entries = new Map<string, RegistryEntry>();
  private readonly byName: Index = new Map();
  private readonly byRole: Index = new Map();
  private readonly byTag: Index = new Map();
  /** The newest last_seen written; an older one arriving breaks the order until the next prune. */
  private newest = -Infinity;
  private ordered = true;

  open(): void {}

  close(): void {}

  put(entry: RegistryEntry): boolean {
    if (!mayWrite(this.entries.get(entry.card.url)?.owner, entry.owner)) return false;
    const stored = freeze(entry);
    const url = stored.card.url;
    this.removeEntry(url);
    this.insert(url, stored);
    add(this.byName, stored.card.name, url);
    add(this.byRole, stored.card.role ?? '', url);
    for (const tag of stored.card.tags ?? []) add(this.byTag, tag, url);
    return true;
  }

  remove(url: string, owner?: string | null): boolean {
    if (!mayWrite(this.entries.get(url)?.owner, owner)) return false;
    return this.removeEntry(url);
  }

  touch(url: string, lastSeen: number, owner?: string | null): boolean {
    const entry = this.entries.get(url);
    if (!entry || !mayWrite(entry.owner, owner)) return false;
    this.entries.delete(url);
    this.insert(url, Object.freeze({ ...entry, last_seen: lastSeen }));
    return true;
  }

  get(url: string): RegistryEntry | undefined {
    return this.entries.get(url);
  }

  lookup(keys: IndexKeys): RegistryEntry[] {
    checkLookupSize(keys);
    const sets: Set<string>[] = [];
    for (const [index, value] of [
      [this.byName, keys.name],
      [this.byRole, keys.role],
    ] as const) {
      if (value === undefined) continue;
      const set = index.get(value);
      if (!set) return [];
      sets.push(set);
    }
    for (const tag of keys.tags ?? []) {
      const set = this.byTag.get(tag);
      if (!set) return [];
      sets.push(set);
    }
    if (sets.length === 0) return [];
    // Walk the smallest set and keep what every other set holds too.
    sets.sort((a, b) => a.size - b.size);
    const [smallest, ...others] = sets as [Set<string>, ...Set<string>[]];
    const found: RegistryEntry[] = [];
    outer: for (const url of smallest) {
      for (const other of others) if (!other.has(url)) continue outer;
      found.push(this.entries.get(url)!);
    }
    return found;
  }

  all(): RegistryEntry[] {
    return [...this.entries.values()];
  }

  urls(): string[] {
    return [...this.entries.keys()];
  }

  count(): number {
    return this.entries.size;
  }

  prune(now: number, ttl: number): number {
    if (!this.ordered) this.reorder();
    let removed = 0;
    for (const [url, entry] of this.entries) {
      if (!isExpired(entry.last_seen, now, ttl)) break;
      this.removeEntry(url);
      removed++;
    }
    return removed;
  }

  private insert(url: string, entry: RegistryEntry): void {
    this.entries.set(url, entry);
    if (entry.last_seen < this.newest) this.ordered = false;
    else this.newest = entry.last_seen;
  }

  /** Puts the entry map back in last_seen order (after a clock step backwards). */
  private reorder(): void {
    const sorted = [...this.entries].sort((a, b) => a[1].last_seen - b[1].last_seen);
    this.entries.clear();
    for (const [url, entry] of sorted) this.entries.set(url, entry);
    this.newest = sorted.at(-1)?.[1].last_seen ?? -Infinity;
    this.ordered = true;
  }

  private removeEntry(url: string): boolean {
    const old = this.entries.get(url);
    if (!old) return false;
    this.entries.delete(url);
    drop(this.byName, old.card.name, url);
    drop(this.byRole, old.card.role ?? '', url);
    for (const tag of old.card.tags ?? []) drop(this.byTag, tag, url);
    return true;
  }
}

function add(index: Index, key: string, url: string): void {
  const set = index.get(key);
  if (set) set.add(url);
  else index.set(key, new Set([url]));
}

function drop(index: Index, key: string, url: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(url);
  if (set.size === 0) index.delete(key);
}

/** Entries are handed out without copying, so they are frozen all the way down. */
function freeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) freeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
