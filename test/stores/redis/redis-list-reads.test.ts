// ListTasks on Redis reads the page it answers, not the caller's every task: a caller holding
// many large tasks (up to its share, 256 by default, each as large as a request may be) must not
// make each ListTasks, at any page size and with any filter, pull all of them out of Redis. Read
// from Redis's own count of the bytes it sent (`INFO stats`), around one ListTasks of one task.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';

const skip = redisInstalled ? false : 'redis-server is not installed';

/** Tasks in the caller's scope, and the size of each one's message. */
const TASKS = 24;
const MESSAGE_BYTES = 128 * 1024;

async function sentBytes(admin: Redis): Promise<number> {
  return Number(/^total_net_output_bytes:(\d+)/m.exec(await admin.info('stats'))![1]);
}

describe('ListTasks reads only its page from Redis', { skip }, () => {
  let redis: RedisServer;
  let admin: Redis;
  let agent: AgentServer;
  const tenant = `tenant-${randomUUID()}`;
  const contextId = `context-${randomUUID()}`;

  before(async () => {
    redis = await startRedis(['--appendonly', 'no']);
    admin = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    agent = new AgentServer({ name: 'echo', url: 'http://127.0.0.1:0', a2a: true, store: redis.url });
    await agent.start();
    for (let i = 0; i < TASKS; i++) {
      const text = `${i} ${'x'.repeat(MESSAGE_BYTES)}`;
      const sent = await call(agent.url, 'SendMessage', { tenant, message: userMessage(text, { contextId }) });
      assert.equal(sent.result?.task?.status?.state, 'TASK_STATE_COMPLETED', JSON.stringify(sent).slice(0, 300));
    }
  });

  after(async () => {
    await agent?.stop();
    admin?.disconnect();
    await redis?.dispose();
  });

  const queries: [string, Record<string, unknown>][] = [
    ['no filter', {}],
    ['by state', { status: 'TASK_STATE_COMPLETED' }],
    ['by context', { contextId }],
    ['after a time', { statusTimestampAfter: '2000-01-01T00:00:00Z' }],
  ];
  for (const [name, filter] of queries) {
    test(`a page of one task (${name}) reads about one task's bytes, not all ${TASKS}`, async () => {
      const before = await sentBytes(admin);
      const listed = await call(agent.url, 'ListTasks', { tenant, pageSize: 1, ...filter });
      const read = (await sentBytes(admin)) - before;
      assert.equal(listed.result?.tasks?.length, 1, JSON.stringify(listed).slice(0, 300));
      assert.equal(listed.result.totalSize, TASKS);
      assert.ok(listed.result.nextPageToken);
      // One task's record holds its text about three times (message, history, the echo's
      // artifact): six is room for the page and the listing's own small reads, far below all.
      assert.ok(read < 6 * MESSAGE_BYTES, `Redis sent ${read} bytes for a page of one ${MESSAGE_BYTES}-byte task`);
    });
  }

  test('paging through one task at a time lists every task once, newest first', async () => {
    const seen: string[] = [];
    let pageToken = '';
    do {
      const listed = await call(agent.url, 'ListTasks', { tenant, pageSize: 1, pageToken });
      seen.push(...listed.result.tasks.map((task: any) => task.history[0].parts[0].text.split(' ')[0]));
      pageToken = listed.result.nextPageToken;
    } while (pageToken);
    assert.deepEqual(
      seen,
      Array.from({ length: TASKS }, (_, i) => String(TASKS - 1 - i)),
    );
  });

  test('records written before briefs were kept (an upgrade) are still listed, the old way', async () => {
    const briefs = await admin.keys('parley:a2a:brief:*');
    assert.equal(briefs.length, TASKS);
    await admin.del(briefs[0]!);
    const listed = await call(agent.url, 'ListTasks', { tenant, pageSize: 2, status: 'TASK_STATE_COMPLETED' });
    assert.equal(listed.result.totalSize, TASKS);
    assert.deepEqual(
      listed.result.tasks.map((task: any) => task.history[0].parts[0].text.split(' ')[0]),
      [String(TASKS - 1), String(TASKS - 2)],
    );
  });
});
