// HTTP keep-alive from the transport config: a null keepalive_interval turns it off on the
// server (every answer closes its connection), and the client's pooled connections expire
// after keepalive_interval idle. A connection that is never closed makes the test time out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AgentOperationsClient } from '../../../generated/clients/agent.js';
import { client, ops, serve, table, unary } from '../../support/transport-fixtures.js';
import { openSocket, portOf, received, statuses } from './raw-peer.js';

const TIMEOUT = { timeout: 10_000 };

test(
  'http server: with keepalive_interval null every answer says connection: close and the connection closes',
  TIMEOUT,
  async (t) => {
    const transport = await serve(t, 'http', 'http://127.0.0.1:0', table(unary(ops.sendTask, (task) => task)), {
      keepaliveInterval: null,
      keepaliveTimeout: 60,
    });
    const socket = await openSocket(portOf(transport.url));
    const body = '{"id":"once"}';
    // An HTTP/1.1 request that would keep the connection by default.
    socket.write(
      `POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    const { text, ended } = await received(socket);
    assert.deepEqual(statuses(text), [200], text);
    assert.match(text, /connection: close\r\n/i);
    assert.ok(ended, 'the server closed the connection');
  },
);

test('http client: an idle pooled connection is closed after keepalive_interval', TIMEOUT, async (t) => {
  // A peer that keeps idle connections for a minute: only the client can close this one.
  const sockets: Socket[] = [];
  const closed: Promise<void>[] = [];
  const peer: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"k"}'));
  peer.keepAliveTimeout = 60_000;
  peer.on('connection', (socket: Socket) => {
    sockets.push(socket);
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    peer.closeAllConnections();
    peer.close();
  });
  const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  const api = new AgentOperationsClient(await client(t, 'http', url, { keepaliveInterval: 0.2 }));
  assert.deepEqual(await api.sendTask({ id: 'k' }), { id: 'k' });
  assert.equal(sockets.length, 1);
  await closed[0];
});

test(
  'http server: stop closes a keep-alive connection once its answer in flight is out, without waiting out shutdown_timeout',
  TIMEOUT,
  async (t) => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const handler = async (task: unknown) => {
      entered();
      await gate;
      return task;
    };
    // A minute to drain: a connection left open would hold stop (and this test) far past its timeout.
    const transport = await serve(t, 'http', 'http://127.0.0.1:0', table(unary(ops.sendTask, handler)), {
      shutdownTimeout: 60,
      keepaliveTimeout: 60,
    });
    const socket = await openSocket(portOf(transport.url));
    const body = '{"id":"late"}';
    socket.write(
      `POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    const answer = received(socket);
    await inHandler;
    const stopped = transport.stop();
    finish();
    const { text, ended } = await answer;
    assert.deepEqual(statuses(text), [200], text);
    assert.match(text, /connection: close\r\n/i, 'the answer tells the client the connection ends');
    assert.ok(ended, 'the server closed the connection');
    await stopped;
  },
);

for (const kind of ['http', 'sse'] as const) {
  test(`${kind} server: stop closes at once a connection on which no request was ever sent`, TIMEOUT, async (t) => {
    // A minute to drain and as long for the first headers: a connection left open would hold
    // stop (and this test) far past its timeout.
    const transport = await serve(t, kind, 'http://127.0.0.1:0', table(unary(ops.sendTask, (task) => task)), {
      shutdownTimeout: 60,
      headerTimeout: 60,
    });
    const socket = await openSocket(portOf(transport.url));
    const closed = received(socket);
    await transport.stop();
    const { text } = await closed;
    assert.equal(text, '', 'nothing was asked, so nothing is answered');
  });
}
