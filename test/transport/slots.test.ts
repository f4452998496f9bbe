// Spec "Limits": excess concurrency waits for a slot rather than being rejected. Ordering is
// asserted, never durations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { LazyAbort } from '../../src/core/lazy-abort.js';
import { ResolvedConfig } from '../../src/transport/config.js';
import { Dispatcher } from '../../src/transport/dispatcher.js';
import { EndpointError } from '../../src/transport/endpoint-error.js';
import { Inbound, NO_PARAMS } from '../../src/transport/endpoint.js';
import { TransportMetrics } from '../../src/transport/metrics.js';
import { Slots } from '../../src/transport/slots.js';
import { collect } from '../support/async.js';
import { client, gate, ops, rejection, runtimeUrl, serve, stream, table, unary, waitFor } from '../support/transport-fixtures.js';

// ---- the semaphore itself ----------------------------------------------------------------

test('Slots: up to capacity at once, the rest wait in FIFO order', async () => {
  const slots = new Slots(2);
  const order: string[] = [];
  const first = await slots.acquire();
  const second = await slots.acquire();
  assert.equal(slots.inUse, 2);
  const third = slots.acquire().then((release) => (order.push('third'), release));
  const fourth = slots.acquire().then((release) => (order.push('fourth'), release));
  assert.equal(slots.waiting, 2);
  await Promise.resolve();
  assert.deepEqual(order, []);
  first();
  const releaseThird = await third;
  assert.deepEqual(order, ['third']);
  assert.equal(slots.waiting, 1);
  second();
  const releaseFourth = await fourth;
  assert.deepEqual(order, ['third', 'fourth']);
  releaseThird();
  releaseFourth();
  assert.equal(slots.inUse, 0);
  assert.equal(slots.waiting, 0);
});

test('Slots: an aborted wait leaves the queue and the next waiter gets the slot', async () => {
  const slots = new Slots(1);
  const held = await slots.acquire();
  const aborter = new AbortController();
  const abandoned = slots.acquire(aborter.signal);
  const patient = slots.acquire();
  assert.equal(slots.waiting, 2);
  const reason = new Error('caller gave up');
  aborter.abort(reason);
  assert.equal(await rejection(abandoned), reason);
  assert.equal(slots.waiting, 1);
  held();
  const release = await patient;
  assert.equal(slots.inUse, 1);
  release();
  assert.equal(slots.inUse, 0);
});

test('Slots: an already-aborted signal never queues', async () => {
  const slots = new Slots(1);
  const held = await slots.acquire();
  const reason = new Error('already gone');
  const error = await rejection(slots.acquire(AbortSignal.abort(reason)));
  assert.equal(error, reason);
  assert.equal(slots.waiting, 0);
  held();
});

test('Slots: a signal given as a function is made only when the caller has to wait', async () => {
  const slots = new Slots(1);
  let made = 0;
  const aborter = new AbortController();
  const lazy = () => (made++, aborter.signal);
  const held = await slots.acquire(lazy);
  assert.equal(made, 0, 'a free slot needs no signal');
  const waiting = slots.acquire(lazy);
  assert.equal(made, 1);
  const reason = new Error('gave up');
  aborter.abort(reason);
  assert.equal(await rejection(waiting), reason);
  assert.equal(slots.waiting, 0);
  held();
});

test('Slots: releasing twice frees only one slot', async () => {
  const slots = new Slots(1);
  const release = await slots.acquire();
  release();
  release();
  assert.equal(slots.inUse, 0);
  const again = await slots.acquire();
  assert.equal(slots.inUse, 1);
  again();
});

test('Slots.tryAcquire takes a free slot at once, and none while the slots are full or others wait', async () => {
  const slots = new Slots(1);
  const first = slots.tryAcquire();
  assert.ok(first);
  assert.equal(slots.inUse, 1);
  assert.equal(slots.tryAcquire(), null, 'full');
  const queued = slots.acquire();
  first();
  // The slot went to the waiter, not to a caller that came later without waiting.
  const second = await queued;
  assert.equal(slots.inUse, 1);
  assert.equal(slots.tryAcquire(), null, 'taken by the waiter');
  second();
  assert.equal(slots.inUse, 0);
  const third = slots.tryAcquire();
  assert.ok(third);
  third();
});

test('Slots.run releases the slot when the work fails', async () => {
  const slots = new Slots(1);
  await assert.rejects(
    slots.run(async () => Promise.reject(new Error('x'))),
    /x/,
  );
  assert.equal(slots.inUse, 0);
  assert.equal(await slots.run(async () => 5), 5);
});

// ---- through real transports ---------------------------------------------------------------

/** A sendTask handler that blocks every call on `gate` and logs start/end in order. */
function blockingTask(events: string[], open: Promise<void>) {
  return unary(ops.sendTask, async (task) => {
    events.push(`start ${task.id}`);
    if (task.id === 'first') await open;
    events.push(`end ${task.id}`);
    return { ...task, state: 'completed' };
  });
}

for (const name of ['http', 'runtime'] as const) {
  test(`${name} server: max_concurrent_requests 1 makes the second call wait, then both succeed`, async (t) => {
    const events: string[] = [];
    const hold = gate();
    const server = await serve(
      t,
      name,
      name === 'http' ? 'http://127.0.0.1:0' : runtimeUrl('slots-srv'),
      table(blockingTask(events, hold.promise)),
      { limits: { maxConcurrentRequests: 1 } },
    );
    const api = new AgentOperationsClient(await client(t, name, server.url));
    const first = api.sendTask({ id: 'first' });
    await waitFor(() => events.includes('start first'), 'first call running');
    const second = api.sendTask({ id: 'second' });
    // The second request has reached the server (it is counted) but waits for the slot.
    await waitFor(() => server.health().metrics.requests_started === 2, 'second call arrived');
    assert.deepEqual(events, ['start first']);
    hold.open();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.state, 'completed');
    assert.equal(b.state, 'completed');
    assert.deepEqual(events, ['start first', 'end first', 'start second', 'end second']);
    assert.equal(server.health().metrics.requests_failed, 0);
  });

  test(`${name} client: max_concurrent_requests 1 holds the second call at the caller`, async (t) => {
    const events: string[] = [];
    const hold = gate();
    const server = await serve(
      t,
      name,
      name === 'http' ? 'http://127.0.0.1:0' : runtimeUrl('slots-cli'),
      table(blockingTask(events, hold.promise)),
    );
    const transport = await client(t, name, server.url, { limits: { maxConcurrentRequests: 1 } });
    const api = new AgentOperationsClient(transport);
    const first = api.sendTask({ id: 'first' });
    await waitFor(() => events.includes('start first'), 'first call running');
    const second = api.sendTask({ id: 'second' });
    await waitFor(() => transport.health().metrics.requests_started === 2, 'second call started at the caller');
    assert.equal(server.health().metrics.requests_started, 1, 'the second call has not left the caller');
    hold.open();
    await Promise.all([first, second]);
    assert.deepEqual(events, ['start first', 'end first', 'start second', 'end second']);
    assert.equal(transport.health().metrics.active_requests, 0);
  });
}

test('http client: a call aborted while waiting for a slot leaves the queue; later calls still run', async (t) => {
  const events: string[] = [];
  const hold = gate();
  const server = await serve(t, 'http', 'http://127.0.0.1:0', table(blockingTask(events, hold.promise)));
  const transport = await client(t, 'http', server.url, { limits: { maxConcurrentRequests: 1 } });
  const api = new AgentOperationsClient(transport);
  const first = api.sendTask({ id: 'first' });
  await waitFor(() => events.includes('start first'), 'first call running');
  const aborter = new AbortController();
  const waiting = api.sendTask({ id: 'abandoned' }, { signal: aborter.signal });
  await waitFor(() => transport.health().metrics.requests_started === 2, 'second call waiting');
  const reason = new Error('caller gave up');
  aborter.abort(reason);
  assert.equal(await rejection(waiting), reason);
  hold.open();
  await first;
  assert.equal((await api.sendTask({ id: 'third' })).state, 'completed');
  assert.deepEqual(events, ['start first', 'end first', 'start third', 'end third']);
  assert.equal(transport.health().metrics.active_requests, 0);
});

test('http server: a control-plane call does not wait behind the work it controls', async (t) => {
  const events: string[] = [];
  const hold = gate();
  const server = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(
      blockingTask(events, hold.promise),
      unary(ops.cancelTask, (request) => (events.push(`cancel ${request.id}`), { id: request.id, state: 'canceled' })),
    ),
    { limits: { maxConcurrentRequests: 1 } },
  );
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  const first = api.sendTask({ id: 'first' });
  await waitFor(() => events.includes('start first'), 'first call running');
  const canceled = await api.cancelTask({ id: 'first' });
  assert.equal(canceled.state, 'canceled');
  assert.deepEqual(events, ['start first', 'cancel first']);
  hold.open();
  await first;
});

test('runtime streams wait for the caller stream slot (max_concurrent_streams 1)', async (t) => {
  const url = runtimeUrl('slots-stream');
  const events: string[] = [];
  const hold = gate();
  await serve(
    t,
    'runtime',
    url,
    table({
      spec: ops.streamTask,
      async *stream(task: any) {
        events.push(`open ${task.id}`);
        try {
          if (task.id === 'first') await hold.promise;
          yield { result: { type: 'task_completed', task_id: task.id }, final: true };
        } finally {
          // The caller stops reading after the final event, which closes the generator here.
          events.push(`close ${task.id}`);
        }
      },
    }),
  );
  const transport = await client(t, 'runtime', url, { limits: { maxConcurrentStreams: 1 } });
  const api = new AgentOperationsClient(transport);
  const drain = async (id: string) => {
    const out: unknown[] = [];
    for await (const event of api.streamTask({ id })) out.push(event);
    return out;
  };
  const first = drain('first');
  await waitFor(() => events.includes('open first'), 'first stream open');
  const second = drain('second');
  // Give the second stream every chance to start; it must not open while the first holds the slot.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(events, ['open first']);
  hold.open();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.length, 1);
  assert.equal(b.length, 1);
  assert.deepEqual(events, ['open first', 'close first', 'open second', 'close second']);
  assert.equal(transport.health().metrics.active_streams, 0);
});

// A caller that leaves while its stream is being opened (credentials still being checked, or a
// slot being waited for) gets a stream that its transport closes before reading a frame. An
// async generator closed before its first step never runs its own cleanup; the slot must be
// freed all the same, or such callers would use up every slot.
test('server: a stream closed before its first frame frees its slot and counts as failed', { timeout: 5_000 }, async () => {
  const metrics = new TransportMetrics(true);
  const dispatcher = new Dispatcher(
    table(
      stream(ops.streamTask, async function* (task: { id: string }) {
        yield { result: { type: 'task_completed', task_id: task.id }, final: true };
      }),
    ),
    {
      name: 'runtime',
      url: () => 'runtime://slots',
      config: new ResolvedConfig({ limits: { maxConcurrentStreams: 1 } }),
      metrics,
      authenticator: null,
    },
  );
  const request = (id: string) =>
    new Inbound(
      {
        method: 'POST',
        path: '/tasks/stream',
        data: { id },
        params: NO_PARAMS,
        requestId: `request-${id}`,
        idempotencyKey: null,
        credentials: null,
        receivedBytes: 16,
      },
      new LazyAbort(),
    );
  const left = await dispatcher.openStream(request('left'));
  assert.equal(metrics.snapshot().active_streams, 1);
  await left.return();
  assert.equal(metrics.snapshot().active_streams, 0);
  assert.equal(metrics.snapshot().streams_failed, 1);
  // The only slot is free: the next stream opens at once and runs to its final frame.
  const frames = await collect(await dispatcher.openStream(request('next')));
  assert.deepEqual(
    frames.map((frame) => frame.final),
    [true],
  );
  assert.deepEqual(metrics.snapshot(), {
    ...metrics.snapshot(),
    active_streams: 0,
    streams_started: 2,
    streams_completed: 1,
    streams_failed: 1,
  });
});

test('server: a stream endpoint that refuses synchronously gives its slot back', { timeout: 5_000 }, async () => {
  const metrics = new TransportMetrics(true);
  const dispatcher = new Dispatcher(
    table(
      stream(ops.streamTask, (task: { id: string }) => {
        // Checked before the iterable exists: the throw comes after the slot was taken.
        if (task.id === 'refused') throw new EndpointError('invalid_request', 'refused by the endpoint');
        return (async function* () {
          yield { result: { type: 'task_completed', task_id: task.id }, final: true };
        })();
      }),
    ),
    {
      name: 'runtime',
      url: () => 'runtime://slots',
      config: new ResolvedConfig({ limits: { maxConcurrentStreams: 1 } }),
      metrics,
      authenticator: null,
    },
  );
  const request = (id: string) =>
    new Inbound(
      {
        method: 'POST',
        path: '/tasks/stream',
        data: { id },
        params: NO_PARAMS,
        requestId: `request-${id}`,
        idempotencyKey: null,
        credentials: null,
        receivedBytes: 16,
      },
      new LazyAbort(),
    );
  const refused = await rejection(dispatcher.openStream(request('refused')));
  assert.equal((refused as EndpointError).code, 'invalid_request');
  assert.equal(metrics.snapshot().streams_failed, 1);
  const frames = await collect(await dispatcher.openStream(request('next')));
  assert.deepEqual(
    frames.map((frame) => frame.final),
    [true],
  );
});
