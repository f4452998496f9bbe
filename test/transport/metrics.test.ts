// Spec "Health payload": per-instance counters that start at zero; how each one moves on the
// client and the server side, over http and runtime; collect_metrics false keeps all at zero.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { validate } from '../../generated/validators/index.js';
import { TransportMetrics, type MetricsSnapshot } from '../../src/transport/metrics.js';
import type { Transport } from '../../src/transport/transport.js';
import {
  answer,
  client,
  gate,
  instantRetry,
  ops,
  rawServer,
  rejection,
  runtimeUrl,
  serve,
  stream,
  table,
  unary,
  waitFor,
} from '../support/transport-fixtures.js';

const COUNTERS = [
  'requests_started',
  'requests_succeeded',
  'requests_failed',
  'retries',
  'streams_started',
  'streams_completed',
  'streams_failed',
  'active_requests',
  'active_streams',
  'bytes_sent',
  'bytes_received',
  'total_latency_ms',
] as const;

function allZero(metrics: MetricsSnapshot): void {
  assert.deepEqual(Object.keys(metrics).sort(), [...COUNTERS].sort());
  for (const key of COUNTERS) assert.equal(metrics[key], 0, `${key} stays at zero`);
}

/** Fields of a snapshot that are exact counts (everything but the latency). */
function counts(transport: Transport): Omit<MetricsSnapshot, 'total_latency_ms'> {
  const { total_latency_ms: _, ...rest } = transport.health().metrics;
  return rest;
}

const ZERO = {
  requests_started: 0,
  requests_succeeded: 0,
  requests_failed: 0,
  retries: 0,
  streams_started: 0,
  streams_completed: 0,
  streams_failed: 0,
  active_requests: 0,
  active_streams: 0,
  bytes_sent: 0,
  bytes_received: 0,
};

// ---- the counter object --------------------------------------------------------------------

const moves: Array<[string, (m: TransportMetrics) => void, Partial<MetricsSnapshot>]> = [
  ['requestStarted', (m) => m.requestStarted(), { requests_started: 1, active_requests: 1 }],
  [
    'request succeeded',
    (m) => (m.requestStarted(), m.requestFinished(true, performance.now())),
    { requests_started: 1, requests_succeeded: 1 },
  ],
  [
    'request failed',
    (m) => (m.requestStarted(), m.requestFinished(false, performance.now())),
    { requests_started: 1, requests_failed: 1 },
  ],
  ['retried', (m) => m.retried(), { retries: 1 }],
  ['streamStarted', (m) => m.streamStarted(), { streams_started: 1, active_streams: 1 }],
  ['stream completed', (m) => (m.streamStarted(), m.streamFinished(true)), { streams_started: 1, streams_completed: 1 }],
  ['stream failed', (m) => (m.streamStarted(), m.streamFinished(false)), { streams_started: 1, streams_failed: 1 }],
  ['sent', (m) => m.sent(42), { bytes_sent: 42 }],
  ['received', (m) => m.received(7), { bytes_received: 7 }],
];
for (const [label, move, expected] of moves) {
  test(`TransportMetrics: ${label} moves exactly ${JSON.stringify(expected)}`, () => {
    const metrics = new TransportMetrics(true);
    move(metrics);
    const { total_latency_ms: latency, ...rest } = metrics.snapshot();
    assert.deepEqual(rest, { ...ZERO, ...expected });
    assert.ok(latency >= 0);
  });
  test(`TransportMetrics disabled: ${label} moves nothing`, () => {
    const metrics = new TransportMetrics(false);
    move(metrics);
    allZero(metrics.snapshot());
  });
}

test('TransportMetrics: a snapshot is a copy and validates as transport-metrics', () => {
  const metrics = new TransportMetrics(true);
  const snapshot = metrics.snapshot();
  snapshot.requests_started = 99;
  assert.equal(metrics.snapshot().requests_started, 0);
  assert.ok(validate('transport-metrics', metrics.snapshot()).valid);
});

// ---- unary over http and runtime -------------------------------------------------------------

for (const name of ['http', 'runtime'] as const) {
  test(`${name}: unary counters on both sides, bytes counted as JSON body bytes`, async (t) => {
    const server = await serve(
      t,
      name,
      name === 'http' ? 'http://127.0.0.1:0' : runtimeUrl('metrics-unary'),
      table(
        unary(ops.sendTask, (task) => {
          if (task.id === 'bad') throw new Error('handler failed');
          return { ...task, state: 'completed' };
        }),
      ),
    );
    const transport = await client(t, name, server.url);
    allZero(transport.health().metrics);
    allZero(server.health().metrics);
    const api = new AgentOperationsClient(transport);

    await api.sendTask({ id: 'good' });
    const request = '{"id":"good"}';
    const response = '{"id":"good","state":"completed"}';
    assert.deepEqual(counts(transport), {
      ...ZERO,
      requests_started: 1,
      requests_succeeded: 1,
      bytes_sent: Buffer.byteLength(request),
      bytes_received: Buffer.byteLength(response),
    });
    assert.deepEqual(counts(server), {
      ...ZERO,
      requests_started: 1,
      requests_succeeded: 1,
      bytes_sent: Buffer.byteLength(response),
      bytes_received: Buffer.byteLength(request),
    });
    const latency = transport.health().metrics.total_latency_ms;
    assert.ok(latency >= 0);

    await rejection(api.sendTask({ id: 'bad' }));
    const after = transport.health().metrics;
    assert.equal(after.requests_started, 2);
    assert.equal(after.requests_succeeded, 1);
    assert.equal(after.requests_failed, 1);
    assert.equal(after.active_requests, 0);
    assert.equal(after.bytes_sent, Buffer.byteLength(request) + Buffer.byteLength('{"id":"bad"}'));
    assert.ok(after.total_latency_ms >= latency, 'total_latency_ms is cumulative');
    const served = server.health().metrics;
    assert.equal(served.requests_started, 2);
    assert.equal(served.requests_succeeded, 1);
    assert.equal(served.requests_failed, 1);
    assert.equal(served.active_requests, 0);
    assert.equal(served.bytes_received, Buffer.byteLength(request) + Buffer.byteLength('{"id":"bad"}'));
  });

  test(`${name}: active_requests counts calls in flight and returns to 0`, async (t) => {
    const hold = gate();
    let started = false;
    const server = await serve(
      t,
      name,
      name === 'http' ? 'http://127.0.0.1:0' : runtimeUrl('metrics-active'),
      table(unary(ops.sendTask, async (task) => ((started = true), await hold.promise, task))),
    );
    const transport = await client(t, name, server.url);
    const call = new AgentOperationsClient(transport).sendTask({ id: 'busy' });
    await waitFor(() => started, 'handler running');
    assert.equal(transport.health().metrics.active_requests, 1);
    assert.equal(server.health().metrics.active_requests, 1);
    hold.open();
    await call;
    assert.equal(transport.health().metrics.active_requests, 0);
    assert.equal(server.health().metrics.active_requests, 0);
  });
}

test('http: retries counts each retry and bytes_sent counts every attempt', async (t) => {
  const peer = await rawServer(t, (_req, res, n, body) => (n < 3 ? answer(res, 500) : answer(res, 200, body)));
  const transport = await client(t, 'http', peer.url, { retry: instantRetry(3) });
  await new AgentOperationsClient(transport).sendTask({ id: 'r' });
  assert.deepEqual(counts(transport), {
    ...ZERO,
    requests_started: 1,
    requests_succeeded: 1,
    retries: 2,
    bytes_sent: 3 * Buffer.byteLength('{"id":"r"}'),
    bytes_received: Buffer.byteLength('{"id":"r"}'),
  });
});

// ---- streams (runtime) ---------------------------------------------------------------------

test('runtime: stream counters on caller and target, active_streams while open', async (t) => {
  const url = runtimeUrl('metrics-stream');
  const server = await serve(
    t,
    'runtime',
    url,
    table(
      stream(ops.streamTask, async function* (task) {
        yield { result: { type: 'task_status', task_id: task.id }, final: false };
        if (task.id === 'bad') throw new Error('stream failed');
        yield { result: { type: 'task_completed', task_id: task.id }, final: true };
      }),
    ),
  );
  const transport = await client(t, 'runtime', url);
  const api = new AgentOperationsClient(transport);

  const events = api.streamTask({ id: 'ok' })[Symbol.asyncIterator]();
  assert.equal((await events.next()).done, false);
  assert.equal(transport.health().metrics.active_streams, 1);
  assert.equal(server.health().metrics.active_streams, 1);
  assert.equal((await events.next()).done, false);
  assert.equal((await events.next()).done, true);
  for (const side of [transport, server]) {
    const m = side.health().metrics;
    assert.equal(m.streams_started, 1);
    assert.equal(m.streams_completed, 1);
    assert.equal(m.streams_failed, 0);
    assert.equal(m.active_streams, 0);
  }
  assert.equal(
    transport.health().metrics.bytes_received,
    Buffer.byteLength('{"type":"task_status","task_id":"ok"}') + Buffer.byteLength('{"type":"task_completed","task_id":"ok"}'),
  );
  assert.equal(transport.health().metrics.bytes_sent, Buffer.byteLength('{"id":"ok"}'));

  await rejection(
    (async () => {
      for await (const _ of api.streamTask({ id: 'bad' })) void _;
    })(),
  );
  for (const side of [transport, server]) {
    const m = side.health().metrics;
    assert.equal(m.streams_started, 2);
    assert.equal(m.streams_completed, 1);
    assert.equal(m.streams_failed, 1);
    assert.equal(m.active_streams, 0);
  }
  assert.equal(transport.health().metrics.requests_started, 0, 'streams are not unary requests');
});

// ---- collect_metrics: false -------------------------------------------------------------------

for (const name of ['http', 'runtime'] as const) {
  test(`${name}: collect_metrics false keeps every counter at zero on both sides`, async (t) => {
    const server = await serve(
      t,
      name,
      name === 'http' ? 'http://127.0.0.1:0' : runtimeUrl('metrics-off'),
      table(
        unary(ops.sendTask, (task) => {
          if (task.id === 'bad') throw new Error('no');
          return task;
        }),
        stream(ops.streamTask, async function* (task) {
          yield { result: { type: 'task_completed', task_id: task.id }, final: true };
        }),
      ),
      { collectMetrics: false },
    );
    const transport = await client(t, name, server.url, { collectMetrics: false, retry: instantRetry(2) });
    const api = new AgentOperationsClient(transport);
    await api.sendTask({ id: 'good' });
    await rejection(api.sendTask({ id: 'bad' }));
    if (name === 'runtime') {
      for await (const _ of api.streamTask({ id: 's' })) void _;
    }
    allZero(transport.health().metrics);
    allZero(server.health().metrics);
    assert.ok(validate('health', server.health()).valid);
  });
}

test('http: collect_metrics false on the client still counts nothing across retries', async (t) => {
  const peer = await rawServer(t, (_req, res, n, body) => (n === 1 ? answer(res, 503) : answer(res, 200, body)));
  const transport = await client(t, 'http', peer.url, { collectMetrics: false, retry: instantRetry(2) });
  await new AgentOperationsClient(transport).sendTask({ id: 'x' });
  assert.equal(peer.requests.length, 2);
  allZero(transport.health().metrics);
});

test('metrics are per transport instance', async (t) => {
  const server = await serve(t, 'http', 'http://127.0.0.1:0', table(unary(ops.sendTask, (task) => task)));
  const one = await client(t, 'http', server.url);
  const two = await client(t, 'http', server.url);
  await new AgentOperationsClient(one).sendTask({ id: 'a' });
  assert.equal(one.health().metrics.requests_started, 1);
  allZero(two.health().metrics);
});
