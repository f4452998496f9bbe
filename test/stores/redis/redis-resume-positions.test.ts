// SubscribeToTask resumed with a Last-Event-ID this feed never gave: a position past the
// feed's newest entry, or one too large for Redis to read at all. Both are the client's mistake,
// so both are -32602 naming the header, answered at once: never a -32603 that says "retry" (a
// position Redis refuses is no outage) and never a subscription that waits for ever (a position
// ahead of every entry would skip the task's last event and leave the stream open).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { startReplica, type Replica } from './replicas.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/** One JSON-RPC call; the answer as JSON when it is a plain answer, else its content type. */
async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) {
    await response.body?.cancel();
    return { contentType: type };
  }
  return response.json();
}

describe('SubscribeToTask resumed from a position the feed never gave (Redis)', { skip, timeout: 120_000 }, () => {
  let redis: RedisServer;
  let client: Redis;
  let a: Replica;
  let b: Replica;

  before(async () => {
    redis = await startRedis(['--appendonly', 'no']);
    client = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    [a, b] = await Promise.all([startReplica(redis.url, 'a'), startReplica(redis.url, 'b')]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    client?.disconnect();
    await redis?.dispose();
  });

  /** A `steps` task started on A and held at its gate; a subscriber on B makes A write its feed. */
  async function runningTask(): Promise<{ taskId: string; open: () => Promise<unknown> }> {
    const input = `steps ${randomUUID()}`;
    const sent = await rpc(a.url, 'SendMessage', {
      message: { messageId: `m-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text: input }] },
      configuration: { returnImmediately: true },
    });
    const taskId: string = sent.result.task.id;
    return { taskId, open: () => client.rpush(`parley-test:gate:${input}`, 'go') };
  }

  /** The position of a subscriber's first event on B (the feed's watch mark): a real position. */
  async function firstPosition(taskId: string): Promise<string> {
    const controller = new AbortController();
    const response = await fetch(`${b.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!/^id: (\S+)$/m.test(text)) {
      const step = await reader.read();
      assert.ok(!step.done, `the subscription sent an event id: ${text}`);
      text += decoder.decode(step.value, { stream: true });
    }
    controller.abort();
    return /^id: (\S+)$/m.exec(text)![1]!;
  }

  // Bounded: before the fix the subscription waited for ever.
  test('a position past the newest entry of a running task is -32602, not a stream that never ends', {
    timeout: 60_000,
  }, async () => {
    const { taskId, open } = await runningTask();
    const real = await firstPosition(taskId);
    const [ms] = real.split('-');
    // An hour past the watch mark: no entry of this feed is there yet.
    const ahead = `${BigInt(ms!) + 3_600_000n}-0`;
    try {
      const answer = await rpc(b.url, 'SubscribeToTask', { id: taskId }, { 'last-event-id': ahead });
      assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
      assert.match(answer.error.message, /Last-Event-ID/);
    } finally {
      await open();
    }
  });

  test('a position with a part above 2^64 - 1 is -32602, not a retryable -32603 from Redis', async () => {
    const { taskId, open } = await runningTask();
    try {
      for (const position of ['99999999999999999999-0', '1-18446744073709551616']) {
        const answer = await rpc(b.url, 'SubscribeToTask', { id: taskId }, { 'last-event-id': position });
        assert.equal(answer.error?.code, -32602, `${position}: ${JSON.stringify(answer)}`);
        assert.match(answer.error.message, /Last-Event-ID/);
      }
    } finally {
      await open();
    }
  });
});
