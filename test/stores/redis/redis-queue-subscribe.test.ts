// SubscribeToTask on a queued A2A task that no worker has taken yet (issue 33): two replica
// processes on a real redis-server, each with one queue worker, both held by a gated task, so the
// task the test queues next stays waiting. A subscriber on the replica that did not accept it
// waits for a worker to take it, then gets its start, its events and its end, in order; a cancel
// from the other replica ends the waiting subscriber with that status. Both subscribe through the
// real @a2a-js/sdk client. (Before this, such a subscription was refused with `runner_gone`.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { Redis } from 'ioredis';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { eventually, type Replica, startReplica } from './replicas.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/** One worker per replica, and a lock nobody outlives: nothing settles by a stall here. */
const ONE_WORKER = JSON.stringify({ lockDurationMs: 600_000, stalledIntervalMs: 500, attempts: 1, concurrency: 1 });
/** Task states as the SDK client reads them. */
const STATE = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, FAILED: 4, CANCELED: 5 } as const;

/** What a subscriber saw, one row per event: its kind and the state or artifact it carries. */
function rows(events: any[]): string[] {
  return events.map((event) => {
    const { $case, value } = event.payload;
    if ($case === 'task' || $case === 'statusUpdate') return `${$case} ${value.status.state}`;
    // The handler's answer comes as an artifact without a name.
    if ($case === 'artifactUpdate') return `${$case} ${value.artifact.name || '(answer)'}`;
    return $case;
  });
}

/** Two replicas with one worker each; `env` adds to their settings. */
function cluster(env: Record<string, string> = {}) {
  let redis: RedisServer;
  let client: Redis;
  let replicas: Replica[] = [];
  before(async () => {
    redis = await startRedis();
    client = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    replicas = await Promise.all(
      ['r0', 'r1'].map((name) => startReplica(redis.url, name, { PARLEY_TEST_QUEUE: ONE_WORKER, ...env })),
    );
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    client?.disconnect();
    await redis?.dispose();
  });

  const runs = async (input: string) => Number((await client.get(`parley-test:runs:${input}`)) ?? 0);
  /** Waits until `input` has run `times` times across the replicas (a test's step, not a clock). */
  const ranTimes = async (input: string, times: number) =>
    assert.equal(
      await eventually(
        () => runs(input),
        (count) => count === times,
      ),
      times,
    );
  const open = (input: string) => client.rpush(`parley-test:gate:${input}`, 'go');

  async function queue(input: string): Promise<string> {
    const sent = await call(replicas[0]!.url, 'SendMessage', {
      message: userMessage(input),
      configuration: { returnImmediately: true },
    });
    const id = sent.result?.task?.id;
    assert.ok(id, JSON.stringify(sent));
    return id;
  }

  /**
   * Occupies both replicas' one worker with a gated task each; the gates open when the test
   * ends. Answers the blockers, the one r0 runs first.
   */
  async function occupyWorkers(t: { after(fn: () => unknown): void }): Promise<[string, string]> {
    const blockers: [string, string] = [`gate ${randomUUID()}`, `gate ${randomUUID()}`];
    t.after(() => Promise.all(blockers.map(open)));
    for (const input of blockers) {
      await queue(input);
      await ranTimes(input, 1);
    }
    const runners = await Promise.all(blockers.map((input) => client.get(`parley-test:runner:${input}`)));
    assert.deepEqual(new Set(runners), new Set(['r0', 'r1']), 'each replica runs one blocker');
    return runners[0] === 'r0' ? blockers : [blockers[1], blockers[0]];
  }

  const replica = (name: 'r0' | 'r1') => replicas.find((each) => each.name === name)!;
  const runner = (input: string) => client.get(`parley-test:runner:${input}`);
  return { replica, runs, ranTimes, runner, open, queue, occupyWorkers, redis: () => client };
}

describe('SubscribeToTask on a task still waiting in the queue', { skip, timeout: 180_000 }, () => {
  const { replica, runs, open, queue, occupyWorkers } = cluster();

  test('the subscriber waits for a worker, then gets the start, the events and the end, in order', async (t) => {
    const [blocker] = await occupyWorkers(t);
    const input = `steps ${randomUUID()}`;
    const id = await queue(input);
    // Accepted by r0; no worker is free, so it waits.
    const waiting = await call(replica('r1').url, 'GetTask', { id });
    assert.equal(waiting.result.status.state, 'TASK_STATE_SUBMITTED', JSON.stringify(waiting));

    const events: any[] = [];
    const sdk = await new ClientFactory().createFromUrl(replica('r1').url);
    for await (const event of sdk.resubscribeTask({ id } as any)) {
      events.push(event);
      if (events.length === 1) {
        // The subscriber has the task as it waits: free a worker, and let the task run through.
        assert.equal(await runs(input), 0, 'still queued when the snapshot was sent');
        await open(blocker);
        await open(input);
      }
    }
    assert.deepEqual(rows(events), [
      `task ${STATE.SUBMITTED}`,
      `statusUpdate ${STATE.WORKING}`,
      'artifactUpdate one',
      'artifactUpdate two',
      'artifactUpdate three',
      'artifactUpdate (answer)',
      `statusUpdate ${STATE.COMPLETED}`,
    ]);
    assert.equal(await runs(input), 1);
    // The subscriber that waited holds nothing once its stream ended.
    assert.equal((await replica('r1').feedCounts()).followers, 0);
  });

  test('a cancel from the other replica ends the waiting subscriber with CANCELED', async (t) => {
    await occupyWorkers(t);
    const id = await queue(`gate ${randomUUID()}`);
    const events: any[] = [];
    const sdk = await new ClientFactory().createFromUrl(replica('r1').url);
    for await (const event of sdk.resubscribeTask({ id } as any)) {
      events.push(event);
      if (events.length === 1) {
        const canceled = await call(replica('r0').url, 'CancelTask', { id });
        assert.equal(canceled.result?.status?.state, 'TASK_STATE_CANCELED', JSON.stringify(canceled));
      }
    }
    assert.deepEqual(rows(events), [`task ${STATE.SUBMITTED}`, `statusUpdate ${STATE.CANCELED}`]);
    const seen = await call(replica('r1').url, 'GetTask', { id });
    assert.equal(seen.result.status.state, 'TASK_STATE_CANCELED');
  });
});

describe('a waited-for queued task handed on by a stopping replica', { skip, timeout: 180_000 }, () => {
  // A drain window of a second, handler not rerunnable: past it, the task fails.
  const { replica, ranTimes, runner, open, queue, occupyWorkers } = cluster({ PARLEY_TEST_SHUTDOWN_TIMEOUT: '1' });

  test('the subscriber that waited for it in the queue sees it start, then end failed', async (t) => {
    const [onR0] = await occupyWorkers(t);
    const input = `gate ${randomUUID()}`;
    t.after(() => open(input));
    const id = await queue(input);
    const r0 = replica('r0');
    const events: any[] = [];
    const sdk = await new ClientFactory().createFromUrl(replica('r1').url);
    for await (const event of sdk.resubscribeTask({ id } as any)) {
      events.push(event);
      if (events.length === 1) {
        // r0's worker is the one freed, so r0 takes the task; then r0 stops past its window.
        await open(onR0);
        await ranTimes(input, 1);
        assert.equal(await runner(input), 'r0');
        await r0.stop();
      }
    }
    assert.deepEqual(rows(events), [`task ${STATE.SUBMITTED}`, `statusUpdate ${STATE.WORKING}`, `statusUpdate ${STATE.FAILED}`]);
  });
});

/** One worker each, three starts, a lock nobody outlives: the rerun comes from the hand-on alone. */
const RERUN_QUEUE = JSON.stringify({ lockDurationMs: 600_000, stalledIntervalMs: 500, attempts: 3, concurrency: 1 });
/** A short lock (two seconds, checked every half second), so that a killed replica is noticed soon. */
const SHORT_LOCK = JSON.stringify({ lockDurationMs: 2000, stalledIntervalMs: 500, attempts: 1, concurrency: 1 });

/** Sends `input` queued, waits until a worker runs it, and answers that worker's replica and the other. */
async function startedOn(
  { replica, ranTimes, runner, queue }: ReturnType<typeof cluster>,
  input: string,
): Promise<{ id: string; first: Replica; other: Replica }> {
  const id = await queue(input);
  await ranTimes(input, 1);
  const name = (await runner(input)) as 'r0' | 'r1';
  return { id, first: replica(name), other: replica(name === 'r0' ? 'r1' : 'r0') };
}

/** What a subscriber sees of a rerun from the accepted record, after the snapshot of the cut-off run. */
const RERUN_ROWS = [
  `task ${STATE.WORKING}`,
  `statusUpdate ${STATE.WORKING}`,
  'artifactUpdate one',
  'artifactUpdate two',
  'artifactUpdate three',
  'artifactUpdate (answer)',
  `statusUpdate ${STATE.COMPLETED}`,
];

/**
 * Starts a `steps` task, follows it from the replica not running it, and after the first event
 * cuts the replica running it off with `cut`; waits until the other replica's worker starts it
 * again, lets that run through, and answers what the subscriber saw and where it followed.
 */
async function followRerun(
  replicas: ReturnType<typeof cluster>,
  t: { after(fn: () => unknown): void },
  cut: (first: Replica) => unknown,
): Promise<{ id: string; other: Replica; events: any[] }> {
  const { ranTimes, runner, open } = replicas;
  const input = `steps ${randomUUID()}`;
  t.after(() => open(input));
  const { id, first, other } = await startedOn(replicas, input);
  const events: any[] = [];
  const sdk = await new ClientFactory().createFromUrl(other.url);
  for await (const event of sdk.resubscribeTask({ id } as any)) {
    events.push(event);
    if (events.length === 1) {
      await cut(first);
      await ranTimes(input, 2);
      assert.equal(await runner(input), other.name);
      await open(input);
    }
  }
  return { id, other, events };
}

describe('a followed queued task handed back to the queue by a stopping replica, handler rerunnable', {
  skip,
  timeout: 180_000,
}, () => {
  const replicas = cluster({ PARLEY_TEST_QUEUE: RERUN_QUEUE, PARLEY_TEST_RERUNNABLE: '1', PARLEY_TEST_SHUTDOWN_TIMEOUT: '1' });

  test('the subscriber on the other replica follows the rerun there through to COMPLETED', async (t) => {
    // SIGTERM: past its one-second window the run there is cut off and its job handed back; the
    // other replica's worker starts it again. The snapshot is the run as it stood on the stopped
    // replica, then the rerun from its start: no runner_gone.
    const { id, other, events } = await followRerun(replicas, t, (first) => first.stop());
    assert.deepEqual(rows(events), RERUN_ROWS);
    const seen = await call(other.url, 'GetTask', { id });
    assert.equal(seen.result.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(seen));
    assert.equal((await other.feedCounts()).followers, 0);
  });
});

describe('a followed queued task whose replica is killed, handler not rerunnable', { skip, timeout: 180_000 }, () => {
  const replicas = cluster({ PARLEY_TEST_QUEUE: SHORT_LOCK });

  test('the subscriber on the other replica ends with FAILED, replica_stopped', async (t) => {
    const input = `gate ${randomUUID()}`;
    t.after(() => replicas.open(input));
    const { id, first, other } = await startedOn(replicas, input);
    const events: any[] = [];
    const sdk = await new ClientFactory().createFromUrl(other.url);
    for await (const event of sdk.resubscribeTask({ id } as any)) {
      events.push(event);
      // No drain, no hand-on: the lock runs out and the other replica's worker fails the task.
      if (events.length === 1) first.child.kill('SIGKILL');
    }
    assert.deepEqual(rows(events), [`task ${STATE.WORKING}`, `statusUpdate ${STATE.FAILED}`]);
    const seen = await call(other.url, 'GetTask', { id });
    assert.equal(seen.result.status.state, 'TASK_STATE_FAILED', JSON.stringify(seen));
    assert.equal(seen.result.metadata.error.code, 'replica_stopped');
    assert.equal(await replicas.runs(input), 1, 'not run again');
  });
});

describe('a followed queued task whose replica is killed, handler rerunnable', { skip, timeout: 180_000 }, () => {
  const replicas = cluster({
    PARLEY_TEST_QUEUE: JSON.stringify({ ...JSON.parse(SHORT_LOCK), attempts: 3 }),
    PARLEY_TEST_RERUNNABLE: '1',
  });

  test('the subscriber on the other replica follows the rerun there through to COMPLETED', async (t) => {
    // Its lock runs out, the stall check puts the job back, and the other replica reruns it.
    const { other, events } = await followRerun(replicas, t, (first) => first.child.kill('SIGKILL'));
    assert.deepEqual(rows(events), RERUN_ROWS);
    assert.equal((await other.feedCounts()).followers, 0);
  });
});

/**
 * A lock well beyond the time a dead replica's heartbeat outlives it (up to five seconds, then up
 * to a second until the subscriber's replica checks), checked for stalls every second: the first
 * look after the heartbeat is gone finds the job still held by the dead replica.
 */
const LONG_LOCK_MS = 8000;
const LONG_LOCK = JSON.stringify({ lockDurationMs: LONG_LOCK_MS, stalledIntervalMs: 1000, attempts: 1, concurrency: 1 });

describe('a followed queued task whose replica is killed while its lock outlives the heartbeat', {
  skip,
  timeout: 180_000,
}, () => {
  const replicas = cluster({ PARLEY_TEST_QUEUE: LONG_LOCK });

  test('the subscriber waits for the lock to run out and ends with FAILED, replica_stopped, not runner_gone', async (t) => {
    const input = `gate ${randomUUID()}`;
    t.after(() => replicas.open(input));
    const { id, first, other } = await startedOn(replicas, input);
    const redis = replicas.redis();
    // BullMQ's keys for the job (one per run of the task: its id and its message count).
    const job = `${id}.1`;
    const lock = `parley:queue:a2a-tasks:${job}:lock`;
    const events: any[] = [];
    const sdk = await new ClientFactory().createFromUrl(other.url);
    for await (const event of sdk.resubscribeTask({ id } as any)) {
      events.push(event);
      if (events.length > 1) continue;
      assert.equal((await redis.keys('parley:replica:*')).length, 2);
      // Killed just after a renewal of its lock (every half of it), so the lock outlives the
      // heartbeat by as much as it can.
      assert.ok(
        (await eventually(
          () => redis.pttl(lock),
          (ms) => ms > LONG_LOCK_MS - 1000,
        )) >
          LONG_LOCK_MS - 1000,
      );
      first.child.kill('SIGKILL');
      // The dead replica's heartbeat goes while its job is still taken: the subscriber's replica
      // then sees a job held, not one back in the queue.
      assert.equal(
        (
          await eventually(
            () => redis.keys('parley:replica:*'),
            (keys) => keys.length === 1,
          )
        ).length,
        1,
      );
      assert.notEqual(await redis.lpos('parley:queue:a2a-tasks:active', job), null, 'the job is still held');
    }
    assert.deepEqual(rows(events), [`task ${STATE.WORKING}`, `statusUpdate ${STATE.FAILED}`]);
    const seen = await call(other.url, 'GetTask', { id });
    assert.equal(seen.result.status.state, 'TASK_STATE_FAILED', JSON.stringify(seen));
    assert.equal(seen.result.metadata.error.code, 'replica_stopped');
    assert.equal(await replicas.runs(input), 1, 'not run again');
  });
});

describe('a followed queued task whose start throws, retried on the other replica', { skip, timeout: 180_000 }, () => {
  const replicas = cluster({ PARLEY_TEST_QUEUE: RERUN_QUEUE, PARLEY_TEST_RERUNNABLE: '1' });

  test('the subscriber follows the retry there through to COMPLETED', async (t) => {
    const { replica, ranTimes, runner, open, queue, occupyWorkers } = replicas;
    const [onR0, onR1] = await occupyWorkers(t);
    const input = `flaky ${randomUUID()}`;
    const later = `gate ${randomUUID()}`;
    t.after(() => Promise.all([open(input), open(later)]));
    const id = await queue(input);
    // r1's worker is the one freed: the first start runs there, and waits.
    await open(onR1);
    await ranTimes(input, 1);
    assert.equal(await runner(input), 'r1');
    const events: any[] = [];
    const sdk = await new ClientFactory().createFromUrl(replica('r0').url);
    for await (const event of sdk.resubscribeTask({ id } as any)) {
      events.push(event);
      if (events.length > 1) continue;
      // Queued behind it, another task takes r1's worker as soon as the first start throws
      // (its retry waits 200 ms first); then r0's worker is freed, and takes the retry.
      await queue(later);
      await open(input);
      await ranTimes(later, 1);
      assert.equal(await runner(later), 'r1');
      await open(onR0);
      await ranTimes(input, 2);
      assert.equal(await runner(input), 'r0');
      await open(input);
    }
    assert.deepEqual(rows(events), RERUN_ROWS);
  });
});
