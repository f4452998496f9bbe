// A Redis that is up but refuses writes: full (`maxmemory` reached under `noeviction`, the policy
// an agent requires, so the usual way a busy deployment meets its limit) or, after a failover, a
// read-only replica. Like a Redis that cannot be reached, that is the store being unavailable,
// not a bug: the native route answers 503 `unavailable` and A2A -32603 with `retryable`, each
// with parley's fixed text (never Redis's own, which names a script and its line), and the
// replica serves again as soon as Redis takes writes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { freePort, redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { eventually, startReplica, type Replica, post } from './replicas.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

function userTask(text: string) {
  return { id: `task-${randomUUID()}`, messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }] };
}

const sendMessage = () => ({ message: userMessage('hello') });

/** The ErrorInfo metadata of a JSON-RPC error answer. */
function errorMetadata(answer: any): Record<string, string> {
  return (answer.error?.data ?? []).find((detail: any) => detail.metadata)?.metadata ?? {};
}

describe('a Redis that refuses writes (Redis)', { skip }, () => {
  let redis: RedisServer;
  let client: Redis;
  let replica: Replica;

  before(async () => {
    redis = await startRedis(['--appendonly', 'no']);
    client = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    replica = await startReplica(redis.url, 'a');
  });

  after(async () => {
    await replica?.stop();
    client?.disconnect();
    await redis?.dispose();
  });

  /** Runs `check` while Redis answers every write with `refusal`, then lets it write again. */
  async function refusing(refusal: 'full' | 'read-only', check: () => Promise<void>): Promise<void> {
    if (refusal === 'full') await client.config('SET', 'maxmemory', '1');
    // A primary turned replica (a failover's old primary): it reads, and refuses every write.
    else await client.replicaof('127.0.0.1', String(await freePort()));
    try {
      await check();
    } finally {
      if (refusal === 'full') await client.config('SET', 'maxmemory', '0');
      else await client.replicaof('NO', 'ONE');
    }
  }

  for (const refusal of ['full', 'read-only'] as const) {
    test(`${refusal}: an idempotent POST /tasks/ is 503 unavailable, SendMessage -32603 retryable, neither in Redis's words`, async () => {
      await refusing(refusal, async () => {
        const native = await post(replica.url, '/tasks/', userTask('hello'), { 'idempotency-key': randomUUID() });
        assert.equal(native.status, 503, JSON.stringify(native.body));
        assert.equal(native.body.error.code, 'unavailable');
        const rpc = await call(replica.url, 'SendMessage', sendMessage());
        assert.equal(rpc.error?.code, -32603, JSON.stringify(rpc));
        assert.equal(errorMetadata(rpc).retryable, 'true', JSON.stringify(rpc));
        for (const answer of [native.body, rpc]) {
          assert.doesNotMatch(JSON.stringify(answer), /OOM|READONLY|script|redis:\/\//, JSON.stringify(answer));
        }
      });
      // Writable again: the replica serves without a restart.
      const answer = await eventually(
        () => post(replica.url, '/tasks/', userTask('again'), { 'idempotency-key': randomUUID() }),
        (outcome) => outcome.status === 200,
      );
      assert.equal(answer.status, 200);
      const rpc = await call(replica.url, 'SendMessage', sendMessage());
      assert.ok(rpc.result?.task, JSON.stringify(rpc));
    });
  }

  test('a task that ends while Redis is full is recorded once Redis takes writes again, not left working for ever', async () => {
    const tenant = `tenant-${randomUUID()}`;
    const input = `hold ${randomUUID()}`;
    const sent = call(replica.url, 'SendMessage', { tenant, message: userMessage(input) });
    await eventually(
      async () => Number((await client.get(`parley-test:runs:${input}`)) ?? 0),
      (runs) => runs === 1,
    );
    const listed = await call(replica.url, 'ListTasks', { tenant });
    const taskId: string = listed.result.tasks[0].id;
    await refusing('full', async () => {
      // Canceled on its replica, which cannot write the end: the blocking call hears Redis is away.
      const canceled = await call(replica.url, 'CancelTask', { tenant, id: taskId });
      assert.equal(canceled.result?.status?.state, 'TASK_STATE_CANCELED', JSON.stringify(canceled));
      const answer = await sent;
      assert.equal(errorMetadata(answer).retryable, 'true', JSON.stringify(answer));
    });
    // Redis takes writes again, and the replica goes on writing (a new task): the end it kept lands.
    assert.ok((await call(replica.url, 'SendMessage', sendMessage())).result?.task);
    const got = await eventually(
      () => call(replica.url, 'GetTask', { tenant, id: taskId }),
      (answer) => answer.result?.status?.state !== 'TASK_STATE_WORKING',
    );
    assert.equal(got.result?.status?.state, 'TASK_STATE_CANCELED', JSON.stringify(got));
  });
});
