// Which Redis a store uses and how it connects: plain types, apart from redis-connection.ts so
// that the public type declarations that name them do not reach the optional ioredis package
// (a project without it must still type-check against parley-agents).
export interface RedisTarget {
  /** The URL handed to the client (without `prefix`). */
  readonly url: string;
  /** The URL without its password, for messages and status pages. */
  readonly location: string;
  /** Prepended to every key: `parley:` unless the URL names another. */
  readonly prefix: string;
}

export interface RedisConnectOptions {
  /** How long one command may take before it fails. Default 2000 ms. */
  readonly commandTimeoutMs?: number;
  /** How long connecting may take. Default 2000 ms. */
  readonly connectTimeoutMs?: number;
  /**
   * Open the store even when Redis may evict its keys (a maxmemory-policy other than
   * noeviction, or one that cannot be read): for a Redis used as a cache that accepts loss.
   * Default false: such a Redis is refused at start (redis-eviction.ts).
   */
  readonly allowEviction?: boolean;
}
