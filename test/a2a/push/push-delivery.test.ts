// Push-notification delivery against real webhook receivers on 127.0.0.1 (allowed by the
// options, as an operator would): what a call carries, retries with a bound, redirects not
// followed, final answers, refusal by the destination policy at connect time (a custom resolver
// stands in for DNS), https through the same guard, and a slow or hanging receiver that neither
// blocks `notify` nor other destinations, with its queue dropping the oldest call. Tests wait
// for receivers' calls and delivery outcomes, never for time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { LookupAddress } from 'node:dns';
import type { TestContext } from 'node:test';
import type { StoredPushConfig } from '../../../src/a2a/push/push-config-store.js';
import {
  PushDelivery,
  type DroppedChange,
  type PushDeliveryOptions,
  type PushOutcome,
} from '../../../src/a2a/push/push-delivery.js';
import { MemoryPushConfigStore } from '../../../src/stores/memory/memory-push-config-store.js';
import { hasOpenssl, makeServerCertificate } from '../../support/certificates.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';

const scope = { tenant: '', principal: 'alice' };

function config(url: string, id = 'c1', extra: Partial<StoredPushConfig> = {}): StoredPushConfig {
  return { tenant: '', owner: 'alice', taskId: 'task-1', id, url, token: '', authentication: null, ...extra };
}

/** A delivery over a memory store, its outcomes recorded and awaitable. */
function delivery(t: TestContext, options: PushDeliveryOptions = {}) {
  const store = new MemoryPushConfigStore();
  const outcomes: PushOutcome[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const push = new PushDelivery(store, {
    allowPrivate: true,
    allowHttp: true,
    initialBackoffMs: 1,
    random: () => 0,
    ...options,
    onOutcome(outcome) {
      outcomes.push(outcome);
      for (const waiter of waiting.filter((item) => outcomes.length >= item.count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  t.after(() => push.close());
  return {
    store,
    push,
    outcomes,
    /** Resolves once `count` outcomes in all have been reported. */
    async outcome(count = 1): Promise<PushOutcome> {
      if (outcomes.length < count) await new Promise<void>((resolve) => waiting.push({ count, resolve }));
      return outcomes[count - 1]!;
    },
  };
}

const statusUpdate = (state: string) => ({ statusUpdate: { taskId: 'task-1', contextId: 'ctx', status: { state } } });
/** A change that tells of one status update. */
const statusChange = (state: string) => () => [statusUpdate(state)];

test('a change is POSTed as its StreamResponse JSON with the token header and the Authorization the config describes', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t);
  await store.put(
    config(`${receiver.origin}/hook?x=1`, 'c1', {
      token: 'tok-123',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    }),
  );
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  const call = await receiver.nth(1);
  assert.equal(call.path, '/hook?x=1');
  assert.deepEqual(JSON.parse(call.body), statusUpdate('TASK_STATE_WORKING'));
  assert.equal(call.headers['content-type'], 'application/a2a+json');
  assert.equal(call.headers['x-a2a-notification-token'], 'tok-123');
  assert.equal(call.headers.authorization, 'Bearer secret');
  const { seconds, ...ended } = await outcome();
  assert.deepEqual(ended, {
    result: 'delivered',
    taskId: 'task-1',
    configId: 'c1',
    url: `${receiver.origin}/hook?x=1`,
    attempts: 1,
  });
  assert.ok(typeof seconds === 'number' && seconds >= 0, 'the call is timed');
  assert.equal(push.stats().delivered, 1);
});

test('without token or authentication neither header is sent; every config of the task gets the change, other tasks and scopes none', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t);
  await store.put(config(`${receiver.origin}/a`, 'a'));
  await store.put(config(`${receiver.origin}/b`, 'b'));
  await store.put({ ...config(`${receiver.origin}/other-task`, 'c'), taskId: 'task-2' });
  await store.put({ ...config(`${receiver.origin}/other-owner`, 'd'), owner: 'bob' });
  push.notify(scope, 'task-1', statusChange('TASK_STATE_COMPLETED'));
  await outcome(2);
  assert.deepEqual(receiver.calls.map((call) => call.path).sort(), ['/a', '/b']);
  assert.equal(receiver.calls[0]!.headers['x-a2a-notification-token'], undefined);
  assert.equal(receiver.calls[0]!.headers.authorization, undefined);
});

test('a change of a task without configs is never written; one with several StreamResponses sends them in order', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t);
  let made = 0;
  push.notify(scope, 'task-without-configs', () => {
    made += 1;
    return [statusUpdate('TASK_STATE_WORKING')];
  });
  await store.put(config(`${receiver.origin}/`));
  const artifact = {
    artifactUpdate: { taskId: 'task-1', contextId: 'ctx', artifact: { artifactId: 'a', parts: [{ text: 'hi' }] } },
  };
  push.notify(scope, 'task-1', () => [artifact, statusUpdate('TASK_STATE_COMPLETED')]);
  await outcome(2);
  assert.equal(made, 0);
  assert.deepEqual(
    receiver.calls.map((call) => JSON.parse(call.body)),
    [artifact, statusUpdate('TASK_STATE_COMPLETED')],
  );
});

test("one config's changes arrive in the order they happened", async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t, { concurrencyPerDestination: 4 });
  await store.put(config(`${receiver.origin}/`));
  const states = [
    'TASK_STATE_SUBMITTED',
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_WORKING',
    'TASK_STATE_COMPLETED',
  ];
  for (const state of states) push.notify(scope, 'task-1', statusChange(state));
  await outcome(states.length);
  assert.deepEqual(
    receiver.calls.map((call) => JSON.parse(call.body).statusUpdate.status.state),
    states,
  );
});

test('a 503 then a 500 then a 200: delivered on the third attempt, the same body each time', async (t) => {
  const receiver = await startWebhookReceiver(t, { answer: (n) => ({ status: n === 1 ? 503 : n === 2 ? 500 : 200 }) });
  const { store, push, outcome } = delivery(t);
  await store.put(config(`${receiver.origin}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  const result = await outcome();
  assert.equal(result.result, 'delivered');
  assert.equal(result.attempts, 3);
  assert.equal(receiver.calls.length, 3);
  assert.equal(new Set(receiver.calls.map((call) => call.body)).size, 1);
  assert.equal(push.stats().retried, 2);
});

test('a receiver that keeps failing gets maxAttempts calls, then the call is given up', async (t) => {
  const receiver = await startWebhookReceiver(t, { answer: () => ({ status: 500 }) });
  const { store, push, outcome } = delivery(t, { maxAttempts: 3 });
  await store.put(config(`${receiver.origin}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  const result = await outcome();
  assert.equal(result.result, 'failed');
  assert.equal(result.attempts, 3);
  assert.match(result.reason!, /answered 500; gave up after 3 attempts/);
  assert.equal(receiver.calls.length, 3);
  assert.equal(push.stats().failed, 1);
});

test('no attempt starts past maxDeliveryMs: the backoff that would cross it ends the call', async (t) => {
  const receiver = await startWebhookReceiver(t, { answer: () => ({ status: 503 }) });
  const { store, push, outcome } = delivery(t, { maxAttempts: 10, initialBackoffMs: 60_000, maxDeliveryMs: 30_000 });
  await store.put(config(`${receiver.origin}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  const result = await outcome();
  assert.equal(result.result, 'failed');
  assert.equal(result.attempts, 1);
  assert.match(result.reason!, /past 30000 ms/);
});

for (const status of [400, 401, 404]) {
  test(`an answer of ${status} is final: one attempt`, async (t) => {
    const receiver = await startWebhookReceiver(t, { answer: () => ({ status }) });
    const { store, push, outcome } = delivery(t);
    await store.put(config(`${receiver.origin}/`));
    push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
    const result = await outcome();
    assert.deepEqual([result.result, result.attempts, result.reason], ['failed', 1, `answered ${status}`]);
  });
}

test('a redirect is not followed: the call fails and the place it points to is never called', async (t) => {
  const elsewhere = await startWebhookReceiver(t);
  const receiver = await startWebhookReceiver(t, {
    answer: () => ({ status: 307, headers: { location: `${elsewhere.origin}/` } }),
  });
  const { store, push, outcome } = delivery(t);
  await store.put(config(`${receiver.origin}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  const result = await outcome();
  assert.equal(result.result, 'failed');
  assert.equal(result.attempts, 1);
  assert.match(result.reason!, /redirect, which is not followed/);
  assert.equal(elsewhere.calls.length, 0);
});

test('a large answer body is not read past maxResponseBytes; the call still counts as delivered', async (t) => {
  const receiver = await startWebhookReceiver(t, { answer: () => ({ status: 200, body: Buffer.alloc(4 * 1024 * 1024, 'x') }) });
  const { store, push, outcome } = delivery(t, { maxResponseBytes: 1024 });
  await store.put(config(`${receiver.origin}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  assert.equal((await outcome()).result, 'delivered');
});

test('a receiver that never answers: the attempt ends at attemptTimeoutMs', async (t) => {
  const receiver = await startWebhookReceiver(t, { answer: () => 'hang' });
  const { store, push, outcome } = delivery(t, { attemptTimeoutMs: 200, maxAttempts: 1 });
  await store.put(config(`${receiver.origin}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  const result = await outcome();
  assert.equal(result.result, 'failed');
  assert.match(result.reason!, /no answer within 200 ms/);
});

test('a hanging receiver blocks neither notify nor other destinations; its full queue drops the oldest call', async (t) => {
  const slow = await startWebhookReceiver(t, { answer: () => 'hang' });
  const fast = await startWebhookReceiver(t);
  const { store, push, outcome, outcomes } = delivery(t, { concurrencyPerDestination: 1, maxQueuedPerDestination: 2 });
  await store.put(config(`${slow.origin}/`));
  await store.put({ ...config(`${fast.origin}/`, 'fast'), taskId: 'task-2' });
  // The first change goes out and hangs; four more wait in a queue of two: the two oldest are dropped.
  const states = [
    'TASK_STATE_SUBMITTED',
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_WORKING',
    'TASK_STATE_COMPLETED',
  ];
  for (const state of states) push.notify(scope, 'task-1', statusChange(state));
  await slow.nth(1);
  push.notify(scope, 'task-2', () => [
    { statusUpdate: { taskId: 'task-2', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } } },
  ]);
  await fast.nth(1);
  await outcome(3);
  assert.deepEqual(outcomes.map((item) => [item.result, item.configId]).sort(), [
    ['delivered', 'fast'],
    ['dropped', 'c1'],
    ['dropped', 'c1'],
  ]);
  assert.equal(push.stats().dropped, 2);
  slow.release();
  await outcome(6);
  assert.deepEqual(
    slow.calls.map((call) => JSON.parse(call.body).statusUpdate.status.state),
    ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
  );
});

test('a store that cannot be read drops the change, counted and reported as unread; notify still returns', async (t) => {
  const failing = {
    put: () => Promise.resolve(),
    get: () => Promise.resolve(undefined),
    list: () => Promise.resolve([]),
    delete: () => Promise.resolve(false),
    touch: () => Promise.reject(new Error('store away')),
  };
  const lost: DroppedChange[] = [];
  const push = new PushDelivery(failing, { onChangeDropped: (dropped) => lost.push(dropped) });
  t.after(() => push.close());
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  while (push.stats().dropped === 0) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(push.stats().dropped, 1);
  assert.equal(push.stats().unread, 1);
  assert.deepEqual(lost, [{ taskId: 'task-1', why: 'unread' }]);
});

test('a change past maxPendingPerTask while the configs are read is dropped, reported as pending_full', async (t) => {
  let answer!: (configs: StoredPushConfig[]) => void;
  const slow = {
    put: () => Promise.resolve(),
    get: () => Promise.resolve(undefined),
    list: () => Promise.resolve([]),
    delete: () => Promise.resolve(false),
    touch: () => new Promise<StoredPushConfig[]>((resolve) => (answer = resolve)),
  };
  const lost: DroppedChange[] = [];
  const push = new PushDelivery(slow, { maxPendingPerTask: 1, onChangeDropped: (dropped) => lost.push(dropped) });
  t.after(() => push.close());
  // The first change is being read for; the second waits; the third pushes the second out.
  for (const state of ['TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']) {
    push.notify(scope, 'task-1', statusChange(state));
  }
  assert.deepEqual(lost, [{ taskId: 'task-1', why: 'pending_full' }]);
  answer([]);
  assert.equal(push.stats().dropped, 1);
  assert.equal(push.stats().unread, 0);
});

// The destination policy at connect time: a host name whose address falls in a refused class
// is refused before anything is sent, whatever the name; the resolver stands in for DNS.
const REFUSED_BY_NAME: readonly [string, string, string][] = [
  ['loopback IPv4', '127.0.0.1', 'loopback'],
  ['loopback IPv6', '::1', 'loopback'],
  ['private 10/8', '10.1.2.3', 'private'],
  ['private 172.16/12', '172.20.0.1', 'private'],
  ['private 192.168/16', '192.168.1.1', 'private'],
  ['link-local (cloud metadata)', '169.254.169.254', 'link-local'],
  ['link-local IPv6', 'fe80::1', 'link-local'],
  ['unique-local IPv6', 'fd12:3456::1', 'unique-local'],
  ['multicast IPv4', '239.1.1.1', 'multicast'],
  ['multicast IPv6', 'ff02::1', 'multicast'],
  ['unspecified IPv4', '0.0.0.0', 'unspecified'],
  ['unspecified IPv6', '::', 'unspecified'],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1', 'loopback'],
  ['IPv4-mapped private', '::ffff:10.0.0.1', 'private'],
  ['carrier-grade NAT', '100.64.0.1', 'shared'],
];

function resolverTo(addresses: readonly string[]) {
  return (_host: string): Promise<readonly LookupAddress[]> =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
}

for (const [name, address, kind] of REFUSED_BY_NAME) {
  test(`refused at connect: a name that resolves to ${name} (${address})`, async (t) => {
    const { store, push, outcome } = delivery(t, { allowPrivate: false, resolve: resolverTo([address]) });
    await store.put(config('http://hooks.example:8080/'));
    push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
    const result = await outcome();
    assert.equal(result.result, 'failed');
    assert.equal(result.refused, true);
    assert.equal(result.attempts, 1, 'a refusal is not retried');
    assert.match(result.reason!, new RegExp(`a ${kind} address`));
    assert.equal(push.stats().refused, 1);
  });
}

test('refused: a literal loopback address in the URL, with the receiver listening there never called', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t, { allowPrivate: false });
  await store.put(config(`${receiver.origin}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  const result = await outcome();
  assert.deepEqual([result.result, result.refused], ['failed', true]);
  assert.equal(receiver.calls.length, 0);
});

test('refused: a literal IPv4-mapped loopback address, [::ffff:127.0.0.1]', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t, { allowPrivate: false });
  await store.put(config(`http://[::ffff:127.0.0.1]:${receiver.port}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  assert.equal((await outcome()).refused, true);
  assert.equal(receiver.calls.length, 0);
});

test('a name with refused and allowed addresses connects only to an allowed one', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t, {
    allowPrivate: false,
    allow: ['127.0.0.1/32'],
    resolve: resolverTo(['10.0.0.1', '127.0.0.1']),
  });
  await store.put(config(`http://hooks.example:${receiver.port}/`));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  assert.equal((await outcome()).result, 'delivered');
  assert.equal(receiver.calls[0]!.headers.host, `hooks.example:${receiver.port}`);
});

test('an allowed host name may reach a private address; another name at the same address may not', async (t) => {
  const receiver = await startWebhookReceiver(t);
  const { store, push, outcome } = delivery(t, {
    allowPrivate: false,
    allow: ['hooks.internal'],
    resolve: resolverTo(['127.0.0.1']),
  });
  await store.put(config(`http://hooks.internal:${receiver.port}/`, 'allowed'));
  await store.put(config(`http://other.internal:${receiver.port}/`, 'other'));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  await outcome(2);
  const byId = new Map((await Promise.all([outcome(1), outcome(2)])).map((item) => [item.configId, item]));
  assert.equal(byId.get('allowed')!.result, 'delivered');
  assert.equal(byId.get('other')!.refused, true);
  assert.equal(receiver.calls.length, 1);
});

test('https webhooks go through the same guard, and the certificate must name the host', {
  skip: hasOpenssl() ? false : 'openssl is not installed',
}, async (t) => {
  const certificate = makeServerCertificate();
  t.after(() => certificate.remove());
  const receiver = await startWebhookReceiver(t, { tls: certificate.server });
  const { store, push, outcome } = delivery(t, {
    allowPrivate: false,
    allowHttp: false,
    allow: ['127.0.0.1/32'],
    resolve: resolverTo(['127.0.0.1']),
    ca: readFileSync(certificate.cafile),
  });
  await store.put(config(`https://localhost:${receiver.port}/secure`, 'tls', { token: 't' }));
  await store.put(config(`https://not-in-cert.example:${receiver.port}/`, 'wrong-name'));
  push.notify(scope, 'task-1', statusChange('TASK_STATE_WORKING'));
  await outcome(2);
  const byId = new Map([await outcome(1), await outcome(2)].map((item) => [item.configId, item]));
  assert.equal(byId.get('tls')!.result, 'delivered');
  assert.equal(receiver.calls.length, 1);
  assert.equal(receiver.calls[0]!.path, '/secure');
  assert.equal(receiver.calls[0]!.headers['x-a2a-notification-token'], 't');
  assert.deepEqual(
    [byId.get('wrong-name')!.result, byId.get('wrong-name')!.attempts],
    ['failed', 1],
    'a certificate error is final',
  );
  assert.match(byId.get('wrong-name')!.reason!, /certificate/i);
});
