// A2A push notifications across two agents sharing a real redis-server (`store`): a webhook
// registered through one replica is called by the other, the one running the task, when the
// task ends; and the config is read back through either. A blocking SendMessage's end reads the
// task's configs in the same script that records it (redis-task-index.ts, settle): every config,
// wherever it was made, is called, and they are kept alive as a read of their own would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentHandler } from '../../../src/agent/handler.js';
import { call, startA2aAgent } from '../../a2a/support.js';
import { redisInstalled, startRedis } from '../../support/redis-server.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';

/** Resolves the run of a task sent `hold`. */
let release: () => void = () => undefined;

/** `wait` runs until canceled, `hold` until the test releases it; anything else is echoed. */
const handler: AgentHandler = async ({ input, signal }) => {
  if (input === 'hold') {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return 'released';
  }
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

test('a blocking SendMessage ends by calling every config of its task, made through either replica', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.dispose());
  const receiver = await startWebhookReceiver(t);
  const push = { allowPrivate: true, allowHttp: true };
  const one = await startA2aAgent(t, { handler, store: redis.url, a2aPush: push });
  const two = await startA2aAgent(t, { handler, store: redis.url, a2aPush: push });
  const message = { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'hold' }] };
  const sending = call(one.url, 'SendMessage', {
    message,
    configuration: { taskPushNotificationConfig: { id: 'first', url: `${receiver.origin}/first` } },
  });
  // The run's start is pushed to the config the message carried.
  const working = JSON.parse((await receiver.nth(1)).body);
  assert.equal(working.statusUpdate.status.state, 'TASK_STATE_WORKING');
  const taskId = working.statusUpdate.taskId as string;
  const created = await call(two.url, 'CreateTaskPushNotificationConfig', {
    taskId,
    id: 'second',
    url: `${receiver.origin}/second`,
  });
  assert.equal(created.result?.id, 'second', JSON.stringify(created));
  release();
  assert.equal((await sending).result.task.status.state, 'TASK_STATE_COMPLETED');
  // Each config hears of the run's end: its artifact, then its last status.
  const ends = await Promise.all([2, 3, 4, 5].map((n) => receiver.nth(n)));
  for (const path of ['/first', '/second']) {
    const heard = ends.filter((end) => end.path === path).map((end) => JSON.parse(end.body));
    assert.equal(heard.length, 2, path);
    assert.equal(heard[0].artifactUpdate.taskId, taskId);
    assert.equal(heard[1].statusUpdate.taskId, taskId);
    assert.equal(heard[1].statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  }
  const listed = await call(two.url, 'ListTaskPushNotificationConfigs', { taskId });
  assert.deepEqual(
    listed.result.configs.map((config: { id: string }) => config.id),
    ['first', 'second'],
  );
});
