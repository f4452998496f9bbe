// parley's websocket client against a raw `ws` server that answers as told by the task id,
// including wrongly: each misbehaviour must surface as the right transport error, and a
// connection that can no longer be trusted must be replaced on the next call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type WebSocket from 'ws';
import {
  TransportConnectionError,
  TransportLimitError,
  TransportProtocolError,
  TransportRemoteError,
  TransportTimeoutError,
} from '../../../src/transport/errors.js';
import { client, ops, refusedUrl, rejection } from '../../support/transport-fixtures.js';
import { rawWsServer, reply, testAuthenticator, type Received } from '../../support/websocket-peers.js';

/** Answers each request frame according to the id of the task it carries. */
function misbehave(socket: WebSocket, frame: Received): void {
  const request = frame.json;
  const id = request.id;
  switch (request.data?.id) {
    case 'wrong-id':
      return reply(socket, 'someone-else', { id: 'wrong-id' });
    case 'remote':
      socket.send(
        JSON.stringify({ id, ok: false, result: null, error: { code: 'busy', message: 'try later', status: 503 }, final: true }),
      );
      return;
    case 'not-json':
      return socket.send('{"id": oops');
    case 'binary':
      return socket.send(Buffer.from(JSON.stringify({ id, ok: true, result: {}, final: true })), { binary: true });
    case 'not-final':
      return reply(socket, id, { id: 'not-final' }, false);
    case 'no-ok':
      return socket.send(JSON.stringify({ id, result: {}, final: true }));
    case 'unreadable':
      socket.send(
        JSON.stringify({
          id: null,
          ok: false,
          result: null,
          error: { code: 'invalid_json', message: 'bad', status: 400 },
          final: true,
        }),
      );
      return;
    case 'drop':
      return socket.terminate();
    case 'huge':
      return reply(socket, id, { blob: 'x'.repeat(80 * 1024) });
    case 'silent':
      return;
    case 'stream':
      reply(socket, id, { n: 1 }, false);
      reply(socket, id, { n: 2 }, false);
      return reply(socket, id, { n: 3 }, true);
    case 'stream-wrong-id':
      reply(socket, id, { n: 1 }, false);
      return reply(socket, 'someone-else', { n: 2 }, false);
    default:
      return reply(socket, id, { ...request.data, echoed: true });
  }
}

describe('websocket client, raw ws server', () => {
  it('keeps one connection for successive calls and echoes results', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'a' }), { id: 'a', echoed: true });
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'b' }), { id: 'b', echoed: true });
    assert.equal(raw.upgrades.length, 1);
  });

  it('raises a protocol error for a wrong response id and reconnects for the next call', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'wrong-id' }));
    assert.ok(error instanceof TransportProtocolError, String(error));
    assert.match(error.message, /someone-else/);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'next' }), { id: 'next', echoed: true });
    assert.equal(raw.upgrades.length, 2);
  });

  it('raises a remote error for ok:false and keeps the connection', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'remote' }));
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.statusCode, 503);
    assert.equal(error.code, 'busy');
    assert.equal(error.retryable, true);
    const unreadable = await rejection(transport.unary(ops.sendTask, { id: 'unreadable' }));
    assert.ok(unreadable instanceof TransportRemoteError, String(unreadable));
    assert.equal(unreadable.statusCode, 400);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'next' }), { id: 'next', echoed: true });
    assert.equal(raw.upgrades.length, 1);
  });

  it('raises a non-retryable protocol error for frames that are not response envelopes', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    for (const id of ['not-json', 'binary', 'not-final', 'no-ok']) {
      const error = await rejection(transport.unary(ops.sendTask, { id }));
      assert.ok(error instanceof TransportProtocolError, `${id}: ${error}`);
      assert.equal(error.retryable, false, id);
    }
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'next' }), { id: 'next', echoed: true });
    assert.equal(raw.upgrades.length, 5);
  });

  it('raises a retryable connection error when the connection drops mid-call', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'drop' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
    assert.equal(error.retryable, true);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'next' }), { id: 'next', echoed: true });
  });

  it('raises a connection error when nothing listens', async (t) => {
    const url = (await refusedUrl()).replace('http:', 'ws:');
    const transport = await client(t, 'websocket', url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'a' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
    assert.equal(error.retryable, true);
  });

  it('raises a limit error for a frame over its frame size', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url, {
      limits: { maxRequestBytes: 1024, maxResponseBytes: 1024, maxEventBytes: 1024 },
    });
    const error = await rejection(transport.unary(ops.sendTask, { id: 'huge' }));
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'next' }), { id: 'next', echoed: true });
  });

  it('serializes concurrent calls on the one connection: a request goes out only after the previous answer', async (t) => {
    const log: string[] = [];
    const raw = await rawWsServer(t, (socket, frame) => {
      log.push(`request ${frame.json.data.id}`);
      // Answer a little later, so a second request sent without waiting would land first.
      setTimeout(() => {
        log.push(`answer ${frame.json.data.id}`);
        misbehave(socket, frame);
      }, 20);
    });
    const transport = await client(t, 'websocket', raw.url);
    const results = await Promise.all(['a', 'b', 'c'].map((id) => transport.unary(ops.sendTask, { id })));
    assert.deepEqual(
      results.map((result: any) => result.id),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(log, ['request a', 'answer a', 'request b', 'answer b', 'request c', 'answer c']);
    assert.equal(raw.upgrades.length, 1);
  });

  it('sends control-plane calls on a second connection', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    await transport.unary(ops.sendTask, { id: 'a' });
    await transport.unary(ops.cancelTask, { id: 'a' });
    await transport.unary(ops.cancelTask, { id: 'b' });
    assert.equal(raw.upgrades.length, 2);
  });

  it('sends authentication headers on the upgrade only', async (t) => {
    const requests: any[] = [];
    const raw = await rawWsServer(t, (socket, frame) => {
      requests.push(frame.json);
      misbehave(socket, frame);
    });
    const transport = await client(t, 'websocket', raw.url, { authenticator: testAuthenticator, credentials: 'good' });
    await transport.unary(ops.sendTask, { id: 'a' });
    const headers = raw.upgrades[0]!.headers;
    assert.equal(headers['x-api-key'], 'good');
    assert.equal(headers.authorization, 'ApiKey good');
    assert.deepEqual(Object.keys(requests[0]).sort(), ['data', 'id', 'idempotency_key', 'method', 'params', 'path']);
    assert.equal(requests[0].idempotency_key, 'a');
    assert.deepEqual([requests[0].method, requests[0].path], ['POST', '/tasks/']);
  });

  it('rejects with the abort reason when the caller aborts, and replaces the connection', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    await transport.unary(ops.sendTask, { id: 'warm-up' });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = transport.unary(ops.sendTask, { id: 'silent' }, { signal: controller.signal });
    // Abort once the request has reached the server.
    await new Promise<void>((resolve) => raw.server.clients.forEach((socket) => socket.once('message', () => resolve())));
    controller.abort(reason);
    assert.equal(await rejection(pending), reason);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'next' }), { id: 'next', echoed: true });
    assert.equal(raw.upgrades.length, 2);
  });

  it('maps the receive deadline to a timeout error', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'silent' }, { timeoutMs: 50 }));
    assert.ok(error instanceof TransportTimeoutError, String(error));
  });

  it('terminates a server that does not answer pings, failing the pending call', async (t) => {
    const raw = await rawWsServer(t, misbehave, { autoPong: false });
    const transport = await client(t, 'websocket', raw.url, { keepaliveInterval: 0.02, keepaliveTimeout: 0.02 });
    const error = await rejection(transport.unary(ops.sendTask, { id: 'silent' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
  });

  it('reads a stream until its final frame and keeps the connection', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    const events: unknown[] = [];
    for await (const event of transport.stream(ops.streamTask, { id: 'stream' })) events.push(event);
    assert.deepEqual(events, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await transport.unary(ops.sendTask, { id: 'next' });
    assert.equal(raw.upgrades.length, 1);
  });

  it('raises a protocol error for a stream frame with another id and reconnects', async (t) => {
    const raw = await rawWsServer(t, misbehave);
    const transport = await client(t, 'websocket', raw.url);
    const events: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of transport.stream(ops.streamTask, { id: 'stream-wrong-id' })) events.push(event);
      })(),
    );
    assert.ok(error instanceof TransportProtocolError, String(error));
    assert.deepEqual(events, [{ n: 1 }]);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'next' }), { id: 'next', echoed: true });
    assert.equal(raw.upgrades.length, 2);
  });
});
