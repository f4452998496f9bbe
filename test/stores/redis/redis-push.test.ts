// A2A push notifications across two agents sharing a real redis-server (`store`): a webhook
// registered through one replica is called by the other, the one running the task, when the
// task ends; and the config is read back through either.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentHandler } from '../../../src/agent/handler.js';
import { call, startA2aAgent } from '../../a2a/support.js';
import { redisInstalled, startRedis } from '../../support/redis-server.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';

/** `wait` runs until canceled; anything else is echoed. */
const handler: AgentHandler = async ({ input, signal }) => {
  if (input !== 'wait') return input;
  await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  return 'stopped';
};

test('a webhook registered through one replica is called by the replica running the task', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.dispose());
  const receiver = await startWebhookReceiver(t);
  const push = { allowPrivate: true, allowHttp: true };
  const one = await startA2aAgent(t, { handler, store: redis.url, a2aPush: push });
  const two = await startA2aAgent(t, { handler, store: redis.url, a2aPush: push });
  const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'wait' }] };
  const task = (await call(one.url, 'SendMessage', { message, configuration: { returnImmediately: true } })).result.task;
  const created = await call(two.url, 'CreateTaskPushNotificationConfig', {
    taskId: task.id,
    id: 'hook',
    url: `${receiver.origin}/`,
  });
  assert.equal(created.result?.id, 'hook', JSON.stringify(created));
  assert.equal(
    (await call(one.url, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'hook' })).result.url,
    `${receiver.origin}/`,
  );
  // Canceled through the replica that did not start it: the one running it ends the run and pushes.
  await call(two.url, 'CancelTask', { id: task.id });
  // A `working` call may come first: the config can be in place before the queued task starts.
  let pushed = JSON.parse((await receiver.nth(1)).body);
  if (pushed.statusUpdate?.status.state === 'TASK_STATE_WORKING') pushed = JSON.parse((await receiver.nth(2)).body);
  assert.equal(pushed.statusUpdate.taskId, task.id);
  assert.equal(pushed.statusUpdate.status.state, 'TASK_STATE_CANCELED');
});
