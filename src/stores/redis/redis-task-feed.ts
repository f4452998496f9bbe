// The task feeds of one agent replica in Redis (docs/replicas.md, "Streams from any replica").
// A task's events are written only once someone watches it: a subscriber (on any replica)
// publishes a watch request on `<prefix>watch`; the replica running the task starts writing its
// events, writes a mark through the same queue, and answers with the mark's position, where the
// subscriber starts. A task nobody watches costs Redis nothing. Also here: the reader serving
// this replica's followers from its own connection, the publisher writing on another of its own
// (so a large task's events never hold back the task store's commands), and the heartbeat that tells followers
// elsewhere this replica is alive (`<prefix>replica:<name>`, set every second, expiring after five).
import type { FeedEvent, TaskFeed } from '../task-feed.js';
import { RedisFeedPublisher } from './redis-feed-publisher.js';
import { RedisFeedReader, type FeedReaderCounts } from './redis-feed-reader.js';
import type { RedisClient } from './redis-module.js';
import { heardObject, RedisReplicaPoll } from './redis-replica-poll.js';

const HEARTBEAT_EVERY_MS = 1000;
const HEARTBEAT_TTL_MS = 5000;
/** Longest wait for the replicas' answers to a watch request. */
const WATCH_ANSWER_MS = 2000;

interface WatchRequest {
  readonly ask: string;
  readonly replyTo: string;
  readonly id: string;
}

interface WatchReply {
  readonly ask: string;
  /** The mark's position, when the answering replica runs the task. */
  readonly after: string | null;
}

export class RedisTaskFeed implements TaskFeed {
  private readonly publisher: RedisFeedPublisher;
  private readonly reader: RedisFeedReader;
  private readonly heartbeatKey: string;
  private readonly requests: string;
  private readonly replies: string;
  private timer: NodeJS.Timeout | null = null;
  /** Tasks running here: whether someone watches each (then its events are written). */
  private readonly running = new Map<string, boolean>();
  /** Watch requests asked of every replica; the answer is the mark's position. */
  private readonly poll: RedisReplicaPoll<string>;

  constructor(
    private readonly client: RedisClient,
    private readonly subscriber: RedisClient,
    readerConnection: RedisClient,
    /** The publisher's own connection: events queued there hold back none of the replica's other writes. */
    writerConnection: RedisClient,
    prefix: string,
    location: string,
    replica: string,
  ) {
    const heartbeatKey = (name: string) => `${prefix}replica:${name}`;
    this.heartbeatKey = heartbeatKey(replica);
    this.requests = `${prefix}watch`;
    this.replies = `${prefix}watch:${replica}`;
    this.poll = new RedisReplicaPoll(client, this.requests, location, WATCH_ANSWER_MS);
    this.publisher = new RedisFeedPublisher(writerConnection, prefix, replica);
    this.reader = new RedisFeedReader(client, readerConnection, prefix, location, heartbeatKey);
    subscriber.on('message', (channel: string, text: string) => this.heard(channel, text));
  }

  /** Writes the first heartbeat, starts beating and listens for watch requests. */
  async open(): Promise<void> {
    await this.reader.open();
    await this.subscriber.subscribe(this.requests, this.replies);
    await this.client.set(this.heartbeatKey, '1', 'PX', HEARTBEAT_TTL_MS);
    this.timer = setInterval(() => {
      this.client.set(this.heartbeatKey, '1', 'PX', HEARTBEAT_TTL_MS).catch(() => undefined);
      this.publisher.retryUnsent();
    }, HEARTBEAT_EVERY_MS);
    this.timer.unref();
  }

  begin(taskId: string): void {
    if (!this.running.has(taskId)) this.running.set(taskId, false);
  }

  watched(taskId: string): boolean {
    return this.running.get(taskId) === true;
  }

  end(taskId: string): void {
    this.running.delete(taskId);
  }

  publish(taskId: string, event: Record<string, unknown>, last: boolean): void {
    const watched = this.running.get(taskId);
    if (last) this.running.delete(taskId);
    if (watched) this.publisher.publish(taskId, event, last);
  }

  async watch(taskId: string): Promise<string | null> {
    const after = await this.poll.ask((ask): WatchRequest => ({ ask, replyTo: this.replies, id: taskId }));
    return after ?? null;
  }

  follow(taskId: string, after: string): AsyncIterable<FeedEvent> {
    return this.reader.follow(taskId, after);
  }

  /** What this replica's reader holds for its followers (the bound on a slow one's unread events). */
  readerCounts(): FeedReaderCounts {
    return this.reader.counts();
  }

  /** Stops beating and ends this replica's followers; followers elsewhere see the heartbeat go. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.poll.close();
    this.publisher.close();
    this.reader.close();
    await this.client.del(this.heartbeatKey).catch(() => undefined);
  }

  private heard(channel: string, text: string): void {
    if (channel !== this.requests && channel !== this.replies) return;
    const message = heardObject(text);
    if (!message) return;
    if (channel === this.requests) void this.answer(message as WatchRequest);
    else this.received(message as WatchReply);
  }

  private async answer(request: WatchRequest): Promise<void> {
    let after: string | null = null;
    if (typeof request.id === 'string' && this.running.has(request.id)) {
      this.running.set(request.id, true);
      after = await this.publisher.mark(request.id);
    }
    const reply: WatchReply = { ask: request.ask, after };
    // A lost answer only makes the asker wait for its deadline.
    this.client.publish(String(request.replyTo), JSON.stringify(reply)).catch(() => undefined);
  }

  private received(reply: WatchReply): void {
    this.poll.answered(reply.ask, typeof reply.after === 'string' ? reply.after : undefined);
  }
}
