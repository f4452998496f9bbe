// The http transport's server over raw requests: malformed and mis-shaped bodies, unknown
// paths and wrong methods, the X-Svc-Request-ID echo, the shared error body; the server keeps
// serving after each. And the http client against it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOperationsClient } from '../../../generated/clients/agent.js';
import { validate } from '../../../generated/validators/index.js';
import { TransportProtocolError, TransportRemoteError, TransportTimeoutError } from '../../../src/transport/errors.js';
import type { Transport } from '../../../src/transport/transport.js';
import {
  answer,
  client,
  header,
  ops,
  rawRequest,
  rawServer,
  rejection,
  serve,
  table,
  unary,
  type RawResponse,
} from '../../support/transport-fixtures.js';

async function agentServer(t: Parameters<typeof serve>[0]) {
  const calls: string[] = [];
  const server = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(
      unary(ops.sendTask, (task) => (calls.push(`send ${task.id}`), { ...task, state: 'completed' })),
      unary(ops.getChatPage, () => '<html>chat</html>'),
      unary(ops.chat, () => ({ reply: 'hi' })),
    ),
  );
  return { server, calls };
}

function assertErrorBody(res: RawResponse, status: number, code: string, requestId?: string): void {
  assert.equal(res.status, status);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const checked = validate('error-body', res.json);
  assert.ok(checked.valid, `${res.text} ${JSON.stringify(checked.valid ? null : checked.errors)}`);
  assert.equal(res.json.error.code, code);
  assert.equal(res.json.error.status, status);
  assert.equal(typeof res.json.error.message, 'string');
  if (requestId) {
    assert.equal(res.json.error.request_id, requestId);
    assert.equal(res.headers['x-svc-request-id'], requestId);
  }
}

async function stillServing(server: Transport, calls: string[]): Promise<void> {
  const before = calls.length;
  const res = await rawRequest(server.url, { method: 'POST', path: '/tasks/', body: '{"id":"still"}' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { id: 'still', state: 'completed' });
  assert.equal(calls.length, before + 1);
}

const bad: Array<
  [
    string,
    { method: string; path: string; body?: string; headers?: Record<string, string> },
    number,
    string,
    (res: RawResponse) => void,
  ]
> = [
  [
    'malformed JSON body -> 400 invalid_json naming the line and column',
    { method: 'POST', path: '/tasks/', body: '{\n  "id": "x",\n  "messages": [}' },
    400,
    'invalid_json',
    (res) =>
      assert.equal(res.json.error.message, "request body is not valid JSON: line 3, column 16: expected a value, found '}'"),
  ],
  [
    'a body that is not JSON at all -> 400 invalid_json',
    { method: 'POST', path: '/tasks/', body: 'id=x' },
    400,
    'invalid_json',
    () => undefined,
  ],
  [
    'wrong shape -> 400 invalid_request with details.issues',
    { method: 'POST', path: '/tasks/', body: '{"id": 5}' },
    400,
    'invalid_request',
    (res) => {
      const issues = res.json.error.details.issues;
      assert.ok(Array.isArray(issues) && issues.length > 0);
      assert.ok(
        issues.some((issue: { pointer: string }) => issue.pointer === '/id'),
        JSON.stringify(issues),
      );
    },
  ],
  [
    'missing required field -> 400 invalid_request',
    { method: 'POST', path: '/tasks/', body: '{"messages": []}' },
    400,
    'invalid_request',
    (res) => assert.ok(res.json.error.details.issues.some((issue: { pointer: string }) => issue.pointer === '/id')),
  ],
  [
    'no body where one is required -> 400 invalid_json',
    { method: 'POST', path: '/tasks/', body: '' },
    400,
    'invalid_json',
    (res) => assert.match(res.json.error.message, /empty/),
  ],
  [
    'a form body (curl -d without a content type) -> 415 unsupported_media_type',
    { method: 'POST', path: '/tasks/', body: 'id=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    415,
    'unsupported_media_type',
    (res) => assert.match(res.json.error.message, /application\/json.*application\/x-www-form-urlencoded/),
  ],
  [
    'a JSON body labelled text/plain -> 415 unsupported_media_type',
    { method: 'POST', path: '/tasks/', body: '{"id":"x"}', headers: { 'content-type': 'text/plain; charset=utf-8' } },
    415,
    'unsupported_media_type',
    () => undefined,
  ],
  [
    'a trailing slash missing -> 404 naming the route meant',
    { method: 'POST', path: '/tasks', body: '{"id":"x"}' },
    404,
    'not_found',
    (res) => assert.equal(res.json.error.message, 'no endpoint for POST /tasks; did you mean POST /tasks/?'),
  ],
  ['unknown path -> 404 not_found', { method: 'GET', path: '/nowhere' }, 404, 'not_found', () => undefined],
  [
    'unknown path with a body -> 404',
    { method: 'POST', path: '/tasks/unknown', body: '{"id":"x"}' },
    404,
    'not_found',
    () => undefined,
  ],
  [
    'wrong method -> 405 with Allow',
    { method: 'GET', path: '/tasks/' },
    405,
    'method_not_allowed',
    (res) => assert.equal(res.headers.allow, 'POST'),
  ],
  [
    'wrong method on a path with two methods -> 405 listing both',
    { method: 'DELETE', path: '/chat' },
    405,
    'method_not_allowed',
    (res) => assert.equal(res.headers.allow, 'GET, HEAD, POST'),
  ],
];

for (const [label, request, status, code, check] of bad) {
  test(`http server: ${label}; the error body validates; the server keeps serving`, async (t) => {
    const { server, calls } = await agentServer(t);
    const requestId = `req-${status}-${code}`;
    const res = await rawRequest(server.url, { ...request, headers: { ...request.headers, 'x-svc-request-id': requestId } });
    assertErrorBody(res, status, code, requestId);
    check(res);
    assert.deepEqual(calls, [], 'the handler never ran');
    await stillServing(server, calls);
  });
}

test('http server: X-Svc-Request-ID is echoed on success', async (t) => {
  const { server } = await agentServer(t);
  const res = await rawRequest(server.url, {
    method: 'POST',
    path: '/tasks/',
    headers: { 'X-Svc-Request-ID': 'caller-chosen-id' },
    body: '{"id":"echo"}',
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers['x-svc-request-id'], 'caller-chosen-id');
});

test('http server: a request without X-Svc-Request-ID gets one generated', async (t) => {
  const { server } = await agentServer(t);
  const ok = await rawRequest(server.url, { method: 'POST', path: '/tasks/', body: '{"id":"gen"}' });
  assert.match(String(ok.headers['x-svc-request-id']), /^[0-9a-f-]{36}$/);
  const failed = await rawRequest(server.url, { method: 'GET', path: '/nowhere' });
  assert.equal(failed.json.error.request_id, failed.headers['x-svc-request-id']);
  assert.ok(failed.json.error.request_id);
});

test('http server: the handler sees the request id and idempotency key from the headers', async (t) => {
  const contexts: Array<[string, string | null]> = [];
  const server = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(unary(ops.sendTask, (task, context) => (contexts.push([context.requestId, context.idempotencyKey]), task))),
  );
  await rawRequest(server.url, {
    method: 'POST',
    path: '/tasks/',
    headers: { 'x-svc-request-id': 'rid-1', 'idempotency-key': 'key-1' },
    body: '{"id":"a"}',
  });
  assert.deepEqual(contexts, [['rid-1', 'key-1']]);
});

test('http server: an HTML operation answers text/html', async (t) => {
  const { server } = await agentServer(t);
  const res = await rawRequest(server.url, { method: 'GET', path: '/chat' });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  assert.equal(res.text, '<html>chat</html>');
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  assert.equal(await api.getChatPage(), '<html>chat</html>');
});

test('http server: a handler failure is 500 internal with an error body', async (t) => {
  const server = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(
      unary(ops.sendTask, () => {
        throw new Error('kaput');
      }),
    ),
  );
  const res = await rawRequest(server.url, {
    method: 'POST',
    path: '/tasks/',
    headers: { 'x-svc-request-id': 'r500' },
    body: '{"id":"x"}',
  });
  assertErrorBody(res, 500, 'internal', 'r500');
  assert.match(res.json.error.message, /kaput/);
});

test('http client: a server error surfaces as TransportRemoteError with the body code, status and details', async (t) => {
  const { server } = await agentServer(t);
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  const invalid = await rejection(api.sendTask({ id: 5 } as never));
  assert.ok(invalid instanceof TransportRemoteError);
  assert.equal(invalid.statusCode, 400);
  assert.equal(invalid.code, 'invalid_request');
  assert.ok(Array.isArray((invalid.details as { issues: unknown[] }).issues));
  assert.equal(invalid.retryable, false);
  const missing = await rejection(api.getCard());
  assert.ok(missing instanceof TransportRemoteError);
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.code, 'not_found');
});

test('http client: the error request id is the one it sent', async (t) => {
  const { server } = await agentServer(t);
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  const error = await rejection(api.getCard());
  assert.match(error.requestId, /^[0-9a-f-]{36}$/);
  assert.equal(error.url, server.url);
});

test('http client: the transport has no task streams', async (t) => {
  const { server } = await agentServer(t);
  const transport = await client(t, 'http', server.url);
  const error = await rejection(
    (async () => {
      for await (const _ of new AgentOperationsClient(transport).streamTask({ id: 's' })) void _;
    })(),
  );
  assert.ok(error instanceof TransportProtocolError, String(error));
  assert.equal(error.retryable, false);
});

test('http server: a stream route is not served by the http transport', async (t) => {
  const server = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table({
      spec: ops.streamTask,
      async *stream() {
        yield { result: {}, final: true };
      },
    }),
  );
  const res = await rawRequest(server.url, { method: 'POST', path: '/tasks/stream', body: '{"id":"s"}' });
  assert.equal(res.status, 404);
  assert.ok(validate('error-body', res.json).valid);
});

test('http client: keeps a base path from the transport URL', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 200, { id: 'p' }));
  const api = new AgentOperationsClient(await client(t, 'http', `${peer.url}/agent`));
  await api.sendTask({ id: 'p' });
  assert.equal(peer.requests[0]!.path, '/agent/tasks/');
});

test('http client: sends JSON with content-type and the request id header', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 200, { id: 'h' }));
  await new AgentOperationsClient(await client(t, 'http', peer.url)).sendTask({ id: 'h' });
  const [request] = peer.requests;
  assert.equal(request!.method, 'POST');
  assert.equal(header(request!, 'content-type'), 'application/json');
  assert.match(String(header(request!, 'x-svc-request-id')), /^[0-9a-f-]{36}$/);
  assert.equal(request!.body, '{"id":"h"}');
});

test('http: a task whose id is not ASCII can be submitted (its idempotency key must fit a header)', async (t) => {
  const { server, calls } = await agentServer(t);
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  const result = await api.sendTask({ id: 'tâche-€' });
  assert.equal(result.id, 'tâche-€');
  assert.deepEqual(calls, ['send tâche-€']);
  // The key still deduplicates.
  await api.sendTask({ id: 'tâche-€' });
  assert.equal(calls.length, 1);
});

test('http client: query parameters go in the query string, a list as a repeated key, with the base path and extra headers', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 200, { id: 'q' }));
  const api = new AgentOperationsClient(await client(t, 'http', `${peer.url}/mount/`));
  await api.sendTask({ id: 'q' }, { params: { verbose: 'yes', tag: ['a b', 'c&d'] }, headers: { 'x-trace': 't-1' } });
  const [request] = peer.requests;
  assert.equal(request!.path, '/mount/tasks/');
  assert.equal(request!.search, '?verbose=yes&tag=a+b&tag=c%26d');
  assert.equal(header(request!, 'x-trace'), 't-1');
});

// The peer never answers: without the deadline the call would hang, which the test timeout turns into a failure.
test('http client: a deadline that passes while the answer is awaited ends the call with TransportTimeoutError', {
  timeout: 10_000,
}, async (t) => {
  const peer = await rawServer(t, () => undefined);
  const api = new AgentOperationsClient(await client(t, 'http', peer.url));
  await assert.rejects(
    api.sendTask({ id: 'slow' }, { timeoutMs: 100 }),
    (error: unknown) => error instanceof TransportTimeoutError,
  );
});
