// The life of a queued A2A task (SendMessage with returnImmediately) across replica processes on a
// real redis-server (issue 33): it shows `working` on every replica while a worker runs it, and a
// subscriber on another replica sees it go from working to its end; its webhooks are called by the
// replica running it; and a replica stopped with SIGTERM finishes its task within the drain window,
// or hands it on at once when the window passes: run again elsewhere (rerunnable) or failed,
// `replica_stopped` (not rerunnable). The queue's lock is ten minutes here, far longer than any
// test waits, so only the hand-on, never the lock running out, can settle a task in these tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { Redis } from 'ioredis';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';
import { eventually, type Replica, startReplica } from './replicas.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/** A lock nobody outlives: a task that settles was settled by its replica's stop, not by a stall. */
const LONG_LOCK = JSON.stringify({ lockDurationMs: 600_000, stalledIntervalMs: 500, attempts: 3 });
/** Task states as the SDK client reads them. */
const STATE = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3 } as const;

const settled = (answer: any) =>
  ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED'].includes(answer.result?.status?.state);
const states = (task: any) => task.metadata.state_history.map((step: any) => step.state);

class Cluster {
  replicas: Replica[] = [];

  private constructor(
    readonly redis: RedisServer,
    readonly client: Redis,
  ) {}

  static async start(env: Record<string, string>): Promise<Cluster> {
    const redis = await startRedis();
    const client = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    const cluster = new Cluster(redis, client);
    cluster.replicas = await Promise.all(['r0', 'r1'].map((name) => startReplica(redis.url, name, env)));
    return cluster;
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.stop()));
    this.client.disconnect();
    await this.redis.dispose();
  }

  async runs(input: string): Promise<number> {
    return Number((await this.client.get(`parley-test:runs:${input}`)) ?? 0);
  }

  open(input: string): Promise<number> {
    return this.client.rpush(`parley-test:gate:${input}`, 'go');
  }

  /** Sends `input` queued through the first replica and waits until a worker has started it. */
  async started(
    input: string,
    configuration: Record<string, unknown> = {},
  ): Promise<{ id: string; runner: Replica; other: Replica }> {
    const sent = await call(this.replicas[0]!.url, 'SendMessage', {
      message: userMessage(input),
      configuration: { returnImmediately: true, ...configuration },
    });
    const id = sent.result?.task?.id;
    assert.ok(id, JSON.stringify(sent));
    assert.equal(
      await eventually(
        () => this.runs(input),
        (count) => count === 1,
      ),
      1,
    );
    const name = await this.client.get(`parley-test:runner:${input}`);
    const runner = this.replicas.find((replica) => replica.name === name);
    assert.ok(runner, `a replica runs ${input} (runner ${name})`);
    return { id, runner, other: this.replicas.find((replica) => replica !== runner)! };
  }
}

describe('a queued task while it runs, and a stop within the drain window', { skip, timeout: 120_000 }, () => {
  let cluster: Cluster;
  before(async () => {
    // A drain window far longer than the test: the task finishes within it.
    cluster = await Cluster.start({ PARLEY_TEST_QUEUE: LONG_LOCK, PARLEY_TEST_SHUTDOWN_TIMEOUT: '600' });
  });
  after(() => cluster?.stop());

  test('every replica shows it working while a worker runs it; a subscriber elsewhere follows it to completed', async (t) => {
    const input = `gate ${randomUUID()}`;
    const { id, other } = await cluster.started(input);
    // Even when an assertion fails: a task left running would hold the next test's stop.
    t.after(() => cluster.open(input));
    const seen = await eventually(
      () => call(other.url, 'GetTask', { id }),
      (answer) => answer.result?.status?.state === 'TASK_STATE_WORKING',
    );
    assert.equal(seen.result.status.state, 'TASK_STATE_WORKING', JSON.stringify(seen));
    assert.deepEqual(states(seen.result), ['submitted', 'working']);
    const listed = await call(other.url, 'ListTasks', {});
    assert.equal(listed.result.tasks.find((task: any) => task.id === id)?.status.state, 'TASK_STATE_WORKING');

    const events: any[] = [];
    for await (const event of (await new ClientFactory().createFromUrl(other.url)).resubscribeTask({ id } as any)) {
      events.push(event);
      // The subscriber has the task as it stands: the handler may finish.
      if (events.length === 1) await cluster.open(input);
    }
    assert.equal(events[0].payload.$case, 'task');
    assert.equal(events[0].payload.value.status.state, STATE.WORKING);
    const statuses = events.filter((event) => event.payload.$case === 'statusUpdate');
    assert.deepEqual(
      statuses.map((event) => event.payload.value.status.state),
      [STATE.COMPLETED],
    );
    assert.equal(events.at(-1).payload.$case, 'statusUpdate');

    const done = await eventually(() => call(other.url, 'GetTask', { id }), settled);
    assert.equal(done.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(done));
    assert.deepEqual(states(done.result), ['submitted', 'working', 'completed'], 'no state twice');
  });

  test('SIGTERM to the replica running it: the task finishes there within the drain window', async () => {
    const input = `gate ${randomUUID()}`;
    const { id, runner, other } = await cluster.started(input);
    const exited = new Promise((resolve) => runner.child.once('exit', (code) => resolve(code)));
    runner.child.kill('SIGTERM');
    await eventually(
      async () => runner.output(),
      (output) => output.includes('stopping'),
    );
    // The replica is stopping; its task is still running, and now may finish.
    await cluster.open(input);
    assert.equal(await exited, 0);
    const seen = await eventually(() => call(other.url, 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
    const text = JSON.stringify(seen.result.artifacts);
    assert.ok(text.includes(`${runner.name}: ${input}`), text);
    assert.equal(await cluster.runs(input), 1, 'run once, on the stopping replica');
  });
});

describe('a queued task handed on by a stopping replica, handler not rerunnable', { skip, timeout: 120_000 }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await Cluster.start({ PARLEY_TEST_QUEUE: LONG_LOCK, PARLEY_TEST_SHUTDOWN_TIMEOUT: '1', PARLEY_TEST_PUSH: '1' });
  });
  after(() => cluster?.stop());

  test('the replica running it calls its webhooks: working, then its end, whichever replica took the config', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const input = `gate ${randomUUID()}`;
    const { id } = await cluster.started(input, { taskPushNotificationConfig: { url: `${receiver.origin}/sent` } });
    const first = JSON.parse((await receiver.nth(1)).body);
    assert.equal(first.statusUpdate?.taskId, id, JSON.stringify(first));
    assert.equal(first.statusUpdate.status.state, 'TASK_STATE_WORKING');
    // A second webhook registered through the replica that does not run it, while it runs.
    const created = await call(cluster.replicas[1]!.url, 'CreateTaskPushNotificationConfig', {
      taskId: id,
      id: 'late',
      url: `${receiver.origin}/late`,
    });
    assert.equal(created.result?.id, 'late', JSON.stringify(created));
    await cluster.open(input);
    // Each webhook hears the end: its artifact, then its status, on its own path.
    const ends = new Map<string, any>();
    for (let n = 2; ends.size < 2; n++) {
      const received = await receiver.nth(n);
      const body = JSON.parse(received.body);
      if (body.statusUpdate) ends.set(received.path, body.statusUpdate);
    }
    for (const path of ['/sent', '/late']) {
      assert.equal(ends.get(path)?.taskId, id, path);
      assert.equal(ends.get(path)?.status.state, 'TASK_STATE_COMPLETED', path);
    }
  });

  test('SIGTERM to the replica running it: past the drain window the task ends failed, replica_stopped, seen from the other', async () => {
    const input = `gate ${randomUUID()}`;
    const { id, runner, other } = await cluster.started(input);
    await runner.stop();
    const seen = await eventually(() => call(other.url, 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_FAILED', JSON.stringify(seen));
    assert.equal(seen.result.metadata.error.code, 'replica_stopped');
    assert.equal(seen.result.metadata.state_history.at(-1).reason, 'the replica running it stopped');
    assert.deepEqual(states(seen.result), ['submitted', 'working', 'failed']);
    assert.equal(await cluster.runs(input), 1, 'not run again');
  });
});

describe('a queued task handed on by a stopping replica, handler rerunnable', { skip, timeout: 120_000 }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await Cluster.start({
      PARLEY_TEST_QUEUE: LONG_LOCK,
      PARLEY_TEST_SHUTDOWN_TIMEOUT: '1',
      PARLEY_TEST_RERUNNABLE: '1',
    });
  });
  after(() => cluster?.stop());

  test('SIGTERM to the replica running it: past the drain window the task starts again on the other and completes there', async () => {
    const input = `gate ${randomUUID()}`;
    const { id, runner, other } = await cluster.started(input);
    await runner.stop();
    // Put back in the queue by the stopping replica, started by the one left.
    assert.equal(
      await eventually(
        () => cluster.runs(input),
        (count) => count === 2,
      ),
      2,
    );
    assert.equal(await cluster.client.get(`parley-test:runner:${input}`), other.name);
    await cluster.open(input);
    const seen = await eventually(() => call(other.url, 'GetTask', { id }), settled);
    assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
    const text = JSON.stringify(seen.result.artifacts);
    assert.ok(text.includes(`${other.name}: ${input}`), text);
    assert.ok(!text.includes(`${runner.name}:`), text);
  });
});
