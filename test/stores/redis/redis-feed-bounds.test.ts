// The task feed's bounds, on a real redis-server (issue 33, item 3): the publisher's queue is
// bounded in bytes (a few large events cannot pile megabytes onto its connection), and a reader
// whose position was trimmed out of the feed says events were lost instead of skipping them,
// whether it fell behind while following or resumes from a position no longer kept (and a
// resume across a task's runs, each numbered from 1, is no loss). The feed's writer and reader
// are driven directly, each on its own connection as a replica runs them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisFeedPublisher, type FeedBounds } from '../../../src/stores/redis/redis-feed-publisher.js';
import { RedisFeedReader } from '../../../src/stores/redis/redis-feed-reader.js';
import { TaskFeedError, type FeedEvent } from '../../../src/stores/task-feed.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';

const skip = redisInstalled ? false : 'redis-server is not installed';
const PREFIX = 'bounds:';
const REPLICA = 'writer';
/** A feed that keeps only about this many entries, so a test reaches the trimming soon. */
const SHORT: FeedBounds = { maxLength: 10 };
/**
 * More than any feed keeps, the default one (about 1,000) included, even counting the whole
 * nodes Redis trims by (100 entries each).
 */
const MANY = 1500;
/** The publisher's byte bound (redis-feed-publisher.ts). */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

interface Followed {
  readonly events: FeedEvent[];
  readonly error: unknown;
}

/** Reads a follower to its end: the events it got and the error it ended with, if any. */
async function drain(feed: AsyncIterable<FeedEvent>, events: FeedEvent[] = []): Promise<Followed> {
  try {
    for await (const event of feed) events.push(event);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

describe('task feed bounds (Redis)', { skip, timeout: 60_000 }, () => {
  let redis: RedisServer;
  let client: Redis;
  const opened: Redis[] = [];
  const connect = () => {
    const connection = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    opened.push(connection);
    return connection;
  };

  before(async () => {
    redis = await startRedis(['--appendonly', 'no']);
    client = connect();
    // The writer's heartbeat, so readers never take it for gone.
    await client.set(`${PREFIX}replica:${REPLICA}`, '1');
  });

  after(async () => {
    for (const connection of opened) connection.disconnect();
    await redis?.dispose();
  });

  /** A publisher on its own connection, and that connection (to wait for what it sent). */
  const writer = (bounds?: FeedBounds) => {
    const connection = connect();
    return { publisher: new RedisFeedPublisher(connection, PREFIX, REPLICA, bounds), connection };
  };

  /** A reader on its own connection, and that connection (a test may stop reading from it). */
  const reader = async () => {
    const connection = connect();
    const feedReader = new RedisFeedReader(client, connection, PREFIX, 'test', (name) => `${PREFIX}replica:${name}`);
    await feedReader.open();
    return { feedReader, connection };
  };

  /** Resolves once Redis has answered everything the publisher sent until now. */
  const written = async (connection: Redis) => {
    // The publisher sends at the end of the turn; a command sent after that is answered after it.
    await new Promise((resolve) => setImmediate(resolve));
    await connection.ping();
  };

  const chunk = (i: number, text = '') => ({ artifact: { index: i, text } });

  test('events past the byte bound are dropped and the follower ends with events_lost', async () => {
    const taskId = randomUUID();
    const { publisher } = writer();
    const { feedReader } = await reader();
    const mark = await publisher.mark(taskId);
    assert.ok(mark);
    const followed = drain(feedReader.follow(taskId, mark));
    // Twelve events of 1 MiB, in one turn: more than the 8 MiB bound, far fewer than the 10,000 events one.
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 12; i++) publisher.publish(taskId, chunk(i, big), false);
    publisher.publish(taskId, { end: true }, true);
    const { events, error } = await followed;
    assert.ok(error instanceof TaskFeedError, `the follower ended with ${String(error)} after ${events.length} events`);
    assert.equal(error.code, 'events_lost');
    // What fit under the bound was written, in order, and nothing after the loss.
    assert.ok(events.length > 0 && events.length <= MAX_QUEUED_BYTES / big.length, `${events.length} events: ${error.message}`);
    assert.deepEqual(
      events.map(({ event }) => (event as any).artifact.index),
      events.map((_, i) => i),
    );
  });

  test('a follower whose reader fell behind the trimming ends with events_lost, not with the events after the gap', async () => {
    const taskId = randomUUID();
    const { publisher, connection: sent } = writer(SHORT);
    const { feedReader, connection: reading } = await reader();
    const mark = await publisher.mark(taskId);
    assert.ok(mark);
    const feed = feedReader.follow(taskId, mark)[Symbol.asyncIterator]();
    publisher.publish(taskId, chunk(0), false);
    const first = await feed.next();
    assert.equal(((first.value as FeedEvent).event as any).artifact.index, 0);
    // The reader stops taking answers from Redis: the feed is written and trimmed meanwhile.
    reading.stream.pause();
    for (let i = 1; i <= MANY; i++) publisher.publish(taskId, chunk(i), false);
    publisher.publish(taskId, { end: true }, true);
    await written(sent);
    assert.ok((await client.xlen(`${PREFIX}feed:${taskId}`)) < MANY, 'the feed was trimmed');
    reading.stream.resume();
    const { events, error } = await drain({ [Symbol.asyncIterator]: () => feed });
    assert.ok(error instanceof TaskFeedError, `the follower ended with ${String(error)} after ${events.length} more events`);
    assert.equal(error.code, 'events_lost');
    assert.match(error.message, /trimmed/);
    // Whatever it got before the gap was the events right after the first, in order.
    assert.deepEqual(
      events.map(({ event }) => (event as any).artifact.index),
      events.map((_, i) => i + 1),
    );
  });

  test('resuming from a position trimmed out of the feed ends with events_lost; from one still kept, it gets the rest', async () => {
    const taskId = randomUUID();
    const { publisher, connection: sent } = writer(SHORT);
    const { feedReader } = await reader();
    const mark = await publisher.mark(taskId);
    assert.ok(mark);
    for (let i = 0; i < MANY; i++) publisher.publish(taskId, chunk(i), false);
    publisher.publish(taskId, { end: true }, true);
    await written(sent);
    const key = `${PREFIX}feed:${taskId}`;
    assert.ok((await client.xlen(key)) < MANY, 'the feed was trimmed');
    const gone = await drain(feedReader.follow(taskId, mark));
    assert.deepEqual(gone.events, []);
    assert.ok(gone.error instanceof TaskFeedError, String(gone.error));
    assert.equal(gone.error.code, 'events_lost');
    // The fourth newest entry: after it come the last two events and the end.
    const kept = (await client.xrevrange(key, '+', '-', 'COUNT', 4))[3]![0];
    const rest = await drain(feedReader.follow(taskId, kept));
    assert.equal(rest.error, null);
    assert.deepEqual(
      rest.events.map(({ event }) => event),
      [chunk(MANY - 2), chunk(MANY - 1), { end: true }],
    );
  });

  test('a resume from the last event of one run reads the next run of the task (numbered anew) without a false loss', async () => {
    const taskId = randomUUID();
    const { publisher, connection: sent } = writer();
    const { feedReader } = await reader();
    // The first run ends (asking for input, say); the task's next run numbers its entries from 1 again.
    publisher.publish(taskId, chunk(0), false);
    publisher.publish(taskId, { end: 1 }, true);
    await written(sent);
    const key = `${PREFIX}feed:${taskId}`;
    const endOfFirst = (await client.xrevrange(key, '+', '-', 'COUNT', 1))[0]![0];
    assert.ok(await publisher.mark(taskId));
    publisher.publish(taskId, chunk(1), false);
    publisher.publish(taskId, { end: 2 }, true);
    await written(sent);
    const next = await drain(feedReader.follow(taskId, endOfFirst));
    assert.equal(next.error, null);
    assert.deepEqual(
      next.events.map(({ event }) => event),
      [chunk(1), { end: 2 }],
    );
  });
});
