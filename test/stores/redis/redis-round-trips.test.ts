// How many Redis commands each hot Redis-backed request costs, read from the server's own
// command statistics: a real agent and a real registry on a real redis-server, the statistics
// reset (CONFIG RESETSTAT), N requests sent one after another, then `INFO commandstats` read.
// Every command here is one round trip of the request that sent it (nothing is pipelined across
// requests when they are sent one at a time), so the count per request is the round trips it
// waits for. The pins are exact: a change that adds a command to a hot path fails here, and one
// that removes one says so by updating the pin (and docs/replicas.md, which states the counts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { RegistryServer } from '../../../src/registry/registry-server.js';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { commandCounts } from '../../support/redis-command-counts.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/** Requests per measured path: enough that a stray background command would show as a fraction. */
const N = 20;

/** The commands `send` costs, per call, over N sequential calls after one warm-up call. */
async function perRequest(admin: Redis, send: () => Promise<void>): Promise<Record<string, number>> {
  // The warm-up loads the scripts (SCRIPT LOAD or a first EVAL), which a running replica has done long before.
  await send();
  await admin.config('RESETSTAT');
  for (let i = 0; i < N; i++) await send();
  const counts = await commandCounts(admin);
  // Rounded down: a replica's background commands (the task feed's heartbeat SET, once a
  // second) may land in the window; they add less than one per request over N requests.
  return Object.fromEntries(
    Object.entries(counts)
      .map(([name, calls]) => [name, Math.floor(calls / N)] as const)
      .filter(([, perCall]) => perCall > 0),
  );
}

describe('Redis round trips per request', { skip }, () => {
  let redis: RedisServer;
  let admin: Redis;
  let agent: AgentServer;
  let registry: RegistryServer;

  before(async () => {
    redis = await startRedis();
    admin = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    agent = new AgentServer({ name: 'echo', url: 'http://127.0.0.1:0', a2a: true, store: redis.url });
    await agent.start();
    // A TTL, as `parley serve registry` sets one: discover then also prunes.
    registry = new RegistryServer({ url: 'http://127.0.0.1:0', store: redis.url, entryTtlSeconds: 3600 });
    await registry.start();
    for (let i = 0; i < 30; i++) {
      const card = { name: `agent-${i}`, url: `http://127.0.0.1:1/agent-${i}`, tags: [`tag-${i % 3}`, 'fleet'] };
      const response = await fetch(`${registry.url.replace(/\/$/, '')}/agents/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(card),
      });
      assert.equal(response.status, 200);
    }
  });

  after(async () => {
    await agent?.stop();
    await registry?.stop();
    admin?.disconnect();
    await redis?.dispose();
  });

  test('POST /tasks/ with an idempotency key', async () => {
    const base = agent.url.replace(/\/$/, '');
    const counts = await perRequest(admin, async () => {
      const id = randomUUID();
      const response = await fetch(`${base}/tasks/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': id },
        body: JSON.stringify({ id, messages: [{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }] }),
      });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as { state: string }).state, 'completed');
    });
    assert.deepEqual(counts, {
      // Two round trips: the claim before the task runs, storing the answer after (its own
      // minimum: the claim must be held before running, and the answer exists only after).
      // The claim of a free key is one plain SET (NX, with a lease, GET): no script.
      evalsha: 1,
      // Storing: check this run still owns the key, see whether the key has an older record to
      // forget (its weight), set the answer with its TTL, number it, add it to the order and the
      // weights, add its weight to the total; then the count, and the oldest record's first byte
      // (a live answer: nothing expired to drop).
      get: 1,
      set: 2,
      hget: 1,
      incr: 1,
      zadd: 1,
      hset: 1,
      incrby: 1,
      zcard: 1,
      zrange: 1,
      getrange: 1,
    });
  });

  test('A2A SendMessage (blocking)', async () => {
    const counts = await perRequest(admin, async () => {
      const sent = await call(agent.url, 'SendMessage', { message: userMessage('hello') });
      assert.equal(sent.result.task.status.state, 'TASK_STATE_COMPLETED');
    });
    assert.deepEqual(counts, {
      // Two round trips: adding the task before it runs (the caller's share and the index's bound
      // are checked, and every replica can find and cancel it while it runs), and its final state
      // before the answer (so every replica's GetTask sees it finished once the caller does).
      // The task's webhook configs (push notifications are on with `a2a`) are looked up by that
      // second script as it records the end: one ZSCORE, no round trip of its own.
      evalsha: 2,
      // Adding, below both bounds: the share's and the index's counts; then the task JSON and its
      // brief (state and context, what ListTasks filters read) in one MSET, its place in the
      // change order, the scope's and the share's orders, its scope and share recorded (new to
      // the index), marked active.
      // Finishing: the task JSON and brief, the three orders again, no longer active.
      zcard: 2,
      mset: 2,
      zadd: 6,
      hset: 2,
      sadd: 1,
      srem: 1,
      zscore: 1,
    });
  });

  test('registry discover by one tag', async () => {
    const base = registry.url.replace(/\/$/, '');
    const counts = await perRequest(admin, async () => {
      const response = await fetch(`${base}/agents/?tags=tag-1`);
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as unknown[]).length, 10);
    });
    assert.deepEqual(counts, {
      // One round trip: pruning and the lookup in one script.
      evalsha: 1,
      // The entries past the TTL (none), the tag's set, then the found entries and their
      // last_seen, all of them in one command each.
      zrangebyscore: 1,
      sinter: 1,
      hmget: 1,
      zmscore: 1,
    });
  });
});
