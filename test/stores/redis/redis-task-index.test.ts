// The A2A task index on a real redis-server keeps the in-memory index's rules (spec: "A2A task
// index"): expiry after the last change, active tasks never expired nor evicted, expired then
// least recently changed inactive tasks evicted first, a new task refused when every slot is
// active, lookups scoped to tenant and principal, listings newest status first with ties by
// id. One rule more: a second activation of a task some replica runs is refused. A task that
// finished while Redis was away is written once it is back. The clock is the test's; each test
// has its own key prefix.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { TaskIndexFullError, type IndexedTask, type TaskScope } from '../../../src/a2a/handler/task-index.js';
import { connectRedis, parseRedisUrl } from '../../../src/stores/redis/redis-connection.js';
import { RedisStoreError } from '../../../src/stores/redis/redis-error.js';
import { definePushConfigScripts, RedisPushConfigStore } from '../../../src/stores/redis/redis-push-config-store.js';
import { defineTaskIndexScripts, RedisTaskIndex } from '../../../src/stores/redis/redis-task-index.js';
import { EndpointError } from '../../../src/transport/endpoint-error.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { shareTests, type ShareOptions } from '../../support/task-index-shares.js';

const scope: TaskScope = { tenant: '', principal: null };

function entry(id: string, options: { active?: boolean; tenant?: string; owner?: string | null; at?: string } = {}): IndexedTask {
  const at = options.at ?? '2026-01-01T00:00:00.000Z';
  return {
    id,
    contextId: 'ctx',
    tenant: options.tenant ?? '',
    owner: options.owner ?? null,
    active: options.active ?? false,
    task: {
      id,
      state: options.active ? 'working' : 'completed',
      metadata: { state_history: [{ state: 'completed', timestamp: at }] },
    },
  };
}

describe('RedisTaskIndex', { skip: redisInstalled ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  let client: Redis;
  let prefixes = 0;
  before(async () => {
    redis = await startRedis();
    client = testRedis(redis.url);
    // Every index made below listens for the client's 'ready': more than Node's default of ten.
    client.setMaxListeners(50);
    defineTaskIndexScripts(client);
    definePushConfigScripts(client);
  });
  after(async () => {
    client?.disconnect();
    await redis?.dispose();
  });

  function index(options: ShareOptions = {}) {
    let now = 1_000_000;
    const made = new RedisTaskIndex(client, `ti${++prefixes}:`, redis.url, options, () => now);
    return { index: made, advance: (ms: number) => (now += ms) };
  }

  describe("the callers' shares", () => shareTests(index));

  test("settle records a task's end and answers its push configs, kept alive as touch keeps them", async () => {
    let now = 1_000_000;
    const prefix = `ti${++prefixes}:`;
    const tasks = new RedisTaskIndex(client, prefix, redis.url, {}, () => now);
    const configs = new RedisPushConfigStore(client, prefix, redis.url, { ttlMs: 1000 }, () => now);
    const other = new RedisPushConfigStore(client, `ti${++prefixes}:`, redis.url, { ttlMs: 1000 }, () => now);
    tasks.linkPushConfigs(configs);
    const hook = (id: string, taskId: string) => ({
      tenant: '',
      owner: null,
      taskId,
      id,
      url: `http://127.0.0.1:1/${id}`,
      token: '',
      authentication: null,
    });
    await tasks.add(entry('with', { active: true }));
    await tasks.add(entry('without', { active: true }));
    await configs.put(hook('b', 'with'));
    await configs.put(hook('a', 'with'));
    now += 900;
    // Ended: recorded, and both configs come back by id.
    assert.deepEqual(
      (await tasks.settle(entry('with'), configs))?.map((config) => config.id),
      ['a', 'b'],
    );
    assert.equal((await tasks.get(scope, 'with'))?.active, false);
    // Kept alive another TTL from the settle, as touch would: still there past the first TTL.
    now += 900;
    assert.equal((await configs.list(scope, 'with')).length, 2);
    // A task without configs: none. A store the index is not linked to: null, after a plain update.
    assert.deepEqual(await tasks.settle(entry('without'), configs), []);
    await tasks.add(entry('third', { active: true }));
    assert.equal(await tasks.settle(entry('third'), other), null);
    assert.equal((await tasks.get(scope, 'third'))?.active, false);
  });

  test('a task expires an hour after its last change, an active one never', async () => {
    const { index: tasks, advance } = index();
    await tasks.add(entry('a'));
    await tasks.add(entry('b', { active: true }));
    advance(3_600_000);
    assert.ok(await tasks.get(scope, 'a'), 'exactly one hour old is still kept');
    advance(1);
    assert.equal(await tasks.get(scope, 'a'), undefined);
    advance(10 * 3_600_000);
    assert.ok(await tasks.get(scope, 'b'));
  });

  test('when full, expired tasks go first, then the inactive one changed longest ago; active ones stay', async () => {
    const { index: tasks, advance } = index({ maxTasks: 3 });
    await tasks.add(entry('active', { active: true }));
    await tasks.add(entry('old'));
    advance(10);
    await tasks.add(entry('newer'));
    advance(10);
    await tasks.update((await tasks.get(scope, 'old'))!);
    await tasks.add(entry('fourth'));
    assert.ok(await tasks.get(scope, 'active'));
    assert.ok(await tasks.get(scope, 'old'), 'touched again, so no longer the oldest');
    assert.equal(await tasks.get(scope, 'newer'), undefined, 'the least recently changed inactive task is evicted');
    assert.equal((await tasks.list(scope, { limit: 10 })).total, 3);
  });

  test('a new task is refused when every slot is active', async () => {
    const { index: tasks } = index({ maxTasks: 2 });
    await tasks.add(entry('a', { active: true }));
    await tasks.add(entry('b', { active: true }));
    await assert.rejects(
      tasks.add(entry('c')),
      (error) => error instanceof TaskIndexFullError && error.code === 'task_index_full',
    );
    assert.equal(await tasks.get(scope, 'c'), undefined);
  });

  test('lookups and listings are scoped to tenant and principal', async () => {
    const { index: tasks } = index();
    await tasks.add(entry('mine', { tenant: 't', owner: 'alice' }));
    assert.ok(await tasks.get({ tenant: 't', principal: 'alice' }, 'mine'));
    assert.equal(await tasks.get({ tenant: 't', principal: 'bob' }, 'mine'), undefined);
    assert.equal(await tasks.get({ tenant: 'u', principal: 'alice' }, 'mine'), undefined);
    assert.equal(await tasks.get({ tenant: 't', principal: null }, 'mine'), undefined);
    assert.equal((await tasks.list({ tenant: 't', principal: 'bob' }, { limit: 10 })).total, 0);
    assert.equal((await tasks.list({ tenant: 't', principal: 'alice' }, { limit: 10 })).total, 1);
  });

  test('list orders by status time, newest first (ties by id, descending), and continues after a cursor', async () => {
    const { index: tasks } = index();
    await tasks.add(entry('a', { at: '2026-01-01T00:00:01.000Z' }));
    await tasks.add(entry('b', { at: '2026-01-01T00:00:03.000Z' }));
    await tasks.add(entry('c', { at: '2026-01-01T00:00:02.000Z' }));
    await tasks.add(entry('d', { at: '2026-01-01T00:00:02.000Z' }));
    const first = await tasks.list(scope, { limit: 2 });
    assert.deepEqual(
      first.tasks.map((task) => task.id),
      ['b', 'd'],
    );
    assert.equal(first.more, true);
    const rest = await tasks.list(scope, { limit: 2, after: { time: Date.parse('2026-01-01T00:00:02.000Z'), id: 'd' } });
    assert.deepEqual(
      rest.tasks.map((task) => task.id),
      ['c', 'a'],
    );
    assert.equal(rest.more, false);
    assert.equal(rest.total, 4);
  });

  test('activating a task another run already holds is refused (two replicas racing on one follow-up)', async () => {
    const { index: tasks } = index();
    await tasks.add(entry('t'));
    const first = (await tasks.get(scope, 't'))!;
    const second = (await tasks.get(scope, 't'))!;
    first.active = true;
    second.active = true;
    await tasks.update(first);
    await assert.rejects(tasks.update(second), (error) => error instanceof EndpointError && error.code === 'conflict');
    first.active = false;
    await tasks.update(first);
    await tasks.update(second);
  });

  test("a run's progress does not bring back a task settled meanwhile elsewhere; a running one takes it", async () => {
    const { index: tasks } = index();
    const running = entry('p', { active: true });
    await tasks.add(running);
    // Another replica settles the task (a cancel nobody answered) before this run's progress lands.
    const elsewhere = (await tasks.get(scope, 'p'))!;
    elsewhere.active = false;
    elsewhere.task.state = 'canceled';
    await tasks.update(elsewhere);
    running.task.state = 'input-required';
    await tasks.update(running, true);
    assert.equal((await tasks.get(scope, 'p'))!.task.state, 'canceled');
    // Progress of a task still running is written.
    const other = entry('q', { active: true });
    await tasks.add(other);
    other.task.state = 'input-required';
    await tasks.update(other, true);
    const seen = (await tasks.get(scope, 'q'))!;
    assert.deepEqual([seen.task.state, seen.active], ['input-required', true]);
  });
});

test('a task that finished while Redis was away is written once Redis is back', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async (t) => {
  const own = await startRedis();
  t.after(() => own.dispose());
  const client = await connectRedis(parseRedisUrl(own.url));
  t.after(() => client.disconnect());
  defineTaskIndexScripts(client);
  definePushConfigScripts(client);
  const tasks = new RedisTaskIndex(client, 'away:', own.url);
  const configs = new RedisPushConfigStore(client, 'away:', own.url);
  tasks.linkPushConfigs(configs);
  const running = entry('t', { active: true });
  await tasks.add(running);
  // Another, ended by settle (the end of a blocking SendMessage with push notifications on).
  const pushed = entry('p', { active: true });
  await tasks.add(pushed);
  await own.stop();
  const finished: IndexedTask = { ...running, active: false, task: { ...running.task, state: 'completed' } };
  await assert.rejects(tasks.update(finished), (error) => error instanceof RedisStoreError && error.code === 'redis_unavailable');
  const settled: IndexedTask = { ...pushed, active: false, task: { ...pushed.task, state: 'completed' } };
  await assert.rejects(
    tasks.settle(settled, configs),
    (error) => error instanceof RedisStoreError && error.code === 'redis_unavailable',
  );
  await own.restart();
  for (const id of ['t', 'p']) {
    let seen = await tasks.get(scope, id).catch(() => undefined);
    for (let i = 0; i < 200 && seen?.active !== false; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = await tasks.get(scope, id).catch(() => undefined);
    }
    assert.equal(seen?.active, false, id);
    assert.equal(seen?.task.state, 'completed', id);
  }
});
