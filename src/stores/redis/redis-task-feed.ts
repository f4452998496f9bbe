// The task feeds of one agent replica in Redis (docs/replicas.md, "Streams from any replica"):
// the publisher writing the events of the tasks it runs, the reader serving this replica's
// followers from its own connection, and the heartbeat that tells followers elsewhere this
// replica is still alive (`<prefix>replica:<name>`, set every second to expire after five).
import type { FeedEvent, TaskFeed } from '../task-feed.js';
import { RedisFeedPublisher } from './redis-feed-publisher.js';
import { RedisFeedReader } from './redis-feed-reader.js';
import type { RedisClient } from './redis-module.js';

const HEARTBEAT_EVERY_MS = 1000;
const HEARTBEAT_TTL_MS = 5000;

export class RedisTaskFeed implements TaskFeed {
  private readonly publisher: RedisFeedPublisher;
  private readonly reader: RedisFeedReader;
  private readonly heartbeatKey: string;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly client: RedisClient,
    readerConnection: RedisClient,
    prefix: string,
    location: string,
    replica: string,
  ) {
    const heartbeatKey = (name: string) => `${prefix}replica:${name}`;
    this.heartbeatKey = heartbeatKey(replica);
    this.publisher = new RedisFeedPublisher(client, prefix, replica);
    this.reader = new RedisFeedReader(client, readerConnection, prefix, location, heartbeatKey);
  }

  /** Writes the first heartbeat and starts beating. */
  async open(): Promise<void> {
    await this.reader.open();
    await this.client.set(this.heartbeatKey, '1', 'PX', HEARTBEAT_TTL_MS);
    this.timer = setInterval(() => {
      this.client.set(this.heartbeatKey, '1', 'PX', HEARTBEAT_TTL_MS).catch(() => undefined);
      this.publisher.retryUnsent();
    }, HEARTBEAT_EVERY_MS);
    this.timer.unref();
  }

  publish(taskId: string, event: Record<string, unknown>, last: boolean): void {
    this.publisher.publish(taskId, event, last);
  }

  tail(taskId: string): Promise<string> {
    return this.reader.tail(taskId);
  }

  follow(taskId: string, after: string): AsyncIterable<FeedEvent> {
    return this.reader.follow(taskId, after);
  }

  /** Stops beating and ends this replica's followers; followers elsewhere see the heartbeat go. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.publisher.close();
    this.reader.close();
    await this.client.del(this.heartbeatKey).catch(() => undefined);
  }
}
