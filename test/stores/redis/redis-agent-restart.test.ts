// An AgentServer with a Redis store stopped and started again serves its shared state through
// the new connection: the transport outlives a stop, so what it was given must not hold the
// closed one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { redisInstalled, startRedis } from '../../support/redis-server.js';

test('stop then start again: idempotent requests still go through Redis', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.dispose());
  const agent = new AgentServer({ name: 'echo', store: redis.url });
  await agent.start();
  t.after(() => agent.stop());
  const send = async (key: string) => {
    const task = { id: `task-${randomUUID()}`, messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] };
    const response = await fetch(`${agent.url.replace(/\/$/, '')}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(task),
    });
    return { status: response.status, body: (await response.json()) as { id?: string } };
  };
  const key = randomUUID();
  const first = await send(key);
  assert.equal(first.status, 200);
  await agent.stop();
  await agent.start();
  const replayed = await send(key);
  assert.equal(replayed.status, 200, JSON.stringify(replayed.body));
  assert.equal(replayed.body.id, first.body.id, 'the answer kept in Redis before the restart');
});
