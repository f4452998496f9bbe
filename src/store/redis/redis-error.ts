// The error every Redis-backed store raises when Redis cannot answer: unreachable at start, lost
// while serving, or too slow (the command timeout); and, at start only, when Redis is set to
// evict keys (`redis_eviction_policy`, redis-eviction.ts). Match it by `code`; on the wire it
// becomes 503 `unavailable`, which clients retry.
export type RedisStoreErrorCode = 'redis_unreachable' | 'redis_unavailable' | 'redis_eviction_policy';

export class RedisStoreError extends Error {
  constructor(
    readonly code: RedisStoreErrorCode,
    message: string,
    /** The Redis URL, without its password. */
    readonly location: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RedisStoreError';
  }
}
