// The error every Redis-backed store raises when Redis cannot answer: unreachable at start, lost
// while serving, or too slow (the command timeout); and, at start only, when Redis is set to
// evict keys (`redis_eviction_policy`, redis-eviction.ts). A StoreUnavailableError that is
// always retryable: on the wire it becomes 503 `unavailable`, which clients retry. Match it by
// `code`.
import { StoreUnavailableError } from '../../core/store-unavailable-error.js';

export type RedisStoreErrorCode = 'redis_unreachable' | 'redis_unavailable' | 'redis_eviction_policy';

export class RedisStoreError extends StoreUnavailableError {
  declare readonly code: RedisStoreErrorCode;

  constructor(
    code: RedisStoreErrorCode,
    message: string,
    /** The Redis URL, without its password. */
    location: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, location, true, options);
    this.name = 'RedisStoreError';
  }
}
