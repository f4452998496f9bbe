// What every registry store applies the same way, whichever backend it is: the bound on the
// values one lookup filters on, the ownership rule, the expiry rule and the shape of a lookup.
// It sits in stores/ rather than beside the RegistryStore interface (registry/registry-store.ts)
// because the backends need it as values and stores/ lies below registry/ in the layers
// (docs/layout.md): the registry imports these rules from here, never the other way round.
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
