// An error that escapes a server's connection or stream handler closes that connection and
// is logged; the process, and every other connection, carries on. The failure is injected
// through the request reader's test seam, since no input reaches it on purpose.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { status as GrpcCode } from '@grpc/grpc-js';
import { setRequestReadHook } from '../../src/transport/envelope.js';
import { echoTask, serve, table } from '../support/transport-fixtures.js';
import { jsonClient, statusOf, streamCall, unaryCall } from '../support/grpc-peers.js';
import { RawPeer } from '../support/websocket-peers.js';

const injected = new Error('injected reader failure');

/** Makes every request envelope read fail until the test ends; console.error is captured. */
function failReads(t: TestContext): { logged: unknown[][] } {
  const logged: unknown[][] = [];
  t.mock.method(console, 'error', (...args: unknown[]) => {
    logged.push(args);
  });
  setRequestReadHook(() => {
    throw injected;
  });
  t.after(() => setRequestReadHook(null));
  return { logged };
}

const request = (id: string) => ({ id, method: 'POST', path: '/tasks/', data: { id: `task-${id}` } });

describe('errors escaping a connection handler', () => {
  it('websocket: the connection closes with 1011, the error is logged, the server keeps serving', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', table(echoTask()));
    const { logged } = failReads(t);
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    peer.send(request('boom'));
    const closed = await peer.closed;
    assert.equal(closed.code, 1011);
    assert.ok(logged.some((args) => args.includes(injected)));
    setRequestReadHook(null);
    const next = await RawPeer.open(server.url);
    t.after(() => next.close());
    const [frame] = await next.call(request('after'));
    assert.equal(frame.ok, true);
    assert.deepEqual(frame.result, { id: 'task-after', state: 'completed' });
  });

  it('grpc: the call ends with INTERNAL, unary or stream, the error is logged, and the server keeps serving', async (t) => {
    const server = await serve(t, 'grpc', 'grpc://127.0.0.1:0', table(echoTask()));
    const { logged } = failReads(t);
    const peer = jsonClient(t, server.url);
    assert.equal((await statusOf(unaryCall(peer, 'Invoke', request('boom')))).code, GrpcCode.INTERNAL);
    assert.equal(
      (await statusOf(streamCall(peer, 'Stream', { ...request('boom-s'), path: '/tasks/stream' }))).code,
      GrpcCode.INTERNAL,
    );
    assert.equal(logged.filter((args) => args.includes(injected)).length, 2);
    setRequestReadHook(null);
    const answer = await unaryCall(peer, 'Invoke', request('after'));
    assert.equal(answer.ok, true);
    assert.deepEqual(answer.result, { id: 'task-after', state: 'completed' });
  });
});
