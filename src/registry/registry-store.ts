// The storage behind a registry server: entries keyed by card URL, with secondary indexes on
// name, role and tags. Small on purpose, so that an in-memory map, an embedded SQLite file and
// a store shared by several replicas (Redis, later) all fit behind it. Every method may answer
// at once or with a promise; the server awaits them all the same.
import type { RegistryEntry } from '../../generated/types/index.js';
import { InvalidArgumentError } from '../core/errors.js';

export type MaybePromise<T> = T | Promise<T>;

/**
 * The most values one discovery may filter on (name, role, each tag, each other attribute's
 * value, counted together). Past it the registry answers 400; a store's lookup refuses it too,
 * so no store meets a query larger than it was built for (SQLite joins at most 64 tables).
 */
export const MAX_FILTER_VALUES = 32;

/** What the indexes can narrow a discovery down to. Every given key must match. */
export interface IndexKeys {
  readonly name?: string;
  readonly role?: string;
  /** Every tag must be on the card. */
  readonly tags?: readonly string[];
}

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
}

/**
 * Whether `caller` may write an entry owned by `stored`: an anonymous caller (null: the
 * registry has no authenticator, or code in the process) always may, and anyone may write an
 * entry without an owner; otherwise only its owner.
 */
export function mayWrite(stored: string | null | undefined, caller: string | null | undefined): boolean {
  return caller == null || stored == null || stored === caller;
}

/** Whether an entry seen at `lastSeen` has outlived `ttl` at `now` (the spec's rule, in one place). */
export function isExpired(lastSeen: number, now: number, ttl: number): boolean {
  return now - lastSeen > ttl;
}

/** How many values the keys ask for: name, role and each tag. */
function lookupSize(keys: IndexKeys): number {
  return (keys.name === undefined ? 0 : 1) + (keys.role === undefined ? 0 : 1) + (keys.tags?.length ?? 0);
}

/** Every store's guard on lookup(): keys past MAX_FILTER_VALUES throw an InvalidArgumentError. */
export function checkLookupSize(keys: IndexKeys): void {
  const size = lookupSize(keys);
  if (size > MAX_FILTER_VALUES) {
    throw new InvalidArgumentError(
      `a lookup takes at most ${MAX_FILTER_VALUES} filter values (got ${size})`,
      'too_many_filter_values',
    );
  }
}
