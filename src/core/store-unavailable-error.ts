// The one error a storage backend raises when it cannot be used: a shared store that cannot be
// reached or answers too slowly, a database file that cannot be read or written. It lives in
// core so that the shared pipeline (transport/endpoint-error.ts), the A2A boundary and the
// registry can map it without knowing which backend raised it; each backend subclasses it
// (RedisStoreError, RegistryStoreError) to keep its own name and narrower codes.

export class StoreUnavailableError extends Error {
  constructor(
    /** Why, as a stable word the client sees as `details.reason` (`redis_unreachable`, `store_busy`, ...). */
    readonly code: string,
    message: string,
    /** Where the store is, for people: a file path, or a URL without its password. */
    readonly location: string,
    /**
     * Whether the same request may succeed later without anyone acting (a store that comes back
     * or a lock that clears): the pipeline answers 503 `unavailable`, which clients retry.
     */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
