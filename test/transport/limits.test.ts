// Spec "Limits": sizes are the UTF-8 byte length of the normalized JSON; a request is checked
// before sending, a response before it is returned, every stream event on its own; a server
// refuses an oversize body (413 payload_too_large) and keeps serving; limit errors never retry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { validate } from '../../generated/validators/index.js';
import { TransportLimitError } from '../../src/transport/errors.js';
import { assertWithin, encodeWithin } from '../../src/transport/limits.js';
import {
  answer,
  client,
  echoTask,
  instantRetry,
  ops,
  rawRequest,
  rawServer,
  rejection,
  runtimeUrl,
  serve,
  stream,
  table,
  unary,
} from '../support/transport-fixtures.js';

// Each row: a payload and its normalized JSON text written out by hand, so the byte count is
// checked against the text rather than against the implementation's own serializer.
const sizes: Array<[string, unknown, string]> = [
  ['ASCII', { id: 'abc' }, '{"id":"abc"}'],
  ['two-byte characters', { id: 'éé' }, '{"id":"éé"}'],
  ['three-byte characters', { id: '€€€' }, '{"id":"€€€"}'],
  ['four-byte characters (emoji)', { id: '😀' }, '{"id":"😀"}'],
  [
    'undefined members dropped, Dates as ISO strings',
    { id: 'a', skip: undefined, at: new Date(0) },
    '{"id":"a","at":"1970-01-01T00:00:00.000Z"}',
  ],
  ['Maps and Sets as object and array', { m: new Map([['k', 1]]), s: new Set([1, 2]) }, '{"m":{"k":1},"s":[1,2]}'],
  ['null', null, 'null'],
];

for (const [label, value, text] of sizes) {
  const bytes = Buffer.byteLength(text, 'utf8');
  test(`size is UTF-8 bytes of normalized JSON: ${label} (${bytes} bytes)`, () => {
    const encoded = encodeWithin('request', value, bytes);
    assert.equal(encoded.text, text);
    assert.equal(encoded.bytes, bytes);
    const error = (() => {
      try {
        encodeWithin('request', value, bytes - 1 || 1);
      } catch (e) {
        return e;
      }
      return null;
    })();
    if (bytes > 1) {
      assert.ok(error instanceof TransportLimitError);
      assert.equal(error.size, bytes);
      assert.equal(error.limit, bytes - 1);
      assert.equal(error.retryable, false);
    }
  });
}

test('multi-byte characters count as bytes, not characters', () => {
  const text = '{"id":"€€€"}';
  assert.equal(text.length, 12);
  assert.throws(() => encodeWithin('request', { id: '€€€' }, 17), TransportLimitError);
  assert.equal(encodeWithin('request', { id: '€€€' }, 18).bytes, 18);
});

const kinds = ['request', 'response', 'event'] as const;
for (const kind of kinds) {
  test(`assertWithin(${kind}): exactly at the limit passes, one byte over fails`, () => {
    assertWithin(kind, 100, 100);
    const error = (() => {
      try {
        assertWithin(kind, 101, 100, { url: 'http://x', requestId: 'r1' });
      } catch (e) {
        return e as TransportLimitError;
      }
      throw new Error('no error');
    })();
    assert.ok(error instanceof TransportLimitError);
    assert.equal(error.kind, kind);
    // The code depends on the kind alone: the same excess has the same code on either side.
    assert.equal(error.code, kind === 'request' ? 'payload_too_large' : 'response_too_large');
    assert.equal(error.statusCode, kind === 'request' ? 413 : 500);
    assert.equal(error.limit, 100);
    assert.equal(error.size, 101);
    assert.equal(error.url, 'http://x');
    assert.equal(error.requestId, 'r1');
    assert.equal(error.retryable, false);
  });
}

// ---- request: checked before sending --------------------------------------------------------

// The multi-byte text sits in metadata: the id also becomes the Idempotency-Key header.
const multiByteTask = { id: 'a', metadata: { s: '€€€' } };
const multiByteText = '{"id":"a","metadata":{"s":"€€€"}}'; // 33 characters, 39 bytes

test('http: a request over max_request_bytes never leaves the client', async (t) => {
  assert.equal(multiByteText.length, 33);
  assert.equal(Buffer.byteLength(multiByteText), 39);
  const peer = await rawServer(t, (_req, res, _n, body) => answer(res, 200, body));
  const atLimit = new AgentOperationsClient(await client(t, 'http', peer.url, { limits: { maxRequestBytes: 39 } }));
  assert.deepEqual(await atLimit.sendTask(multiByteTask), multiByteTask);
  assert.equal(peer.requests.length, 1);
  assert.equal(peer.requests[0]!.body, multiByteText);

  const transport = await client(t, 'http', peer.url, { limits: { maxRequestBytes: 38 }, retry: instantRetry(3) });
  const error = await rejection(new AgentOperationsClient(transport).sendTask(multiByteTask));
  assert.ok(error instanceof TransportLimitError, String(error));
  assert.equal(error.code, 'payload_too_large');
  assert.equal(error.size, 39);
  assert.equal(error.limit, 38);
  assert.equal(error.retryable, false);
  assert.equal(error.url, peer.url);
  assert.equal(peer.requests.length, 1, 'the server never received the oversize request');
  assert.equal(transport.health().metrics.bytes_sent, 0);
});

test('runtime: the same serialized request check; the target handler never runs', async (t) => {
  const url = runtimeUrl('limit-req');
  let calls = 0;
  await serve(t, 'runtime', url, table(unary(ops.sendTask, (task) => (calls++, task))));
  const small = new AgentOperationsClient(await client(t, 'runtime', url, { limits: { maxRequestBytes: 38 } }));
  const error = await rejection(small.sendTask(multiByteTask));
  assert.ok(error instanceof TransportLimitError);
  assert.equal(error.code, 'payload_too_large');
  assert.equal(error.size, 39);
  assert.equal(calls, 0);
  const exact = new AgentOperationsClient(await client(t, 'runtime', url, { limits: { maxRequestBytes: 39 } }));
  await exact.sendTask(multiByteTask);
  assert.equal(calls, 1);
});

// ---- response: checked before it is returned ------------------------------------------------

test('http: an answer over the client max_response_bytes is a TransportLimitError, not retried', async (t) => {
  const body = '{"id":"€€€"}'; // 18 bytes
  const peer = await rawServer(t, (_req, res) => answer(res, 200, body));
  const exact = new AgentOperationsClient(await client(t, 'http', peer.url, { limits: { maxResponseBytes: 18 } }));
  assert.deepEqual(await exact.sendTask({ id: 'x' }), { id: '€€€' });

  const before = peer.requests.length;
  const transport = await client(t, 'http', peer.url, { limits: { maxResponseBytes: 17 }, retry: instantRetry(3) });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportLimitError, String(error));
  assert.equal(error.code, 'response_too_large');
  assert.equal(error.kind, 'response');
  assert.equal(error.retryable, false);
  assert.equal(error.limit, 17);
  assert.equal(peer.requests.length, before + 1, 'a limit error is not retried');
  assert.equal(transport.health().metrics.retries, 0);
});

test('runtime: the caller checks the response size before returning it', async (t) => {
  const url = runtimeUrl('limit-resp');
  await serve(t, 'runtime', url, table(unary(ops.sendTask, () => ({ id: '€€€' }))));
  const exact = new AgentOperationsClient(await client(t, 'runtime', url, { limits: { maxResponseBytes: 18 } }));
  assert.deepEqual(await exact.sendTask({ id: 'q' }), { id: '€€€' });
  const small = new AgentOperationsClient(await client(t, 'runtime', url, { limits: { maxResponseBytes: 17 } }));
  const error = await rejection(small.sendTask({ id: 'q' }));
  assert.ok(error instanceof TransportLimitError);
  assert.equal(error.code, 'response_too_large');
});

for (const name of ['http', 'runtime'] as const) {
  test(`${name}: a server whose answer exceeds its own max_response_bytes fails the call with a limit error`, async (t) => {
    let calls = 0;
    const big = { id: 'big', metadata: { pad: 'x'.repeat(200) } };
    const server = await serve(
      t,
      name,
      name === 'http' ? 'http://127.0.0.1:0' : runtimeUrl('limit-srv'),
      table(unary(ops.sendTask, (task) => (calls++, task.id === 'big' ? big : task))),
      { limits: { maxResponseBytes: 100 } },
    );
    const api = new AgentOperationsClient(await client(t, name, server.url, { retry: instantRetry(3) }));
    const error = await rejection(api.sendTask({ id: 'big' }));
    assert.ok(error instanceof TransportLimitError, String(error));
    // The server's own verdict, as the client would reach if it measured: response_too_large.
    assert.equal(error.code, 'response_too_large');
    assert.equal(error.retryable, false);
    assert.equal(calls, 1);
    // The server keeps serving.
    assert.deepEqual(await api.sendTask({ id: 'small' }), { id: 'small' });
  });
}

// ---- server: 413 payload_too_large, then keeps serving --------------------------------------

async function limitedHttpServer(t: Parameters<typeof serve>[0]) {
  const seen: unknown[] = [];
  const server = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(unary(ops.sendTask, (task) => (seen.push(task), { ...task, state: 'completed' }))),
    { limits: { maxRequestBytes: 64 } },
  );
  return { server, seen };
}

/** A valid task body of exactly `bytes` bytes. */
function taskOfSize(bytes: number): string {
  const base = '{"id":"t","metadata":{"pad":""}}';
  return base.replace('"pad":""', `"pad":"${'p'.repeat(bytes - base.length)}"`);
}

const bodyModes: Array<[string, (body: string) => { body?: string; chunks?: string[] }]> = [
  ['content-length', (body) => ({ body })],
  ['chunked transfer encoding', (body) => ({ chunks: [body.slice(0, 20), body.slice(20, 50), body.slice(50)] })],
];

for (const [mode, send] of bodyModes) {
  test(`http server: a body of max_request_bytes passes, one byte more is 413 payload_too_large (${mode})`, async (t) => {
    const { server, seen } = await limitedHttpServer(t);
    const exact = taskOfSize(64);
    assert.equal(Buffer.byteLength(exact), 64);
    const ok = await rawRequest(server.url, { method: 'POST', path: '/tasks/', ...send(exact) });
    assert.equal(ok.status, 200);
    assert.equal(seen.length, 1);

    const over = taskOfSize(65);
    const refused = await rawRequest(server.url, {
      method: 'POST',
      path: '/tasks/',
      headers: { 'x-svc-request-id': 'big-1' },
      ...send(over),
    });
    assert.equal(refused.status, 413);
    assert.equal(refused.json.error.code, 'payload_too_large');
    assert.equal(refused.json.error.status, 413);
    assert.equal(refused.json.error.request_id, 'big-1');
    assert.equal(refused.json.error.details.limit, 64);
    assert.ok(refused.json.error.details.size > 64);
    assert.ok(validate('error-body', refused.json).valid);
    assert.equal(seen.length, 1, 'the handler never saw the oversize body');

    // Keeps serving.
    const again = await rawRequest(server.url, { method: 'POST', path: '/tasks/', body: '{"id":"after"}' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, { id: 'after', state: 'completed' });
  });
}

test('http server: a declared content-length over the limit is refused before the body is read', async (t) => {
  const { server, seen } = await limitedHttpServer(t);
  const refused = await rawRequest(server.url, { method: 'POST', path: '/tasks/', body: taskOfSize(500) });
  assert.equal(refused.status, 413);
  assert.equal(refused.json.error.code, 'payload_too_large');
  assert.equal(refused.json.error.details.size, 500);
  assert.equal(seen.length, 0);
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  assert.equal((await api.sendTask({ id: 'ok' })).state, 'completed');
});

test('http: a 413 from the server reaches the client as a TransportLimitError, not retried', async (t) => {
  const { server, seen } = await limitedHttpServer(t);
  const transport = await client(t, 'http', server.url, { retry: instantRetry(3) });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 't', metadata: { pad: 'p'.repeat(100) } }));
  assert.ok(error instanceof TransportLimitError, String(error));
  assert.equal(error.code, 'payload_too_large');
  assert.equal(error.kind, 'request');
  assert.equal(error.statusCode, 413);
  assert.equal(error.retryable, false);
  assert.equal(transport.health().metrics.retries, 0);
  assert.equal(seen.length, 0);
});

// ---- events: each checked on its own ---------------------------------------------------------

test('runtime: each stream event is checked against max_event_bytes on its own', async (t) => {
  const url = runtimeUrl('limit-event');
  const small = { type: 'task_status', n: 1 };
  const large = { type: 'task_status', pad: 'e'.repeat(200) };
  await serve(
    t,
    'runtime',
    url,
    table(
      stream(ops.streamTask, async function* () {
        yield { result: small, final: false };
        yield { result: large, final: false };
        yield { result: { type: 'task_completed' }, final: true };
      }),
    ),
  );
  const transport = await client(t, 'runtime', url, { limits: { maxEventBytes: 100 } });
  const received: unknown[] = [];
  const error = await rejection(
    (async () => {
      for await (const event of new AgentOperationsClient(transport).streamTask({ id: 's' })) received.push(event);
    })(),
  );
  assert.deepEqual(received, [small], 'the small event arrived before the large one failed');
  assert.ok(error instanceof TransportLimitError, String(error));
  assert.equal(error.code, 'response_too_large');
  assert.equal(error.kind, 'event');
  assert.equal(error.retryable, false);
  assert.equal(transport.health().metrics.streams_failed, 1);
});

test('runtime: a target refuses to emit an event over its own max_event_bytes', async (t) => {
  const url = runtimeUrl('limit-event-srv');
  await serve(
    t,
    'runtime',
    url,
    table(
      stream(ops.streamTask, async function* () {
        yield { result: { type: 'task_status', pad: 'e'.repeat(200) }, final: false };
        yield { result: { type: 'task_completed' }, final: true };
      }),
    ),
    { limits: { maxEventBytes: 100 } },
  );
  const api = new AgentOperationsClient(await client(t, 'runtime', url));
  const error = await rejection(
    (async () => {
      for await (const _ of api.streamTask({ id: 's' })) void _;
    })(),
  );
  assert.ok(error instanceof TransportLimitError, String(error));
  assert.equal(error.code, 'response_too_large');
});

test('echo sanity: http transport at default limits', async (t) => {
  const server = await serve(t, 'http', 'http://127.0.0.1:0', table(echoTask()));
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  assert.equal((await api.sendTask({ id: 'e' })).state, 'completed');
});
