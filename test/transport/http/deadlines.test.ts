// The http and sse servers' deadlines, read off raw sockets: headers that stall, a body that
// stalls or trickles past body_timeout, and a websocket handshake whose headers stall. Each
// gets a 408 `request_timeout` JSON error and its connection closed; the server keeps serving.
// Deadlines are small; a server that never gives up makes the test time out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from '../../../generated/validators/index.js';
import type { TransportConfigOptions } from '../../../src/transport/config.js';
import { ops, rawRequest, serve, table, unary } from '../../support/transport-fixtures.js';
import { bodyOf, openSocket, portOf, received, statuses } from './raw-peer.js';

const TIMEOUT = { timeout: 10_000 };

async function server(t: Parameters<typeof serve>[0], name: string, config: TransportConfigOptions) {
  const calls: string[] = [];
  const transport = await serve(
    t,
    name,
    'http://127.0.0.1:0',
    table(unary(ops.sendTask, (task) => (calls.push(task.id), { ...task, state: 'completed' }))),
    config,
  );
  return { transport, port: portOf(transport.url), calls };
}

function assertTimedOut(text: string, ended: boolean): void {
  assert.deepEqual(statuses(text), [408], text);
  assert.match(text, /connection: close\r\n/i);
  const body = bodyOf(text);
  assert.ok(validate('error-body', body).valid, text);
  assert.equal(body.error.code, 'request_timeout');
  assert.equal(body.error.status, 408);
  assert.ok(ended, 'the server closed the connection');
}

async function stillServes(url: string): Promise<void> {
  const res = await rawRequest(url, { method: 'POST', path: '/tasks/', body: '{"id":"after"}' });
  assert.equal(res.status, 200);
}

test('http server: headers that stop part-way get 408 request_timeout after header_timeout', TIMEOUT, async (t) => {
  const { transport, port } = await server(t, 'http', { headerTimeout: 0.2, bodyTimeout: 60 });
  const socket = await openSocket(port);
  socket.write('POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: appl');
  const { text, ended } = await received(socket);
  assertTimedOut(text, ended);
  await stillServes(transport.url);
});

test('http server: a connection that never sends a request is closed after header_timeout', TIMEOUT, async (t) => {
  const { port } = await server(t, 'http', { headerTimeout: 0.2 });
  const socket = await openSocket(port);
  const { ended } = await received(socket);
  assert.ok(ended);
});

for (const name of ['http', 'sse']) {
  test(`${name} server: a body that stalls gets 408 request_timeout after body_timeout`, TIMEOUT, async (t) => {
    const { transport, port, calls } = await server(t, name, { headerTimeout: 60, bodyTimeout: 0.2 });
    const socket = await openSocket(port);
    socket.write('POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"id":');
    const { text, ended } = await received(socket);
    assertTimedOut(text, ended);
    assert.deepEqual(calls, []);
    await stillServes(transport.url);
  });

  test(`${name} server: a body that trickles in, byte by byte, is cut off after body_timeout`, TIMEOUT, async (t) => {
    const { transport, port, calls } = await server(t, name, { headerTimeout: 60, bodyTimeout: 0.2 });
    const socket = await openSocket(port);
    socket.write('POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
    // Always progressing, never done: only a deadline counted from the headers stops it.
    const trickle = setInterval(() => socket.writable && socket.write('1\r\n \r\n'), 20);
    t.after(() => clearInterval(trickle));
    const { text, ended } = await received(socket);
    clearInterval(trickle);
    assertTimedOut(text, ended);
    assert.deepEqual(calls, []);
    assert.equal(transport.health().metrics.requests_failed, 1);
    await stillServes(transport.url);
  });
}

test('http server: a request whose body arrives in time is served, and its connection kept', TIMEOUT, async (t) => {
  // Deadlines a loaded machine's two requests cannot miss: what is tested is that in time is served.
  const { port, calls } = await server(t, 'http', { headerTimeout: 2, bodyTimeout: 2 });
  const socket = await openSocket(port);
  const answered = received(socket);
  const body = '{"id":"prompt"}';
  const request = `POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
  socket.write(request);
  // A second request on the same connection, once the first was answered, closes it.
  socket.once('data', () => socket.write(request.replace('host: x', 'host: x\r\nconnection: close')));
  const { text } = await answered;
  assert.deepEqual(statuses(text), [200, 200], text);
  assert.deepEqual(calls, ['prompt', 'prompt']);
});

test('websocket server: an upgrade whose headers stall gets 408 after header_timeout', TIMEOUT, async (t) => {
  const transport = await serve(t, 'websocket', 'ws://127.0.0.1:0', table(unary(ops.sendTask, (task) => task)), {
    headerTimeout: 0.2,
  });
  const socket = await openSocket(portOf(transport.url));
  socket.write('GET / HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\n');
  const { text, ended } = await received(socket);
  assertTimedOut(text, ended);
});
