// A2A push notifications on GET /metrics: `parley_a2a_push_deliveries_total{outcome}` counts
// each webhook call that ended (delivered, failed, refused by the destination policy, dropped)
// and each task change that never became calls because its configs could not be read
// (config_read_failed: a real redis-server stopped under the agent), and
// `parley_a2a_push_delivery_duration_seconds` times the calls attempted. Real webhook
// receivers on 127.0.0.1, a real agent, its exposition read with an independent parser; the
// application's own onOutcome and onChangeDropped still hear every call and every lost change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { DroppedChange, PushOutcome } from '../../src/a2a/push/push-delivery.js';
import type { A2aPushOptions } from '../../src/a2a/push/push-notifications.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { call, userMessage } from '../a2a/support.js';
import { deferred } from '../support/async.js';
import { redisInstalled, startRedis } from '../support/redis-server.js';
import { waitFor } from '../support/transport-fixtures.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

type Families = ReturnType<typeof parsePrometheusTextFormat>;

const OUTCOMES = ['delivered', 'failed', 'refused', 'dropped', 'config_read_failed'] as const;

async function meteredAgent(
  t: { after(fn: () => unknown): void },
  push: A2aPushOptions,
  more: { store?: string; handler?: AgentHandler } = {},
) {
  const heard: PushOutcome[] = [];
  const lost: DroppedChange[] = [];
  const agent = new AgentServer({
    name: 'pushing',
    description: 'echoes and pushes',
    a2a: true,
    metrics: true,
    handler: more.handler ?? (({ input }) => `echo: ${input}`),
    ...(more.store ? { store: more.store } : {}),
    a2aPush: { ...push, onOutcome: (outcome) => heard.push(outcome), onChangeDropped: (dropped) => lost.push(dropped) },
  });
  await agent.start();
  t.after(() => agent.stop());
  return { url: agent.url, heard, lost };
}

async function scrape(url: string): Promise<{ families: Families; text: string }> {
  const res = await fetch(`${url}/metrics`);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return { families: parsePrometheusTextFormat(text), text };
}

function deliveries(families: Families, outcome: string): number {
  const family = families.find((entry) => entry.name === 'parley_a2a_push_deliveries_total');
  assert.ok(family, 'parley_a2a_push_deliveries_total in the exposition');
  const found = family.metrics.find((metric) => metric.labels?.outcome === outcome);
  assert.ok(found, `a sample for outcome ${outcome}`);
  return Number(found.value);
}

/** The histogram's count for one outcome, from its `_count` line (the parser folds label sets). */
function timed(text: string, outcome: string): number {
  const line = `parley_a2a_push_delivery_duration_seconds_count{outcome="${outcome}"} `;
  const found = text.split('\n').find((entry) => entry.startsWith(line));
  return found ? Number(found.slice(line.length)) : 0;
}

/** Sends a message whose task pushes its three changes (working, the artifact, completed) to `webhook`. */
async function pushedTask(url: string, webhook: string): Promise<void> {
  const answer = await call(url, 'SendMessage', {
    message: userMessage('hello'),
    configuration: { taskPushNotificationConfig: { url: webhook } },
  });
  assert.equal(answer.result?.task?.status?.state, 'TASK_STATE_COMPLETED', JSON.stringify(answer));
}

test('delivered and failed webhook calls are counted and timed by outcome; every outcome shows from the start', async (t) => {
  const ok = await startWebhookReceiver(t);
  const refusing = await startWebhookReceiver(t, { answer: () => ({ status: 400 }) });
  const { url, heard } = await meteredAgent(t, { allowHttp: true, allowPrivate: true, initialBackoffMs: 1 });

  const before = await scrape(url);
  for (const outcome of OUTCOMES) assert.equal(deliveries(before.families, outcome), 0, `${outcome} before any call`);

  await pushedTask(url, `${ok.origin}/hook`);
  await pushedTask(url, `${refusing.origin}/hook`);
  // A config's calls go in order and the completed status is the last change: once each
  // receiver has it, every call has ended (a 400 is final, never retried).
  const completed = (receiver: typeof ok) => receiver.calls.some((received) => received.body.includes('TASK_STATE_COMPLETED'));
  await waitFor(
    () => completed(ok) && completed(refusing) && heard.length === ok.calls.length + refusing.calls.length,
    'every webhook call to end',
  );

  const after = await scrape(url);
  // Each of the task's changes (its status, its artifact) is one call.
  assert.ok(ok.calls.length >= 2 && refusing.calls.length >= 2, 'a call per change');
  assert.equal(deliveries(after.families, 'delivered'), ok.calls.length);
  assert.equal(deliveries(after.families, 'failed'), refusing.calls.length, 'a 400 ends a call at once, failed');
  assert.equal(deliveries(after.families, 'refused'), 0);
  assert.equal(deliveries(after.families, 'dropped'), 0);
  assert.equal(timed(after.text, 'delivered'), ok.calls.length);
  assert.equal(timed(after.text, 'failed'), refusing.calls.length);
  assert.ok(heard.every((outcome) => typeof outcome.seconds === 'number' && outcome.seconds >= 0));
});

test('a call the destination policy refuses when it connects is counted refused, not failed', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { url, heard } = await meteredAgent(t, {
    allowHttp: true,
    // The name resolves to loopback, which the policy refuses by default.
    resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
  });
  await pushedTask(url, `http://hooks.example:${receiver.port}/`);
  await waitFor(() => heard.length >= 2, 'the webhook calls to end');
  // The calls end without a receiver to tell when the last has: scrape until the exposition
  // and the outcomes heard agree, then every one of them must be a refusal.
  let scraped = await scrape(url);
  while (deliveries(scraped.families, 'refused') + deliveries(scraped.families, 'failed') !== heard.length) {
    scraped = await scrape(url);
  }
  assert.ok(heard.every((outcome) => outcome.refused));
  assert.equal(deliveries(scraped.families, 'refused'), heard.length);
  assert.equal(deliveries(scraped.families, 'failed'), 0);
  assert.equal(deliveries(scraped.families, 'delivered'), 0);
  assert.equal(timed(scraped.text, 'refused'), heard.length);
  assert.equal(receiver.calls.length, 0);
});

test('an agent without push notifications exposes no push series', async (t) => {
  const agent = new AgentServer({ name: 'quiet', description: 'no push', a2a: true, a2aPush: false, metrics: true });
  await agent.start();
  t.after(() => agent.stop());
  const { text } = await scrape(agent.url);
  assert.ok(!text.includes('parley_a2a_push_'), 'no push metrics');
});

test('a change whose webhook configs cannot be read (the Redis store stopped) is counted config_read_failed, once', {
  skip: redisInstalled ? false : 'redis-server is not installed',
}, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.dispose());
  const receiver = await startWebhookReceiver(t);
  const gate = deferred();
  t.after(() => gate.resolve());
  // Works until the test lets it finish: its end is the change pushed while Redis is away.
  const handler: AgentHandler = async ({ input }) => {
    await gate.promise;
    return `echo: ${input}`;
  };
  const { url, heard, lost } = await meteredAgent(t, { allowHttp: true, allowPrivate: true }, { store: redis.url, handler });
  const sending = call(url, 'SendMessage', {
    message: userMessage('hello'),
    configuration: { taskPushNotificationConfig: { url: `${receiver.origin}/hook` } },
  });
  // The run's start reaches the webhook while the store is up.
  const working = JSON.parse((await receiver.nth(1)).body);
  assert.equal(working.statusUpdate.status.state, 'TASK_STATE_WORKING');
  await waitFor(() => heard.length === 1, 'the working call to end');

  await redis.stop();
  gate.resolve();
  // The run's end cannot be recorded: the blocking call answers the store's failure.
  const answer = await sending;
  assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
  await waitFor(() => lost.length > 0, 'the end of the run to be given up');

  const { families, text } = await scrape(url);
  assert.deepEqual(lost, [{ taskId: working.statusUpdate.taskId, why: 'unread' }]);
  assert.equal(deliveries(families, 'config_read_failed'), 1, "the run's end, counted once as a change");
  assert.equal(deliveries(families, 'delivered'), 1, 'the working call');
  assert.equal(deliveries(families, 'dropped'), 0);
  assert.equal(deliveries(families, 'failed'), 0);
  assert.equal(timed(text, 'config_read_failed'), 0, 'nothing was attempted, so nothing is timed');
  assert.equal(receiver.calls.length, 1, "the run's end was never pushed");
});
