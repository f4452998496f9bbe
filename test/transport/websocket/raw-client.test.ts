// A plain `ws` client, not parley's, sends raw JSON frames to a parley websocket server: the
// wire format as an independent peer sees it, and bad frames answered without the
// connection or the server going down.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { validate } from '../../../generated/validators/index.js';
import type { Transport } from '../../../src/transport/transport.js';
import { serve, waitFor } from '../../support/transport-fixtures.js';
import { agentTable, RawPeer, refusedHandshake, testAuthenticator } from '../../support/websocket-peers.js';

const LIMITS = { maxRequestBytes: 2048, maxResponseBytes: 2048, maxEventBytes: 2048 };

function taskRequest(id: string, taskId: string, path = '/tasks/') {
  return { id, method: 'POST', path, data: { id: taskId }, params: {}, idempotency_key: null };
}

/** The server's request counters (spec: Health payload). */
function requestCounts(server: Transport): { started: number; failed: number } {
  const { requests_started: started, requests_failed: failed } = server.health().metrics;
  return { started, failed };
}

describe('websocket server, raw ws client', () => {
  it('answers a unary request with one final frame echoing the id', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    const [frame, ...rest] = await peer.call({ ...taskRequest('req-1', 'task-1'), idempotency_key: 'task-1' });
    assert.equal(rest.length, 0);
    assert.equal(validate('response-envelope', frame).valid, true);
    assert.equal(frame.id, 'req-1');
    assert.equal(frame.ok, true);
    assert.equal(frame.final, true);
    assert.equal(frame.error, null);
    assert.deepEqual(frame.result, { id: 'task-1', state: 'completed' });
  });

  it('streams one frame per event, in order, with the request id, final on the last', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    const frames = await peer.call(taskRequest('req-s', 'task-s', '/tasks/stream'));
    assert.deepEqual(
      frames.map((frame) => [frame.id, frame.ok, frame.final, frame.result.n]),
      [
        ['req-s', true, false, 1],
        ['req-s', true, false, 2],
        ['req-s', true, true, 3],
      ],
    );
    for (const frame of frames) assert.equal(validate('response-envelope', frame).valid, true);
    await waitFor(() => server.health().metrics.streams_completed === 1, 'the stream to be counted as completed');
  });

  it('answers bad frames with ok:false and keeps the connection serving', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, { limits: LIMITS });
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    const cases: Array<{ send: unknown; id: string | null; code: string; status: number; message?: string }> = [
      {
        send: 'this is not json',
        id: null,
        code: 'invalid_json',
        status: 400,
        // Its `t` could begin `true`: the scanner says where that reading breaks.
        message: `request frame is not valid JSON: line 1, column 2: expected "true", found 'h'`,
      },
      {
        send: '{"id": "cut",\n "method": ',
        id: null,
        code: 'invalid_json',
        status: 400,
        message: 'request frame is not valid JSON: line 2, column 12: expected a value, found the end of the input',
      },
      { send: { id: 'no-method', path: '/tasks/', data: { id: 'x' } }, id: 'no-method', code: 'invalid_request', status: 400 },
      { send: { id: 'no-path', method: 'POST' }, id: 'no-path', code: 'invalid_request', status: 400 },
      { send: [1, 2, 3], id: null, code: 'invalid_request', status: 400 },
      { send: Buffer.from(JSON.stringify(taskRequest('bin', 't'))), id: null, code: 'invalid_request', status: 400 },
      { send: taskRequest('unknown', 't', '/no/such/route'), id: 'unknown', code: 'not_found', status: 404 },
      { send: { ...taskRequest('get', 't'), method: 'GET' }, id: 'get', code: 'method_not_allowed', status: 405 },
      { send: { ...taskRequest('bad-task', 't'), data: { id: 7 } }, id: 'bad-task', code: 'invalid_request', status: 400 },
      // Within the frame size, over max_request_bytes: an ordinary error, not a close.
      { send: taskRequest('big', 'x'.repeat(4096)), id: 'big', code: 'payload_too_large', status: 413 },
    ];
    for (const [n, item] of cases.entries()) {
      peer.send(item.send);
      const { json: frame } = await peer.next();
      // Counted once each, whether refused by the connection or by the dispatcher.
      assert.deepEqual(requestCounts(server), { started: n + 1, failed: n + 1 }, item.code);
      assert.equal(validate('response-envelope', frame).valid, true, JSON.stringify(frame));
      assert.equal(frame.id, item.id, item.code);
      assert.equal(frame.ok, false);
      assert.equal(frame.final, true);
      assert.equal(frame.result, null);
      assert.equal(frame.error.code, item.code);
      assert.equal(frame.error.status, item.status);
      if (item.message) assert.equal(frame.error.message, item.message);
      assert.equal(frame.error.request_id, item.id);
      assert.equal(validate('wire-error', frame.error).valid, true);
    }
    const [after] = await peer.call(taskRequest('after', 'still-here'));
    assert.deepEqual([after.id, after.ok, after.result.id], ['after', true, 'still-here']);
    assert.deepEqual(requestCounts(server), { started: cases.length + 1, failed: cases.length });
  });

  it('counts the bytes of a refused frame and of its answer', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    const sent: string[] = ['{"id":"cut","method":', JSON.stringify(taskRequest('lost', 't', '/no/such/route'))];
    const answers: string[] = [];
    for (const text of sent) {
      peer.send(text);
      answers.push((await peer.next()).text);
    }
    const metrics = server.health().metrics;
    assert.equal(
      metrics.bytes_received,
      sent.reduce((sum, text) => sum + Buffer.byteLength(text), 0),
    );
    assert.equal(
      metrics.bytes_sent,
      answers.reduce((sum, text) => sum + Buffer.byteLength(text), 0),
    );
    assert.deepEqual(requestCounts(server), { started: 2, failed: 2 });
  });

  it('closes a connection with code 1009 for a frame over the frame size; the server keeps serving', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, { limits: LIMITS });
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    // max of the limits plus 64 KiB of envelope room.
    peer.send(taskRequest('huge', 'x'.repeat(2048 + 64 * 1024 + 1)));
    const { code } = await peer.closed;
    assert.equal(code, 1009);
    assert.deepEqual(requestCounts(server), { started: 1, failed: 1 });
    const next = await RawPeer.open(server.url);
    t.after(() => next.close());
    const [frame] = await next.call(taskRequest('next', 'fine'));
    assert.equal(frame.ok, true);
    assert.deepEqual(requestCounts(server), { started: 2, failed: 1 });
  });

  it('serves frames pipelined past the per-connection bound, each answered once', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, {
      limits: { maxConcurrentRequests: 2 },
    });
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    const ids = Array.from({ length: 20 }, (_, i) => `p-${i}`);
    for (const id of ids) peer.send(taskRequest(id, id));
    const answered = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      const { json } = await peer.next();
      assert.equal(json.ok, true);
      assert.equal(json.result.id, json.id);
      answered.add(json.id);
    }
    assert.deepEqual([...answered].sort(), [...ids].sort());
  });

  it('releases the stream slot when the client disconnects mid-stream', async (t) => {
    const agent = agentTable();
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agent.endpoints);
    const peer = await RawPeer.open(server.url);
    peer.send(taskRequest('req-hold', 'hold', '/tasks/stream'));
    const { json: first } = await peer.next();
    assert.equal(first.result.n, 1);
    assert.equal(server.health().metrics.active_streams, 1);
    peer.close();
    assert.equal(await agent.abandoned, 'hold');
    await waitFor(() => server.health().metrics.active_streams === 0, 'the stream slot to be released');
    assert.equal(server.health().metrics.streams_failed, 1);
    // And the server still serves.
    const again = await RawPeer.open(server.url);
    t.after(() => again.close());
    const frames = await again.call(taskRequest('req-2', 'task-2', '/tasks/stream'));
    assert.equal(frames.at(-1).final, true);
  });

  it('terminates a peer that does not answer pings within keepalive_timeout', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, {
      keepaliveInterval: 0.02,
      keepaliveTimeout: 0.02,
    });
    const peer = await RawPeer.open(server.url, { autoPong: false });
    t.after(() => peer.close());
    const { code } = await peer.closed;
    assert.equal(code, 1006);
  });

  it('answers a plain HTTP request with 426 and a JSON error', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints);
    const { status, body } = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(`${server.url.replace('ws:', 'http:')}/healthz`, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 426);
    assert.equal(body.error.code, 'upgrade_required');
  });
});

describe('websocket server handshake authentication, raw ws client', () => {
  it('refuses a missing or wrong credential with HTTP 401 and a JSON error body', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, {
      authenticator: testAuthenticator,
    });
    for (const headers of [{}, { 'x-api-key': 'bad' }, { authorization: 'Bearer bad' }] as Record<string, string>[]) {
      const { status, body } = await refusedHandshake(server.url, headers);
      assert.equal(status, 401);
      assert.equal(body.error.code, 'unauthenticated');
      assert.equal(body.error.status, 401);
      assert.equal(validate('error-body', body).valid, true);
    }
    assert.equal((await refusedHandshake(`${server.url}/?api_key=bad`)).status, 401);
  });

  it('lets a good credential in, from a header or the query, for every request of the connection', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', agentTable().endpoints, {
      authenticator: testAuthenticator,
    });
    for (const [url, headers] of [
      [server.url, { 'x-api-key': 'good' }],
      [server.url, { authorization: 'ApiKey good' }],
      [`${server.url}/?api_key=good`, {}],
      [`${server.url}/any/path?token=good`, {}],
    ] as const) {
      const peer = await RawPeer.open(url, { headers });
      t.after(() => peer.close());
      const [card] = await peer.call({ id: 'card', method: 'GET', path: '/.well-known/agent.json' });
      assert.deepEqual([card.ok, card.result.name], [true, 'test-agent']);
      const [task] = await peer.call(taskRequest('task', 'authed'));
      assert.equal(task.ok, true);
    }
  });
});
