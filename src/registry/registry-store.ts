// The storage behind a registry server: entries keyed by card URL, with secondary indexes on
// name, role and tags. Small on purpose, so that an in-memory map, an embedded SQLite file and
// a store shared by several replicas (Redis) all fit behind it (the backends are in src/stores/;
// the rules they share, such as MAX_FILTER_VALUES and mayWrite, in stores/registry-entries.ts).
// Every method may answer at once or with a promise; the server awaits them all the same.
import type { RegistryEntry } from '../../generated/types/index.js';
import type { IndexKeys, MaybePromise } from '../stores/registry-entries.js';

export { MAX_FILTER_VALUES, type IndexKeys, type MaybePromise } from '../stores/registry-entries.js';

export interface RegistryStore {
  /** Shown on the status page: `memory`, `sqlite`, ... */
  readonly kind: string;
  /** Where the data lives, for people (a file path, `in process memory`). */
  readonly location: string;
  /**
   * Makes the store ready; called by the server at start, and again after a stop. An
   * unreadable, corrupt or foreign store fails here with a RegistryStoreError, never later.
   */
  open(): MaybePromise<void>;
  /** Releases what open() took. The data stays (for a persisted store). */
  close(): MaybePromise<void>;
  /**
   * Stores the entry under its card URL, replacing an existing one after removing it from every
   * index, and answers true. When `entry.owner` names a principal and the existing entry
   * belongs to another (mayWrite), nothing changes and the answer is false: the check and the
   * write are one step, also between replicas. Resolves only once the entry is durable, for a
   * store that persists.
   */
  put(entry: RegistryEntry): MaybePromise<boolean>;
  /**
   * Removes the entry; false when there was none, or when `owner` names a principal and the
   * entry belongs to another (it stays). Durable once it resolves.
   */
  remove(url: string, owner?: string | null): MaybePromise<boolean>;
  /**
   * Sets `last_seen` only (card, owner and indexes unchanged); false when there is no entry, or
   * when `owner` names a principal and the entry belongs to another.
   */
  touch(url: string, lastSeen: number, owner?: string | null): MaybePromise<boolean>;
  get(url: string): MaybePromise<RegistryEntry | undefined>;
  /**
   * Entries whose indexed attributes match every given key: the indexes, intersected. Keys
   * holding more than MAX_FILTER_VALUES values are refused (checkLookupSize).
   */
  lookup(keys: IndexKeys): MaybePromise<RegistryEntry[]>;
  /** Every entry (the full scan). */
  all(): MaybePromise<RegistryEntry[]>;
  urls(): MaybePromise<string[]>;
  count(): MaybePromise<number>;
  /** Removes every entry with `now - last_seen > ttl` (equality stays); answers how many went. */
  prune(now: number, ttl: number): MaybePromise<number>;
  /**
   * Optional, for a store across the network (Redis), where each call is a round trip: in one
   * step, prune (when `live` is given) and look the keys up, falling back to every entry when the
   * lookup finds nothing (or there are no keys). The same answer as prune(), then lookup() or
   * all(); a store without it is asked those in turn.
   */
  find?(keys: IndexKeys | null, live: { readonly now: number; readonly ttl: number } | null): MaybePromise<RegistryEntry[]>;
}
