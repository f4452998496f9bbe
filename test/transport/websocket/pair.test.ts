// parley's websocket client against parley's websocket server: calls, streams, the lock on
// the data connection, control-plane calls beside a running stream, handshake
// authentication, TLS, and the server's lifecycle.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from '../../../src/core/errors.js';
import { createTransport } from '../../../src/transport/factory.js';
import { TransportConnectionError, TransportLimitError, TransportRemoteError } from '../../../src/transport/errors.js';
import { client, ops, rejection, serve, table, unary, waitFor } from '../../support/transport-fixtures.js';
import { agentTable, RawPeer, testAuthenticator } from '../../support/websocket-peers.js';
import { collect } from '../../support/async.js';
import { hasOpenssl, makeServerCertificate } from '../../support/certificates.js';

describe('websocket client and server', () => {
  it('round-trips a unary call and a stream', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    assert.match(server.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
    const transport = await client(t, 'websocket', server.url);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 't1' }), { id: 't1', state: 'completed' });
    const events = await collect(transport.stream(ops.streamTask, { id: 't2' }) as AsyncIterable<{ type: string; n: number }>);
    assert.deepEqual(
      events.map((event) => [event.type, event.n]),
      [
        ['task_status', 1],
        ['task_status', 2],
        ['task_completed', 3],
      ],
    );
    const metrics = server.health().metrics;
    assert.equal(metrics.requests_succeeded, 1);
    assert.equal(metrics.streams_started, 1);
    assert.equal(transport.health().metrics.streams_completed, 1);
    await waitFor(() => server.health().metrics.streams_completed === 1, 'the served stream to count as completed');
  });

  it('carries remote errors as TransportRemoteError with the status', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    const transport = await client(t, 'websocket', server.url);
    const invalid = await rejection(transport.unary(ops.sendTask, { id: 42 }));
    assert.ok(invalid instanceof TransportRemoteError, String(invalid));
    assert.deepEqual([invalid.statusCode, invalid.code, invalid.retryable], [400, 'invalid_request', false]);
    const missing = await rejection(transport.unary(ops.compactState, {}));
    assert.ok(missing instanceof TransportRemoteError, String(missing));
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'after' }), { id: 'after', state: 'completed' });
  });

  it('serializes concurrent unary calls on the data connection, answering them in order', async (t) => {
    let active = 0;
    let most = 0;
    const order: string[] = [];
    const endpoints = table(
      unary(ops.sendTask, async (task: { id: string }) => {
        active++;
        most = Math.max(most, active);
        order.push(task.id);
        // Give a second call, were it not serialized, time to arrive meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 15));
        active--;
        return { ...task, state: 'completed' };
      }),
    );
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', endpoints);
    const transport = await client(t, 'websocket', server.url);
    const results = (await Promise.all(['a', 'b', 'c'].map((id) => transport.unary(ops.sendTask, { id })))) as Array<{
      id: string;
    }>;
    assert.deepEqual(
      results.map((result) => result.id),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.equal(most, 1);
  });

  it('completes a control-plane call while a stream holds the data connection', { timeout: 10_000 }, async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    const transport = await client(t, 'websocket', server.url);
    const events = transport.stream(ops.streamTask, { id: 'hold' })[Symbol.asyncIterator]();
    const first = await events.next();
    assert.equal((first.value as any).n, 1);
    const log: string[] = [];
    // A data call waits for the stream to finish; the cancellation does not.
    const queued = transport.unary(ops.sendTask, { id: 'queued' }).then(() => log.push('queued call answered'));
    const cancelled = (await transport.unary(ops.cancelTask, { id: 'hold' })) as { state: string };
    log.push('cancel answered');
    assert.equal(cancelled.state, 'canceled');
    const rest: any[] = [];
    for (let next = await events.next(); !next.done; next = await events.next()) rest.push(next.value);
    log.push('stream ended');
    await queued;
    assert.deepEqual(
      rest.map((event) => event.n),
      [2, 3],
    );
    assert.deepEqual(log, ['cancel answered', 'stream ended', 'queued call answered']);
  });

  it('authenticates on the handshake: 401 for a bad or missing key, served with a good one', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, {
      authenticator: testAuthenticator,
    });
    const anonymous = await client(t, 'websocket', server.url);
    const missing = await rejection(anonymous.unary(ops.sendTask, { id: 'a' }));
    assert.ok(missing instanceof TransportRemoteError, String(missing));
    assert.deepEqual([missing.statusCode, missing.code, missing.retryable], [401, 'unauthenticated', false]);
    const wrong = await rejection(anonymous.unary(ops.sendTask, { id: 'a' }, { headers: { 'x-api-key': 'bad' } }));
    assert.ok(wrong instanceof TransportRemoteError, String(wrong));
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.message, /Invalid API key/);

    const authed = await client(t, 'websocket', server.url, { authenticator: testAuthenticator, credentials: 'good' });
    assert.deepEqual(await authed.unary(ops.sendTask, { id: 'a' }), { id: 'a', state: 'completed' });
    assert.equal((await collect(authed.stream(ops.streamTask, { id: 's' }))).length, 3);
    assert.deepEqual(await authed.unary(ops.cancelTask, { id: 'a' }), { id: 'a', state: 'canceled' });
  });

  it('reports a request frame the server refuses as too large (close 1009) as a limit error', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, {
      limits: { maxRequestBytes: 1024, maxResponseBytes: 1024, maxEventBytes: 1024 },
    });
    const transport = await client(t, 'websocket', server.url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'x'.repeat(80 * 1024) }));
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.retryable, false);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'small' }), { id: 'small', state: 'completed' });
  });

  it('refuses to start without an explicit port', async () => {
    for (const url of ['ws://127.0.0.1', 'ws://localhost/agent', 'wss://127.0.0.1/']) {
      const server = await createTransport('websocket', url);
      const error = await rejection(server.start(agentTable().endpoints));
      assert.ok(error instanceof InvalidArgumentError, `${url}: ${error}`);
      assert.match(error.message, /explicit port/);
      assert.equal(server.health().status, 'stopped');
    }
  });

  it('closes live connections on stop and refuses new ones', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    const transport = await client(t, 'websocket', server.url);
    await transport.unary(ops.sendTask, { id: 'warm-up' });
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    await server.stop();
    assert.equal((await peer.closed).code, 1001);
    assert.equal(server.health().status, 'stopped');
    const error = await rejection(transport.unary(ops.sendTask, { id: 'late' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
    await server.stop();
  });

  it('cuts off a peer that does not answer the close frame within shutdown_timeout', { timeout: 10_000 }, async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, { shutdownTimeout: 0.05 });
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    // A paused peer reads nothing, so it never answers the server's close frame.
    peer.socket.pause();
    await server.stop();
    assert.equal(server.health().status, 'stopped');
    // The close frame was still unread; the connection behind it is gone.
    peer.socket.resume();
    assert.equal((await peer.closed).code, 1001);
  });

  it('serves wss: with the TLS settings', { skip: !hasOpenssl() && 'openssl is not installed' }, async (t) => {
    const certificate = makeServerCertificate();
    t.after(() => certificate.remove());
    const { certfile, keyfile } = certificate.server;
    const server = await serve(t, 'websocket', 'wss://127.0.0.1:0', agentTable().endpoints, { tls: { certfile, keyfile } });
    assert.match(server.url, /^wss:/);
    const trusting = await client(t, 'websocket', server.url, { tls: { cafile: certificate.cafile } });
    assert.deepEqual(await trusting.unary(ops.sendTask, { id: 'tls' }), { id: 'tls', state: 'completed' });
    assert.equal((await collect(trusting.stream(ops.streamTask, { id: 'tls-stream' }))).length, 3);
    const untrusting = await client(t, 'websocket', server.url);
    const error = await rejection(untrusting.unary(ops.sendTask, { id: 'tls' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
    assert.equal(error.retryable, false);
  });
});
