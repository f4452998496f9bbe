// Spec "Retry policy" and "Idempotency and correlation": the backoff formula, the three
// conditions for a retry, and what stays the same across attempts. Network cases run the real
// http client against raw node:http peers that misbehave on purpose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { RegistryOperationsClient } from '../../generated/clients/registry.js';
import { ResolvedConfig } from '../../src/transport/config.js';
import {
  TransportConnectionError,
  type TransportError,
  TransportLimitError,
  TransportProtocolError,
  TransportRemoteError,
  TransportTimeoutError,
} from '../../src/transport/errors.js';
import { backoffSeconds, shouldRetry } from '../../src/transport/retry.js';
import {
  answer,
  client,
  header,
  instantRetry,
  ops,
  rawServer,
  refusedUrl,
  rejection,
  runtimeUrl,
  serve,
  table,
  unary,
  waitFor,
} from '../support/transport-fixtures.js';

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

// ---- the delay formula ---------------------------------------------------------------------

const uncapped = new ResolvedConfig({ retry: { initialBackoff: 0.1, maxBackoff: 10, jitter: 0.1 } }).retry;
const capped = new ResolvedConfig({ retry: { initialBackoff: 0.1, maxBackoff: 0.5, jitter: 0.1 } }).retry;
const defaults = new ResolvedConfig().retry;

const delays: Array<[string, typeof uncapped, number, number]> = [
  // [label, policy, n, min(initial * 2**(n-1), max)]
  ['uncapped', uncapped, 1, 0.1],
  ['uncapped', uncapped, 2, 0.2],
  ['uncapped', uncapped, 3, 0.4],
  ['uncapped', uncapped, 4, 0.8],
  ['uncapped', uncapped, 5, 1.6],
  ['capped at 0.5', capped, 1, 0.1],
  ['capped at 0.5', capped, 2, 0.2],
  ['capped at 0.5', capped, 3, 0.4],
  ['capped at 0.5', capped, 4, 0.5],
  ['capped at 0.5', capped, 5, 0.5],
  ['defaults (cap 2.0)', defaults, 5, 1.6],
  ['defaults (cap 2.0)', defaults, 6, 2.0],
  ['defaults (cap 2.0)', defaults, 10, 2.0],
];

for (const [label, policy, n, base] of delays) {
  test(`backoff ${label}, retry ${n}: ${base}s plus jitter in [0, ${policy.jitter}]`, () => {
    assert.ok(
      close(
        backoffSeconds(policy, n, () => 0),
        base,
      ),
      `random 0 gives the bare backoff`,
    );
    assert.ok(
      close(
        backoffSeconds(policy, n, () => 0.5),
        base + 0.5 * policy.jitter,
      ),
    );
    assert.ok(
      close(
        backoffSeconds(policy, n, () => 1),
        base + policy.jitter,
      ),
      `random 1 adds the whole jitter`,
    );
  });
}

test('backoff with the real random source stays within [base, base + jitter]', () => {
  for (let n = 1; n <= 5; n++) {
    const base = Math.min(0.1 * 2 ** (n - 1), 0.5);
    for (let i = 0; i < 50; i++) {
      const delay = backoffSeconds(capped, n);
      assert.ok(delay >= base && delay <= base + 0.1 + 1e-12, `delay ${delay} for n=${n}`);
    }
  }
});

test('jitter 0 gives exactly the doubling backoff', () => {
  const policy = new ResolvedConfig({ retry: { initialBackoff: 0.25, maxBackoff: 1, jitter: 0 } }).retry;
  assert.deepEqual(
    [1, 2, 3, 4].map((n) => backoffSeconds(policy, n, () => 0.99)),
    [0.25, 0.5, 1, 1],
  );
});

// ---- the three conditions ------------------------------------------------------------------

const retryable = new TransportRemoteError('busy', { statusCode: 503, retryable: true });
const notRetryable = new TransportRemoteError('missing', { statusCode: 404, retryable: false });
const conditions: Array<[string, boolean, string, readonly string[] | undefined, unknown, boolean]> = [
  // [label, spec idempotent, spec method, retryable_methods, error, retried]
  ['all three hold', true, 'POST', undefined, retryable, true],
  ['not idempotent', false, 'POST', undefined, retryable, false],
  ['method not in retryable_methods', true, 'POST', ['GET'], retryable, false],
  ['method listed in lower case', true, 'GET', ['get'], retryable, true],
  ['error not retryable', true, 'POST', undefined, notRetryable, false],
  [
    'limit error (never retryable)',
    true,
    'POST',
    undefined,
    new TransportLimitError('big', { kind: 'request', limit: 1, size: 2 }),
    false,
  ],
  ['connection error', true, 'DELETE', undefined, new TransportConnectionError('down'), true],
  ['timeout error', true, 'PUT', undefined, new TransportTimeoutError('late'), true],
  ['not a transport error', true, 'POST', undefined, Object.assign(new Error('app'), { retryable: true }), false],
  ['nothing retryable_methods allows', true, 'GET', ['DELETE'], retryable, false],
];
for (const [label, idempotent, method, methods, error, expected] of conditions) {
  test(`shouldRetry: ${label} -> ${expected}`, () => {
    const policy = new ResolvedConfig({ retry: methods ? { retryableMethods: [...methods] } : {} }).retry;
    assert.equal(shouldRetry(policy, { idempotent, method: method as 'POST' }, error), expected);
  });
}

// ---- over the real http client -------------------------------------------------------------

const unavailable = { error: { code: 'unavailable', message: 'try later', status: 503 } };

test('http: 503, 503, 200 is retried to success; request id and idempotency key are the same on every attempt', async (t) => {
  const peer = await rawServer(t, (_req, res, n, body) => (n <= 2 ? answer(res, 503, unavailable) : answer(res, 200, body)));
  const transport = await client(t, 'http', peer.url, { retry: instantRetry(3) });
  const task = { id: 'retry-me', messages: [] };
  const result = await new AgentOperationsClient(transport).sendTask(task);
  assert.deepEqual(result, task);
  assert.equal(peer.requests.length, 3);
  const ids = peer.requests.map((r) => header(r, 'x-svc-request-id'));
  const keys = peer.requests.map((r) => header(r, 'idempotency-key'));
  assert.ok(ids[0], 'a request id is sent');
  assert.deepEqual(ids, [ids[0], ids[0], ids[0]]);
  assert.deepEqual(keys, ['retry-me', 'retry-me', 'retry-me']);
  assert.deepEqual(
    peer.requests.map((r) => r.body),
    Array(3).fill(JSON.stringify(task)),
  );
  const metrics = transport.health().metrics;
  assert.equal(metrics.retries, 2);
  assert.equal(metrics.requests_started, 1, 'one logical request');
  assert.equal(metrics.requests_succeeded, 1);
  assert.equal(metrics.requests_failed, 0);
  assert.equal(metrics.bytes_sent, 3 * Buffer.byteLength(JSON.stringify(task)), 'bytes_sent counts each attempt');
});

test('http: attempts stop at max_attempts and the last error is raised', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 503, unavailable));
  const transport = await client(t, 'http', peer.url, { retry: instantRetry(3) });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportRemoteError);
  assert.equal(error.statusCode, 503);
  assert.equal(error.retryable, true);
  assert.equal(peer.requests.length, 3);
  assert.equal(transport.health().metrics.retries, 2);
  assert.equal(transport.health().metrics.requests_failed, 1);
});

test('http: max_attempts 1 (the default) means one attempt', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 503, unavailable));
  const transport = await client(t, 'http', peer.url);
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportRemoteError);
  assert.equal(error.retryable, true, 'the category is retryable; the policy says no');
  assert.equal(peer.requests.length, 1);
  assert.equal(transport.health().metrics.retries, 0);
});

test('http: a non-idempotent operation (resetState, POST /state/reset) is not retried on 503', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 503, unavailable));
  const transport = await client(t, 'http', peer.url, { retry: instantRetry(3) });
  const error = await rejection(new AgentOperationsClient(transport).resetState({ scope: 'agent' }));
  assert.ok(error instanceof TransportRemoteError);
  assert.equal(error.retryable, true);
  assert.equal(peer.requests.length, 1);
  assert.equal(peer.requests[0]!.path, '/state/reset');
  assert.equal(header(peer.requests[0]!, 'idempotency-key'), undefined, 'no idempotency key on a non-idempotent call');
  assert.equal(transport.health().metrics.retries, 0);
});

test('http: registry register (not idempotent) is not retried; unregister (idempotent, DELETE) is', async (t) => {
  const peer = await rawServer(t, (_req, res, n) =>
    n <= 2 ? answer(res, 503, unavailable) : answer(res, 200, { status: 'ok' }),
  );
  const registry = new RegistryOperationsClient(await client(t, 'http', peer.url, { retry: instantRetry(3) }));
  await rejection(registry.register({ name: 'a', url: 'http://a' }));
  assert.equal(peer.requests.length, 1);
  await registry.unregister({ agent_url: 'http://a' });
  assert.deepEqual(
    peer.requests.map((r) => r.method),
    ['POST', 'DELETE', 'DELETE'],
  );
});

test('http: a method missing from retryable_methods is not retried; a listed one (given in lower case) is', async (t) => {
  const peer = await rawServer(t, (_req, res, n) =>
    n <= 3 ? answer(res, 503, unavailable) : answer(res, 200, { name: 'card', url: 'http://card' }),
  );
  const transport = await client(t, 'http', peer.url, { retry: instantRetry(3, ['get']) });
  const api = new AgentOperationsClient(transport);
  // POST /tasks/ is idempotent, the error is retryable, but POST is not listed.
  await rejection(api.sendTask({ id: 'x' }));
  assert.equal(peer.requests.length, 1);
  // GET /.well-known/agent.json: retried twice (requests 2 and 3 fail, 4 succeeds).
  const card = await api.getCard();
  assert.equal(card.name, 'card');
  assert.deepEqual(
    peer.requests.map((r) => r.method),
    ['POST', 'GET', 'GET', 'GET'],
  );
  assert.equal(transport.health().metrics.retries, 2);
});

const notRetried: Array<[string, (res: import('node:http').ServerResponse) => void, new (...args: never[]) => TransportError]> = [
  [
    '404 with an error body',
    (res) => answer(res, 404, { error: { code: 'not_found', message: 'no', status: 404 } }),
    TransportRemoteError,
  ],
  ['400 without a body', (res) => answer(res, 400), TransportRemoteError],
  ['403', (res) => answer(res, 403, { error: { code: 'forbidden', message: 'no', status: 403 } }), TransportRemoteError],
  ['200 with malformed JSON', (res) => answer(res, 200, '{"id": "tr'), TransportProtocolError],
];
for (const [label, misbehave, kind] of notRetried) {
  test(`http: a non-retryable failure is not retried: ${label}`, async (t) => {
    const peer = await rawServer(t, (_req, res) => misbehave(res));
    const transport = await client(t, 'http', peer.url, { retry: instantRetry(3) });
    const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
    assert.ok(error instanceof kind, String(error));
    assert.equal(error.retryable, false);
    assert.equal(peer.requests.length, 1);
    assert.equal(transport.health().metrics.retries, 0);
  });
}

const retriedThenOk: Array<[string, (res: import('node:http').ServerResponse, body: string) => void]> = [
  ['429 without a body', (res) => answer(res, 429)],
  ['500 with an error body', (res) => answer(res, 500, { error: { code: 'internal', message: 'boom', status: 500 } })],
  ['502 with a text body', (res) => answer(res, 502, 'bad gateway')],
  [
    'a connection closed mid-response',
    (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
      res.write('{"id":');
      setImmediate(() => res.socket?.destroy());
    },
  ],
  ['a connection closed before any response', (res) => res.socket?.destroy()],
];
for (const [label, misbehave] of retriedThenOk) {
  test(`http: retried after ${label}, then succeeds`, async (t) => {
    const peer = await rawServer(t, (_req, res, n, body) => (n === 1 ? misbehave(res, body) : answer(res, 200, body)));
    const transport = await client(t, 'http', peer.url, { retry: instantRetry(2) });
    const result = await new AgentOperationsClient(transport).sendTask({ id: 'again' });
    assert.deepEqual(result, { id: 'again' });
    assert.equal(peer.requests.length, 2);
    assert.equal(header(peer.requests[0]!, 'x-svc-request-id'), header(peer.requests[1]!, 'x-svc-request-id'));
    assert.equal(header(peer.requests[1]!, 'idempotency-key'), 'again');
    assert.equal(transport.health().metrics.retries, 1);
  });
}

test('http: a refused connection is retried up to max_attempts, then TransportConnectionError', async (t) => {
  const url = await refusedUrl();
  const transport = await client(t, 'http', url, { retry: instantRetry(3) });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportConnectionError, String(error));
  assert.equal(error.retryable, true);
  const metrics = transport.health().metrics;
  assert.equal(metrics.retries, 2);
  assert.equal(metrics.bytes_sent, 3 * Buffer.byteLength('{"id":"x"}'));
});

test('http: a deadline that passes is retried, then TransportTimeoutError', async (t) => {
  const peer = await rawServer(t, () => undefined); // never answers
  const transport = await client(t, 'http', peer.url, { retry: instantRetry(2) });
  // Long enough for a loaded machine to get each attempt to the peer, which the test checks.
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'slow' }, { timeoutMs: 1_000 }));
  assert.ok(error instanceof TransportTimeoutError, String(error));
  assert.equal(error.retryable, true);
  await waitFor(() => peer.requests.length === 2, 'both attempts reached the peer');
  assert.equal(header(peer.requests[0]!, 'x-svc-request-id'), header(peer.requests[1]!, 'x-svc-request-id'));
  assert.equal(transport.health().metrics.retries, 1);
});

test('a caller abort during backoff ends the retries', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 503, unavailable));
  const transport = await client(t, 'http', peer.url, {
    retry: { maxAttempts: 5, initialBackoff: 60, maxBackoff: 60, jitter: 0 },
  });
  const aborter = new AbortController();
  const call = new AgentOperationsClient(transport).sendTask({ id: 'x' }, { signal: aborter.signal });
  await waitFor(() => transport.health().metrics.retries === 1, 'first retry scheduled');
  const reason = new Error('stop');
  aborter.abort(reason);
  assert.equal(await rejection(call), reason);
  assert.equal(peer.requests.length, 1);
});

// ---- runtime -------------------------------------------------------------------------------

test('runtime: a handler failure is not retryable and runs once', async (t) => {
  const url = runtimeUrl('retry-handler');
  let calls = 0;
  await serve(
    t,
    'runtime',
    url,
    table(
      unary(ops.sendTask, () => {
        calls++;
        throw new Error('handler broke');
      }),
    ),
  );
  const transport = await client(t, 'runtime', url, { retry: instantRetry(3) });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportRemoteError, String(error));
  // Spec: TransportRemoteError is retryable for "Runtime handler failure: no".
  assert.equal(error.retryable, false);
  assert.equal(calls, 1);
  assert.equal(transport.health().metrics.retries, 0);
});

test('runtime: a target that is not started yet is retried (connection errors are retryable)', async (t) => {
  const url = runtimeUrl('retry-late');
  const transport = await client(t, 'runtime', url, { retry: instantRetry(2) });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportConnectionError);
  assert.equal(transport.health().metrics.retries, 1);
});

test('streams never retry, even for a retryable error', async (t) => {
  const url = runtimeUrl('retry-stream');
  let opened = 0;
  await serve(
    t,
    'runtime',
    url,
    table({
      spec: ops.streamTask,
      // biome-ignore lint/correctness/useYield: the test needs a stream that fails before it yields anything.
      async *stream(_data: unknown, context) {
        opened++;
        assert.equal(context.idempotencyKey, null, 'streams carry no idempotency key');
        throw new Error('stream broke');
      },
    }),
  );
  const transport = await client(t, 'runtime', url, { retry: instantRetry(3) });
  const error = await rejection(
    (async () => {
      for await (const _ of new AgentOperationsClient(transport).streamTask({ id: 's' })) void _;
    })(),
  );
  assert.ok(error instanceof TransportRemoteError, String(error));
  assert.equal(opened, 1);
  assert.equal(transport.health().metrics.retries, 0);
});
