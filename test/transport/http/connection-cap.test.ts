// The http server's connection cap (max_connections): a new connection over the cap closes
// the one that has waited longest without finishing a request, idle and stalled ones before
// one whose answer is under way, so stalled peers cannot lock new clients out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { gate, ops, rawRequest, serve, table, unary, waitFor } from '../../support/transport-fixtures.js';
import { openSocket, portOf, received, statuses } from './raw-peer.js';

const TIMEOUT = { timeout: 10_000 };
// Long deadlines: only the cap can close anything in these tests.
const CONFIG = { headerTimeout: 60, bodyTimeout: 60, keepaliveTimeout: 60 };

async function server(t: Parameters<typeof serve>[0], maxConnections: number) {
  const held = gate();
  const arrived = gate();
  const transport = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(
      unary(ops.sendTask, async (task) => {
        if (task.id === 'slow') {
          arrived.open();
          await held.promise;
        }
        return { ...task, state: 'completed' };
      }),
    ),
    { ...CONFIG, maxConnections },
  );
  return { transport, port: portOf(transport.url), held, arrived };
}

/** Opens `count` connections one after the other; `closed[i]` turns true once the server closed the i-th. */
async function openStalled(port: number, count: number, write: (i: number) => string = () => '') {
  const closed: boolean[] = [];
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = await openSocket(port);
    closed.push(false);
    void received(socket).then(() => (closed[i] = true));
    const text = write(i);
    if (text) socket.write(text);
    sockets.push(socket);
  }
  return { closed, destroy: () => sockets.forEach((socket) => socket.destroy()) };
}

test(
  'http server: a connection over max_connections closes the oldest idle one, and a new client is served',
  TIMEOUT,
  async (t) => {
    const { transport, port } = await server(t, 3);
    const idle = await openStalled(port, 5);
    t.after(idle.destroy);
    await waitFor(() => idle.closed[0]! && idle.closed[1]!, 'the two oldest connections closed');
    const res = await rawRequest(transport.url, { method: 'POST', path: '/tasks/', body: '{"id":"new"}' });
    assert.equal(res.status, 200);
    await waitFor(() => idle.closed[2]!, 'the next oldest closed for the new client');
    assert.deepEqual(idle.closed, [true, true, true, false, false]);
  },
);

test('http server: the cap closes stalled uploads and half-sent headers before a request being answered', TIMEOUT, async (t) => {
  const { transport, port, held, arrived } = await server(t, 4);
  const busy = await openSocket(port);
  const busyAnswer = received(busy);
  const slow = '{"id":"slow"}';
  busy.write(
    `POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${slow.length}\r\nconnection: close\r\n\r\n${slow}`,
  );
  await arrived.promise;
  // Silent, half a header, half a body.
  const partial = ['', 'POST /tasks/ HTTP/1.1\r\nhost: x', 'POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-length: 50\r\n\r\n{"id"'];
  const stalled = await openStalled(port, 6, (i) => partial[i % 3]!);
  t.after(stalled.destroy);
  const count = () => stalled.closed.filter(Boolean).length;
  // Seven open with a cap of four: three stalled ones went.
  await waitFor(() => count() === 3, 'three stalled connections closed');
  const res = await rawRequest(transport.url, { method: 'POST', path: '/tasks/', body: '{"id":"new"}' });
  assert.equal(res.status, 200);
  await waitFor(() => count() === 4, 'a fourth stalled connection closed for the new client');
  // The request under way was never cut off.
  held.open();
  const { text } = await busyAnswer;
  assert.deepEqual(statuses(text), [200], text);
  assert.equal(count(), 4);
});

test(
  'http server: at max_connections with every connection busy, a newcomer gets 503 with Retry-After and no answer is cut',
  TIMEOUT,
  async (t) => {
    const held = gate();
    let active = 0;
    const allActive = gate();
    const transport = await serve(
      t,
      'http',
      'http://127.0.0.1:0',
      table(
        unary(ops.sendTask, async (task) => {
          if (++active === 2) allActive.open();
          await held.promise;
          return { ...task, state: 'completed' };
        }),
      ),
      { ...CONFIG, maxConnections: 2 },
    );
    const answers = ['busy-1', 'busy-2'].map((id) =>
      rawRequest(transport.url, { method: 'POST', path: '/tasks/', body: JSON.stringify({ id }) }),
    );
    await allActive.promise;
    // The refusal's body is made once for all the newcomers, not per refusal.
    const stringify = t.mock.method(JSON, 'stringify');
    const refusalsMade = () =>
      stringify.mock.calls.filter((call) => (call.arguments[0] as any)?.error?.details?.max_connections !== undefined).length;
    const refused = await rawRequest(transport.url, { method: 'POST', path: '/tasks/', body: '{"id":"newcomer"}' });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.json.error.code, 'unavailable');
    for (const id of ['second', 'third']) {
      const again = await rawRequest(transport.url, { method: 'POST', path: '/tasks/', body: JSON.stringify({ id }) });
      assert.equal(again.text, refused.text, `${id}: the same refusal`);
    }
    assert.equal(refusalsMade(), 1, 'three refusals, one answer made');
    stringify.mock.restore();
    assert.equal(active, 2, 'the refused request never reached the handler');
    held.open();
    for (const answer of await Promise.all(answers)) assert.equal(answer.status, 200, answer.text);
    // Each refusal is counted as a failed request.
    assert.equal(transport.health().metrics.requests_failed, 3);
    // Once the busy answers are out, a newcomer is served again.
    const later = await rawRequest(transport.url, { method: 'POST', path: '/tasks/', body: '{"id":"later"}' });
    assert.equal(later.status, 200, later.text);
  },
);
