// What the wait for queued tasks costs Redis (issue 33): one replica process on a real
// redis-server, its one queue worker held by a gated task, five more tasks queued behind it, and a
// subscriber (the real @a2a-js/sdk client) waiting for each. While they wait, the replica's feed
// reader checks about once a second, after each blocked read, whether the tasks still wait. Read
// from Redis's own command statistics (INFO commandstats, reset once the subscribers wait): each
// check reads the five index records in one MGET and asks BullMQ for the five jobs' states, not an
// index read and then a queue read for each task in turn.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { Redis } from 'ioredis';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { commandCounts } from '../../support/redis-command-counts.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { eventually, type Replica, startReplica } from './replicas.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/**
 * One worker; a lock and a stall check far beyond the test, so the queue itself runs no command
 * while the tasks wait (no lock renewal, no stalled-job check) and every script call counted is a
 * wait check.
 */
const QUIET_QUEUE = JSON.stringify({ lockDurationMs: 600_000, stalledIntervalMs: 600_000, attempts: 1, concurrency: 1 });
/** Tasks waited for at once. */
const N = 5;
/** Task states as the SDK client reads them. */
const STATE = { SUBMITTED: 1, CANCELED: 5 } as const;

describe('the wait for queued tasks, in Redis round trips', { skip, timeout: 120_000 }, () => {
  let redis: RedisServer;
  let admin: Redis;
  let replica: Replica;

  before(async () => {
    redis = await startRedis(['--appendonly', 'no']);
    admin = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    replica = await startReplica(redis.url, 'r0', { PARLEY_TEST_QUEUE: QUIET_QUEUE });
  });

  after(async () => {
    await replica?.stop();
    admin?.disconnect();
    await redis?.dispose();
  });

  const queue = async (input: string): Promise<string> => {
    const sent = await call(replica.url, 'SendMessage', {
      message: userMessage(input),
      configuration: { returnImmediately: true },
    });
    const id = sent.result?.task?.id;
    assert.ok(id, JSON.stringify(sent));
    return id;
  };

  test(`a check of ${N} waited-for tasks reads their index records in one MGET`, async (t) => {
    const blocker = `gate ${randomUUID()}`;
    t.after(() => admin.rpush(`parley-test:gate:${blocker}`, 'go'));
    await queue(blocker);
    assert.equal(
      await eventually(
        () => admin.get(`parley-test:runs:${blocker}`),
        (runs) => runs === '1',
      ),
      '1',
    );
    const ids: string[] = [];
    for (let i = 0; i < N; i++) ids.push(await queue(`gate ${randomUUID()}`));
    const sdk = await new ClientFactory().createFromUrl(replica.url);
    const streams = ids.map((id) => sdk.resubscribeTask({ id } as any)[Symbol.asyncIterator]());
    for (const stream of streams) {
      const snapshot: any = (await stream.next()).value;
      assert.equal(snapshot.payload.value.status.state, STATE.SUBMITTED);
    }
    // The handler sends a subscriber its snapshot before it joins the feed's reader (from the
    // snapshot's position, so nothing is missed meanwhile): the last may join a moment later.
    assert.equal(
      (
        await eventually(
          () => replica.feedCounts(),
          (seen) => seen.followers === N,
        )
      ).followers,
      N,
    );

    // Everyone waits. A first check (after the reader's first blocked read, a second long) loads
    // the script, which a replica that has waited a while did long ago; count from after it, over
    // a few more reads.
    await admin.config('RESETSTAT');
    await eventually(
      () => commandCounts(admin),
      (seen) => (seen.xread ?? 0) >= 2,
    );
    await admin.config('RESETSTAT');
    const counts = await eventually(
      () => commandCounts(admin),
      (seen) => (seen.xread ?? 0) >= 4,
    );
    const checks = counts.mget ?? 0;
    // Each read is followed by at most one check (one more may fall before the reset's first read).
    assert.ok(checks >= 1 && checks <= counts.xread! + 1, JSON.stringify(counts));
    // Each check: one MGET of the five index records, then BullMQ's state lookup (one script call)
    // for each of the five jobs, and no index read of its own per task. The lookups go out a turn
    // after their MGET, so a reset or the read of the counts may fall between the two: one
    // check's lookups more or fewer.
    assert.equal(counts.get, undefined, JSON.stringify(counts));
    const lookups = counts.evalsha ?? 0;
    assert.ok(lookups >= N * (checks - 1) && lookups <= N * (checks + 1), JSON.stringify(counts));
    // Nothing else: the blocked reads and the replica's heartbeat (and, run inside BullMQ's script,
    // the ZSCOREs and LPOSes of its lookup).
    const inLookup = new Set(['zscore', 'lpos']);
    assert.deepEqual(
      Object.keys(counts)
        .filter((name) => !inLookup.has(name))
        .sort(),
      ['evalsha', 'mget', 'set', 'xread'],
      JSON.stringify(counts),
    );

    // Each subscriber ends with its task's cancel.
    for (const id of ids) {
      const canceled = await call(replica.url, 'CancelTask', { id });
      assert.equal(canceled.result?.status?.state, 'TASK_STATE_CANCELED', JSON.stringify(canceled));
    }
    for (const stream of streams) {
      const rest: any[] = [];
      for (let step = await stream.next(); !step.done; step = await stream.next()) rest.push(step.value);
      assert.deepEqual(
        rest.map((event) => `${event.payload.$case} ${event.payload.value.status.state}`),
        [`statusUpdate ${STATE.CANCELED}`],
      );
    }
  });
});
