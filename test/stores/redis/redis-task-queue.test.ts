// Tasks nobody waits for (A2A SendMessage with returnImmediately) on the queue the replicas share
// through a real redis-server, each replica its own process. Each suite starts two replicas with
// the queue's lock shortened to two seconds (a test setting: the default is 15 s) so that a replica
// killed with SIGKILL in the middle of a task is noticed soon: the task then completes on the
// other replica when the handler is rerunnable, or ends failed saying why when it is not, and is
// never left working. A handler that always throws ends failed after a bounded number of starts
// and the queue goes on; Redis killed and restarted (append-only, fsync always) with tasks
// waiting in the queue loses none of them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { eventually, type Replica, startReplica } from './replicas.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/**
 * A test setting: a silent replica loses its task after two seconds, checked twice a second (long
 * enough that a replica on a loaded machine keeps renewing its lock, short enough to notice a kill soon).
 */
const SHORT_LOCK = JSON.stringify({ lockDurationMs: 2000, stalledIntervalMs: 500, attempts: 3 });

interface Cluster {
  redis: RedisServer;
  client: Redis;
  replicas: Replica[];
}

async function startCluster(env: Record<string, string>, names = ['q0', 'q1']): Promise<Cluster> {
  const redis = await startRedis();
  const client = testRedis(redis.url, { maxRetriesPerRequest: 0 });
  const replicas = await Promise.all(names.map((name) => startReplica(redis.url, name, env)));
  return { redis, client, replicas };
}

async function stopCluster(cluster: Cluster | undefined): Promise<void> {
  if (!cluster) return;
  await Promise.all(cluster.replicas.map((replica) => replica.stop()));
  cluster.client.disconnect();
  await cluster.redis.dispose();
}

async function sendQueued(url: string, text: string): Promise<string> {
  const sent = await call(url, 'SendMessage', { message: userMessage(text), configuration: { returnImmediately: true } });
  assert.ok(sent.result?.task?.id, JSON.stringify(sent));
  return sent.result.task.id;
}

const settled = (answer: any) =>
  ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED'].includes(answer.result?.status?.state);

/** Kills the replica running `input` (by the name its handler wrote) and answers the survivors. */
async function killRunner(cluster: Cluster, input: string): Promise<{ killed: Replica; survivors: Replica[] }> {
  const name = await cluster.client.get(`parley-test:runner:${input}`);
  const killed = cluster.replicas.find((replica) => replica.name === name);
  assert.ok(killed, `a replica runs ${input} (runner ${name})`);
  const exited = new Promise((resolve) => killed.child.once('exit', resolve));
  killed.child.kill('SIGKILL');
  await exited;
  return { killed, survivors: cluster.replicas.filter((replica) => replica !== killed) };
}

test('taskQueue settings are checked when the agent is built, naming the field', () => {
  const rows: [Record<string, number>, RegExp][] = [
    [{ concurrency: 0 }, /taskQueue\.concurrency must be a whole number, at least 1 \(got 0\)/],
    [{ concurrency: 1.5 }, /taskQueue\.concurrency/],
    [{ lockDurationMs: 10 }, /taskQueue\.lockDurationMs must be a whole number, at least 100/],
    [{ stalledIntervalMs: -1 }, /taskQueue\.stalledIntervalMs/],
    [{ attempts: 0 }, /taskQueue\.attempts must be a whole number, at least 1/],
  ];
  for (const [taskQueue, message] of rows) {
    assert.throws(() => new AgentServer({ name: 'echo', a2a: true, taskQueue }), message);
  }
});

test('an agent stopped and started again works the queue on its new connection', { skip }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.dispose());
  const agent = new AgentServer({ name: 'echo', a2a: true, store: redis.url, taskQueue: { concurrency: 1 } });
  t.after(() => agent.stop());
  for (let round = 0; round < 2; round++) {
    await agent.start();
    const id = await sendQueued(agent.url.replace(/\/$/, ''), `round ${round}`);
    const seen = await eventually(() => call(agent.url.replace(/\/$/, ''), 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
    if (round === 0) await agent.stop();
  }
});

describe('queued tasks, handler not rerunnable', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ PARLEY_TEST_QUEUE: SHORT_LOCK });
  });
  after(() => stopCluster(cluster));
  const runs = async (input: string) => Number((await cluster.client.get(`parley-test:runs:${input}`)) ?? 0);

  test('a queued task runs on a replica and every replica sees it completed', async () => {
    const input = `queued ${randomUUID()}`;
    const id = await sendQueued(cluster.replicas[0]!.url, input);
    for (const replica of cluster.replicas) {
      const seen = await eventually(() => call(replica.url, 'GetTask', { id }), settled);
      assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
    }
    assert.equal(await runs(input), 1);
  });

  test('the replica running it killed: the task ends failed, saying why, seen from the other replica', async () => {
    const input = `gate ${randomUUID()}`;
    const id = await sendQueued(cluster.replicas[0]!.url, input);
    await eventually(
      () => runs(input),
      (count) => count === 1,
    );
    const { survivors } = await killRunner(cluster, input);
    const seen = await eventually(() => call(survivors[0]!.url, 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_FAILED', JSON.stringify(seen));
    assert.equal(seen.result.metadata.error.code, 'replica_stopped');
    assert.equal(seen.result.metadata.state_history.at(-1).reason, 'the replica running it stopped');
    assert.equal(await runs(input), 1, 'not run again');
    // The surviving replica still serves the queue.
    const next = `queued ${randomUUID()}`;
    const nextId = await sendQueued(survivors[0]!.url, next);
    const done = await eventually(() => call(survivors[0]!.url, 'GetTask', { id: nextId }), settled);
    assert.equal(done.result.status.state, 'TASK_STATE_COMPLETED');
  });

  test('a handler that throws ends failed once, and the queue goes on', async () => {
    const replica = cluster.replicas.find((each) => each.alive())!;
    const input = `throw ${randomUUID()}`;
    const id = await sendQueued(replica.url, input);
    const seen = await eventually(() => call(replica.url, 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_FAILED');
    assert.equal(await runs(input), 1);
  });
});

describe('queued tasks, handler rerunnable', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ PARLEY_TEST_QUEUE: SHORT_LOCK, PARLEY_TEST_RERUNNABLE: '1' });
  });
  after(() => stopCluster(cluster));
  const runs = async (input: string) => Number((await cluster.client.get(`parley-test:runs:${input}`)) ?? 0);

  test('the replica running it killed: the task runs again on the other replica and completes there', async () => {
    const input = `gate ${randomUUID()}`;
    const id = await sendQueued(cluster.replicas[0]!.url, input);
    await eventually(
      () => runs(input),
      (count) => count === 1,
    );
    const { killed, survivors } = await killRunner(cluster, input);
    // The survivor's stalled-job check hands the task on; its second start waits at the gate.
    assert.equal(
      await eventually(
        () => runs(input),
        (count) => count === 2,
      ),
      2,
    );
    await cluster.client.rpush(`parley-test:gate:${input}`, 'go');
    const seen = await eventually(() => call(survivors[0]!.url, 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
    const text = JSON.stringify(seen.result.artifacts);
    assert.ok(text.includes(`${survivors[0]!.name}: ${input}`), text);
    assert.ok(!text.includes(`${killed.name}:`), text);
  });

  test('a poison task (its handler always throws) ends failed after three starts, and the queue goes on', async () => {
    const replica = cluster.replicas.find((each) => each.alive())!;
    const input = `throw ${randomUUID()}`;
    const id = await sendQueued(replica.url, input);
    const after = `queued ${randomUUID()}`;
    const afterId = await sendQueued(replica.url, after);
    const seen = await eventually(() => call(replica.url, 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_FAILED', JSON.stringify(seen));
    assert.match(seen.result.metadata.error.message, /cannot do throw/);
    assert.equal(await runs(input), 3, 'three starts, then failed');
    const next = await eventually(() => call(replica.url, 'GetTask', { id: afterId }), settled);
    assert.equal(next.result.status.state, 'TASK_STATE_COMPLETED');
  });
});

describe('queued tasks and a Redis restart', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    // One task at a time per replica, so that held tasks keep the rest waiting in the queue.
    const settings = JSON.stringify({ concurrency: 1, lockDurationMs: 5000, stalledIntervalMs: 1000 });
    cluster = await startCluster({ PARLEY_TEST_QUEUE: settings });
  });
  after(() => stopCluster(cluster));
  const runs = async (input: string) => Number((await cluster.client.get(`parley-test:runs:${input}`)) ?? 0);

  test('CancelTask from any replica: a task still in the queue never runs, a running one stops where it runs', async () => {
    const holds: { id: string; input: string }[] = [];
    for (const replica of cluster.replicas) {
      const input = `hold ${randomUUID()}`;
      holds.push({ id: await sendQueued(replica.url, input), input });
      await eventually(
        () => runs(input),
        (count) => count === 1,
      );
    }
    const waiting = `queued ${randomUUID()}`;
    const waitingId = await sendQueued(cluster.replicas[0]!.url, waiting);
    const canceled = await call(cluster.replicas[1]!.url, 'CancelTask', { id: waitingId });
    assert.equal(canceled.result?.status.state, 'TASK_STATE_CANCELED', JSON.stringify(canceled));
    // Each running task canceled from the replica that does not run it.
    for (const { id, input } of holds) {
      const runner = await cluster.client.get(`parley-test:runner:${input}`);
      const other = cluster.replicas.find((replica) => replica.name !== runner)!;
      const stopped = await call(other.url, 'CancelTask', { id });
      assert.equal(stopped.result?.status.state, 'TASK_STATE_CANCELED', JSON.stringify(stopped));
    }
    for (const { id } of [...holds, { id: waitingId }]) {
      for (const replica of cluster.replicas) {
        const seen = await eventually(() => call(replica.url, 'GetTask', { id }), settled);
        assert.equal(seen.result.status.state, 'TASK_STATE_CANCELED');
      }
    }
    // The workers are free again: a task sent now runs, and the canceled one has not.
    const next = `queued ${randomUUID()}`;
    const nextId = await sendQueued(cluster.replicas[1]!.url, next);
    const done = await eventually(() => call(cluster.replicas[0]!.url, 'GetTask', { id: nextId }), settled);
    assert.equal(done.result.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(await runs(waiting), 0, 'the canceled task never ran');
  });

  test('Redis killed and restarted with tasks queued: every acknowledged task still runs', async () => {
    const [first, second] = cluster.replicas;
    // Both workers busy with tasks that wait for a cancel.
    const holds: string[] = [];
    for (const replica of cluster.replicas) {
      const input = `hold ${randomUUID()}`;
      holds.push(await sendQueued(replica.url, input));
      await eventually(
        () => runs(input),
        (count) => count === 1,
      );
    }
    const queued: { id: string; input: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const input = `queued ${randomUUID()}`;
      queued.push({ id: await sendQueued(cluster.replicas[i % 2]!.url, input), input });
    }
    for (const { input } of queued) assert.equal(await runs(input), 0, 'waiting in the queue');
    await cluster.redis.stop('SIGKILL');
    await cluster.redis.restart();
    // Free the workers; the queued tasks then run.
    for (const id of holds) {
      const canceled = await eventually(
        () => call(first!.url, 'CancelTask', { id }),
        (answer) => answer.result !== undefined || answer.error?.code === -32002,
      );
      assert.ok(canceled.result || canceled.error.code === -32002, JSON.stringify(canceled));
    }
    for (const { id, input } of queued) {
      const seen = await eventually(() => call(second!.url, 'GetTask', { id }), settled);
      assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
      assert.equal(await runs(input), 1);
    }
  });
});
