// One way to turn a `store` option into stores, for both servers: `memory` keeps everything in
// this process (the default), `redis://host:port[/db][?prefix=NAME]` (or `rediss://`) shares it
// with the other replicas through Redis (docs/replicas.md). The URL is checked here, when a
// server is built, so a typo fails at once; nothing connects until the server starts and asks
// for the stores it needs. A new backend that is chosen by URL adds its scheme here and nowhere
// else (docs/layout.md, "Where a new backend goes").
import { InvalidArgumentError } from '../core/errors.js';
import { MemoryRegistryStore } from './memory/memory-registry-store.js';
import { RedisAgentState } from './redis/redis-agent-state.js';
import type { LocalCancel } from './redis/redis-cancel-bus.js';
import type { TaskQueueSettings } from './redis/redis-task-queue.js';
import { isRedisUrl, parseRedisUrl } from './redis/redis-connection.js';
import { RedisRegistryStore } from './redis/redis-registry-store.js';

export interface StoreUrlOptions {
  /**
   * Start on a Redis that may evict keys (its maxmemory-policy is not noeviction, or cannot be
   * read). Default false: such a Redis is refused at start (redis-eviction.ts).
   */
  readonly allowEviction?: boolean;
}

/** The stores a `store` URL names, not yet open. */
export interface StoreChoice {
  readonly kind: 'memory' | 'redis';
  /** The registry server's entries: a MemoryRegistryStore, or a RedisRegistryStore opened at start. */
  registryStore(): MemoryRegistryStore | RedisRegistryStore;
  /**
   * What an agent server shares with its replicas, connected (with `local` hearing the cancels
   * other replicas send); null for `memory`, where the server keeps its own defaults. With
   * `taskQueue`, the queue of tasks nobody waits for is opened too.
   */
  agentState(local: LocalCancel, taskQueue?: TaskQueueSettings): Promise<RedisAgentState | null>;
}

/** Reads a `store` URL; throws an InvalidArgumentError for one it does not know. */
export function openStores(url: string, options: StoreUrlOptions = {}): StoreChoice {
  const allowEviction = options.allowEviction ?? false;
  if (url === 'memory') {
    return {
      kind: 'memory',
      registryStore: () => new MemoryRegistryStore(),
      agentState: () => Promise.resolve(null),
    };
  }
  if (isRedisUrl(url)) {
    parseRedisUrl(url);
    return {
      kind: 'redis',
      registryStore: () => new RedisRegistryStore(url, { allowEviction }),
      agentState: (local, taskQueue) => RedisAgentState.open(url, local, { allowEviction, taskQueue }),
    };
  }
  throw new InvalidArgumentError(`store must be 'memory' or a redis:// URL (got ${JSON.stringify(url)})`, 'invalid_argument');
}
