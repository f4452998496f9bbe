// The store connections send the commands issued in one event-loop turn in one socket write
// (redis-turn-writes.ts), seen from Redis's side: `total_reads_processed` in `INFO stats` counts
// the reads it made on client sockets, one per write that reached it. N commands issued in one
// turn on the registry store's or the agent state's command connection cost about one read, not
// N; a command issued alone still completes; commands issued while Redis is killed fail with
// redis_unavailable rather than wait, and the connection writes again once Redis is back; a
// store closed in the same turn as a command still settles that command.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { sleep } from '../../../src/core/clock.js';
import { RedisAgentState } from '../../../src/stores/redis/redis-agent-state.js';
import { RedisStoreError } from '../../../src/stores/redis/redis-error.js';
import { RedisRegistryStore } from '../../../src/stores/redis/redis-registry-store.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/** Commands issued in one turn. */
const N = 20;

async function readsSoFar(admin: Redis): Promise<number> {
  const match = /^total_reads_processed:(\d+)/m.exec(await admin.info('stats'));
  assert.ok(match, 'INFO stats has total_reads_processed');
  return Number(match[1]);
}

/**
 * The reads Redis made while `issue` ran, less the one for the INFO that ends the count (the INFO
 * that starts it was read before Redis wrote its figure).
 */
async function readsFor(admin: Redis, issue: () => Promise<unknown>): Promise<number> {
  const before = await readsSoFar(admin);
  await issue();
  return (await readsSoFar(admin)) - before - 1;
}

function isUnavailable(error: unknown): boolean {
  return error instanceof RedisStoreError && error.code === 'redis_unavailable';
}

describe('one socket write per event-loop turn on the store connections', { skip }, () => {
  let redis: RedisServer;
  let admin: Redis;

  before(async () => {
    redis = await startRedis();
    admin = testRedis(redis.url, { maxRetriesPerRequest: 0 });
  });

  after(async () => {
    admin?.disconnect();
    await redis?.dispose();
  });

  test('registry store: N commands issued in one turn, about one read', async (t) => {
    const store = new RedisRegistryStore(redis.url);
    await store.open();
    t.after(() => store.close());
    await store.get('http://127.0.0.1:1/warm-up');
    const reads = await readsFor(admin, () =>
      Promise.all(Array.from({ length: N }, (_, i) => store.get(`http://127.0.0.1:1/agent-${i}`))),
    );
    // One for the batch; at most one more if Redis woke up while the write was arriving.
    assert.ok(reads >= 1 && reads <= 2, `${N} commands in one turn took ${reads} reads`);
  });

  test('registry store: a command issued alone completes, and so does one issued from an immediate', async (t) => {
    const store = new RedisRegistryStore(redis.url);
    await store.open();
    t.after(() => store.close());
    assert.equal(await store.count(), 0);
    const fromImmediate = await new Promise<number>((resolve, reject) => {
      setImmediate(() => store.count().then(resolve, reject));
    });
    assert.equal(fromImmediate, 0);
  });

  test('agent state: N commands issued in one turn, about one read', async (t) => {
    const state = await RedisAgentState.open(redis.url, () => undefined);
    t.after(() => state.close());
    const scope = { tenant: '', principal: null };
    await state.taskIndex.get(scope, 'warm-up');
    const reads = await readsFor(admin, () =>
      Promise.all(Array.from({ length: N }, (_, i) => state.taskIndex.get(scope, `task-${i}`))),
    );
    // The replica's heartbeat (a SET once a second on the same connection) may add one.
    assert.ok(reads >= 1 && reads <= 3, `${N} commands in one turn took ${reads} reads`);
  });

  test('a store closed in the same turn as its commands still settles them', async () => {
    const store = new RedisRegistryStore(redis.url);
    await store.open();
    const pending = Array.from({ length: N }, (_, i) => store.get(`http://127.0.0.1:1/agent-${i}`));
    const closed = store.close();
    // Settled either way (quit flushes what was corked before closing); the point is that none waits.
    const settled = await Promise.allSettled(pending);
    await closed;
    assert.equal(settled.length, N);
    for (const result of settled) {
      if (result.status === 'rejected') assert.ok(isUnavailable(result.reason), String(result.reason));
    }
  });

  test('Redis killed: commands fail with redis_unavailable, and once it is back they go through again', async (t) => {
    const own = await startRedis();
    t.after(() => own.dispose());
    const store = new RedisRegistryStore(own.url);
    await store.open();
    t.after(() => store.close());
    await store.count();
    await own.stop();
    // Issued together, whether or not the client has seen the socket close yet: corked on a
    // dead socket or refused at once, every one fails, none waits.
    const results = await Promise.allSettled(Array.from({ length: N }, () => store.count()));
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      assert.ok(isUnavailable(result.reason), String(result.reason));
    }
    await own.restart();
    // The client reconnects by itself on a new socket; the hook must cork that one, not the old.
    let back = false;
    for (let attempt = 0; !back; attempt++) {
      assert.ok(attempt < 400, 'the store never got its connection back');
      back = await store.count().then(
        () => true,
        (error: unknown) => {
          assert.ok(isUnavailable(error), String(error));
          return false;
        },
      );
      if (!back) await sleep(50);
    }
    const ownAdmin = testRedis(own.url, { maxRetriesPerRequest: 0 });
    t.after(() => ownAdmin.disconnect());
    const reads = await readsFor(ownAdmin, () => Promise.all(Array.from({ length: N }, () => store.count())));
    assert.ok(reads >= 1 && reads <= 2, `${N} commands in one turn after a reconnect took ${reads} reads`);
  });
});
