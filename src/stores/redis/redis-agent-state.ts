// What an agent replica shares with the others through Redis, opened once at start from the
// `store` URL: the idempotency records of its transport, the A2A task index, the key that signs
// A2A page tokens (so a token from one replica is good on every other), the A2A push-notification
// configs, the cancel bus, the task feeds and, for an agent serving A2A, the queue of tasks nobody
// waits for (redis-task-queue.ts). Four connections: one for commands, one subscribed to the
// cancel channels, one blocked in XREAD for this replica's followers of task feeds, one writing
// the task feeds (a watched task's events, possibly megabytes, never delay a store command queued
// behind them); the queue opens its own.
import { randomBytes } from 'node:crypto';
import { sleep } from '../../core/clock.js';
import { MissingDependencyError } from '../../core/errors.js';
import type { IdempotencyStore } from '../../transport/idempotency-store.js';
import { RedisCancelBus, type LocalCancel } from './redis-cancel-bus.js';
import { connectRedis, parseRedisUrl, redisFailure } from './redis-connection.js';
import type { RedisConnectOptions } from './redis-target.js';
import { refuseEvictingRedis } from './redis-eviction.js';
import { defineIdempotencyScripts, RedisIdempotency } from './redis-idempotency.js';
import type { RedisClient } from './redis-module.js';
import { definePushConfigScripts, RedisPushConfigStore } from './redis-push-config-store.js';
import { defineTaskIndexScripts, RedisTaskIndex } from './redis-task-index.js';
import { RedisTaskFeed } from './redis-task-feed.js';
import { RedisTaskQueue, type TaskQueueSettings } from './redis-task-queue.js';
import { writeOncePerTurn } from './redis-turn-writes.js';

export interface AgentStateOptions extends RedisConnectOptions {
  /** Open the shared task queue with these settings; none when absent. */
  readonly taskQueue?: TaskQueueSettings;
}

/** How long close() lets its connections finish their last commands before cutting them. */
const CLOSE_BOUND_MS = 2_000;

export class RedisAgentState {
  readonly idempotencyStore: IdempotencyStore;

  private constructor(
    private readonly client: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly reader: RedisClient,
    private readonly feedWriter: RedisClient,
    readonly location: string,
    readonly taskIndex: RedisTaskIndex,
    readonly pushConfigs: RedisPushConfigStore,
    readonly cancelBus: RedisCancelBus,
    /** The events of running tasks, for subscribers on any replica. */
    readonly taskFeed: RedisTaskFeed,
    /** Signs A2A page tokens; the same on every replica. */
    readonly pageTokenKey: Buffer,
    prefix: string,
    /** The queue of tasks nobody waits for; null when not asked for. */
    readonly taskQueue: RedisTaskQueue<object> | null,
  ) {
    this.idempotencyStore = (bounds) => new RedisIdempotency(client, prefix, location, bounds);
  }

  /**
   * Connects (a RedisStoreError `redis_unreachable` when Redis cannot be reached, or
   * `redis_eviction_policy` when it may evict keys) and starts listening for cancels.
   */
  static async open(url: string, local: LocalCancel, options: AgentStateOptions = {}): Promise<RedisAgentState> {
    const target = parseRedisUrl(url);
    const client = await connectRedis(target, options);
    // The connection every request's commands go through; the others send one at a time.
    writeOncePerTurn(client);
    let subscriber: RedisClient | null = null;
    let queue: RedisTaskQueue<object> | null = null;
    let reader: RedisClient | null = null;
    let feedWriter: RedisClient | null = null;
    try {
      // Idempotency records carry a TTL and must last it: only noeviction keeps every key.
      await refuseEvictingRedis(client, target, 'all', options.allowEviction ?? false);
      subscriber = await connectRedis(target, options);
      reader = await connectRedis(target, options);
      feedWriter = await connectRedis(target, options);
      defineIdempotencyScripts(client);
      defineTaskIndexScripts(client);
      definePushConfigScripts(client);
      const keyName = `${target.prefix}a2a:page-key`;
      await client.set(keyName, randomBytes(32).toString('base64'), 'NX');
      const key = Buffer.from((await client.get(keyName)) ?? '', 'base64');
      const bus = new RedisCancelBus(client, subscriber, target.prefix, target.location);
      await bus.open(local);
      const feed = new RedisTaskFeed(client, subscriber, reader, feedWriter, target.prefix, target.location, bus.replica);
      await feed.open();
      const index = new RedisTaskIndex(client, target.prefix, target.location);
      const pushConfigs = new RedisPushConfigStore(client, target.prefix, target.location);
      // One connection and prefix: a settling task's webhook configs come back with its end.
      index.linkPushConfigs(pushConfigs);
      if (options.taskQueue) queue = await RedisTaskQueue.open<object>(target, options.taskQueue);
      return new RedisAgentState(
        client,
        subscriber,
        reader,
        feedWriter,
        target.location,
        index,
        pushConfigs,
        bus,
        feed,
        key,
        target.prefix,
        queue,
      );
    } catch (error) {
      client.disconnect();
      subscriber?.disconnect();
      reader?.disconnect();
      feedWriter?.disconnect();
      await queue?.close();
      // A missing bullmq is no Redis failure: it says which package to install.
      if (error instanceof MissingDependencyError) throw error;
      throw redisFailure(error, target.location);
    }
  }

  async close(): Promise<void> {
    this.cancelBus.close();
    const orderly = (async () => {
      await this.taskQueue?.close();
      await this.taskFeed.close();
      // The reader may be blocked in XREAD: it is cut, not asked to quit.
      this.reader.disconnect();
      // quit() is answered after what the feed's writer already sent (close() flushed its queue).
      await Promise.all(
        [this.client, this.subscriber, this.feedWriter].map((connection) =>
          connection.quit().catch(() => connection.disconnect()),
        ),
      );
    })();
    // With Redis gone, a last command (the feed's heartbeat delete, a quit) waits for a
    // connection that may never come back: after a bound every connection is cut, so a replica
    // can always stop.
    const stop = new AbortController();
    const inTime = await Promise.race([
      orderly.then(() => true),
      sleep(CLOSE_BOUND_MS, stop.signal).then(
        () => false,
        () => true,
      ),
    ]);
    stop.abort();
    if (!inTime) {
      for (const connection of [this.client, this.subscriber, this.reader, this.feedWriter]) connection.disconnect();
      // Not awaited: a step cut off may never settle, and stop() must return.
      orderly.catch(() => undefined);
    }
  }
}
