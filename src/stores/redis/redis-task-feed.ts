// The task feeds of one agent replica in Redis (docs/replicas.md, "Streams from any replica").
// A task's events are written only once someone watches it: a subscriber (on any replica)
// publishes a watch request on `<prefix>watch`; the replica running the task starts writing its
// events, writes a mark through the same queue, and answers with the mark's position, where the
// subscriber starts. A task nobody watches costs Redis nothing. Also here: the reader serving
// this replica's followers from its own connection, the publisher writing on another of its own
// (so a large task's events never hold back the task store's commands), and the heartbeat that tells followers
// elsewhere this replica is alive (`<prefix>replica:<name>`, set every second, expiring after five).
//
// A task still waiting in the queue has no replica to answer a watch. Its subscriber then leaves
// word in `<prefix>queued-watch:<task id>` and writes a queued mark in the task's feed itself (an
// entry naming no runner, `r` empty, and no number: the runner's entries count from 1 as usual),
// where it starts following. The worker that takes the task reads the word before the run
// starts and writes its events from then on, beginning with a watch mark that names it as the
// runner; a subscriber that left word just after that read is answered by the worker through an
// ordinary watch, asked once more after the word is written. Until a runner is named, the reader
// judges the wait by the task index (redis-feed-reader.ts), not by a heartbeat. The word expires
// with the feed's running TTL; a new subscriber renews it. A task handed back to the queue by a
// stopping replica gets the same word and a mark (`h`) ending its runner's turn (`handBack`), and
// the worker that takes a job after a cut-off start writes its events when the task has a feed.
import type { FeedEvent, TaskFeed, WaitingCheck } from '../task-feed.js';
import { feedKey, RedisFeedPublisher } from './redis-feed-publisher.js';
import { RedisFeedReader, type FeedReaderCounts } from './redis-feed-reader.js';
import type { RedisClient } from './redis-module.js';
import { heardObject, RedisReplicaPoll } from './redis-replica-poll.js';

const HEARTBEAT_EVERY_MS = 1000;
const HEARTBEAT_TTL_MS = 5000;
/** Longest wait for the replicas' answers to a watch request. */
const WATCH_ANSWER_MS = 2000;
/** How long the word a queued task's subscriber leaves is kept (as long as a running task's feed). */
const QUEUED_WATCH_TTL_MS = 60 * 60 * 1000;

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
  private readonly prefix: string;
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
    this.prefix = prefix;
    this.requests = `${prefix}watch`;
    this.replies = `${prefix}watch:${replica}`;
    this.poll = new RedisReplicaPoll(client, this.requests, location, WATCH_ANSWER_MS);
    this.publisher = new RedisFeedPublisher(writerConnection, prefix, replica);
    this.reader = new RedisFeedReader(client, readerConnection, prefix, location, heartbeatKey, (taskId) =>
      this.orphaned(taskId),
    );
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

  async beginQueued(taskId: string, resumed = false): Promise<void> {
    this.begin(taskId);
    let waited = false;
    try {
      // After a start whose replica died, a feed the task has is a sign of followers: they may not
      // have noticed yet (the dead replica's heartbeat outlives its lock), so nobody left word.
      const keys = resumed ? [this.queuedWatchKey(taskId), feedKey(this.prefix, taskId)] : [this.queuedWatchKey(taskId)];
      waited = (await this.client.exists(...keys)) > 0;
    } catch {
      // Redis away: nobody can follow the feed either.
    }
    // Watched already (a watch came meanwhile) or ended: nothing to add.
    if (!waited || this.running.get(taskId) !== false) return;
    this.running.set(taskId, true);
    // Names this replica as the runner before the index shows the task working, so the reader's
    // liveness check moves from the index to this replica's heartbeat without a gap.
    await this.publisher.mark(taskId);
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

  async watchQueued(taskId: string): Promise<string | null> {
    const key = feedKey(this.prefix, taskId);
    let position: string | null;
    try {
      const results = await this.client
        .multi()
        .set(this.queuedWatchKey(taskId), '1', 'PX', QUEUED_WATCH_TTL_MS)
        .xadd(key, '*', 'r', '', 'q', '1')
        .pexpire(key, QUEUED_WATCH_TTL_MS)
        .exec();
      const [error, id] = results?.[1] ?? [new Error('no answer'), null];
      position = error ? null : String(id);
    } catch {
      return null;
    }
    // A worker that took the task before the word was written did not see it: asked now, it
    // writes the events from here on (after the queued mark, so the follower misses none).
    await this.watch(taskId);
    return position;
  }

  async handBack(taskId: string): Promise<void> {
    const watched = this.running.get(taskId) === true;
    this.running.delete(taskId);
    if (!watched) return;
    const key = feedKey(this.prefix, taskId);
    // `h` tells the readers this mark, unlike a new subscriber's queued mark, ends the named
    // runner's turn; no number: the next runner counts its entries from 1.
    await this.client
      .multi()
      .set(this.queuedWatchKey(taskId), '1', 'PX', QUEUED_WATCH_TTL_MS)
      .xadd(key, '*', 'r', '', 'q', '1', 'h', '1')
      .pexpire(key, QUEUED_WATCH_TTL_MS)
      .exec()
      .catch(() => undefined);
  }

  /**
   * The reader found a followed task's runner gone while its job is still pending (the runner's
   * replica died, or handed it back without saying so): word for the next worker, and a watch in
   * case one has taken it already.
   */
  private async orphaned(taskId: string): Promise<void> {
    await this.client.set(this.queuedWatchKey(taskId), '1', 'PX', QUEUED_WATCH_TTL_MS).catch(() => undefined);
    await this.watch(taskId).catch(() => null);
  }

  async settleQueued(taskId: string, event: Record<string, unknown>): Promise<void> {
    const word = this.queuedWatchKey(taskId);
    // One round trip: only a task someone waits for gets the event.
    if ((await this.client.del(word).catch(() => 0)) !== 1) return;
    this.publisher.publish(taskId, event, true);
  }

  follow(taskId: string, after: string, queued?: WaitingCheck): AsyncIterable<FeedEvent> {
    return this.reader.follow(taskId, after, queued);
  }

  private queuedWatchKey(taskId: string): string {
    return `${this.prefix}queued-watch:${taskId}`;
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
