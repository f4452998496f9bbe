// Spec "Errors > Transport error taxonomy": five kinds under TransportError, each with message,
// url, request_id, retryable and status_code; which failures are retryable; and that a real
// client raises the right kind for each way a peer can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import {
  isRetryableHttpStatus,
  TransportConnectionError,
  TransportError,
  TransportLimitError,
  TransportProtocolError,
  TransportRemoteError,
  TransportTimeoutError,
} from '../../src/transport/errors.js';
import { answer, client, header, rawServer, refusedUrl, rejection, waitFor } from '../support/transport-fixtures.js';

const KINDS = [
  TransportConnectionError,
  TransportTimeoutError,
  TransportProtocolError,
  TransportRemoteError,
  TransportLimitError,
] as const;

function build(kind: (typeof KINDS)[number], options: Record<string, unknown>): TransportError {
  return kind === TransportLimitError
    ? new TransportLimitError('m', { kind: 'request', limit: 1, size: 2, ...options })
    : new (kind as typeof TransportRemoteError)('m', options);
}

// ---- the classes ---------------------------------------------------------------------------

const defaultsByKind: Array<[(typeof KINDS)[number], boolean, string]> = [
  // [kind, retryable by default, default code]
  [TransportConnectionError, true, 'connection_failed'],
  [TransportTimeoutError, true, 'deadline_exceeded'],
  [TransportProtocolError, false, 'protocol_error'],
  [TransportRemoteError, false, 'remote_error'],
  [TransportLimitError, false, 'payload_too_large'],
];

for (const [kind, retryable, code] of defaultsByKind) {
  test(`${kind.name}: carries message, url, request_id, retryable, status_code`, () => {
    const error = build(kind, { url: 'http://peer', requestId: 'req-1', statusCode: 503 });
    assert.equal(error.message, 'm');
    assert.equal(error.url, 'http://peer');
    assert.equal(error.requestId, 'req-1');
    assert.equal(error.statusCode, 503);
    assert.equal(error.retryable, retryable);
    assert.equal(error.code, code);
    assert.equal(error.name, kind.name);
    assert.deepEqual(error.toJSON(), {
      name: kind.name,
      message: 'm',
      code,
      url: 'http://peer',
      request_id: 'req-1',
      retryable,
      status_code: 503,
    });
  });

  test(`${kind.name}: url and request_id default to null, status_code too except on limit errors`, () => {
    const error = build(kind, {});
    assert.equal(error.url, null);
    assert.equal(error.requestId, null);
    // A limit error found locally carries the status its code has on the wire.
    assert.equal(error.statusCode, kind === TransportLimitError ? 413 : null);
  });

  test(`${kind.name}: instanceof TransportError and Error, and of no other kind`, () => {
    const error = build(kind, {});
    assert.ok(error instanceof kind);
    assert.ok(error instanceof TransportError);
    assert.ok(error instanceof Error);
    for (const other of KINDS) if (other !== kind) assert.ok(!(error instanceof other), `not a ${other.name}`);
    assert.ok(typeof error.stack === 'string');
  });
}

test('status_code may be a gRPC status name (a string)', () => {
  const error = new TransportConnectionError('down', { statusCode: 'UNAVAILABLE' });
  assert.equal(error.statusCode, 'UNAVAILABLE');
  assert.equal(error.toJSON().status_code, 'UNAVAILABLE');
});

test('retryable may be set per failure, except on limit errors (never retryable)', () => {
  assert.equal(new TransportProtocolError('dropped', { retryable: true }).retryable, true);
  assert.equal(new TransportConnectionError('tls', { retryable: false }).retryable, false);
  assert.equal(new TransportRemoteError('busy', { retryable: true }).retryable, true);
  assert.equal(new TransportLimitError('big', { kind: 'request', limit: 1, size: 2, retryable: true }).retryable, false);
});

// One row per payload kind: the code follows the kind, whichever side found the excess.
const limitKinds: Array<['request' | 'response' | 'event', string, number]> = [
  ['request', 'payload_too_large', 413],
  ['response', 'response_too_large', 500],
  ['event', 'response_too_large', 500],
];
for (const [kind, code, status] of limitKinds) {
  test(`TransportLimitError of kind ${kind}: code ${code}, status_code ${status} unless the peer gave one`, () => {
    const local = new TransportLimitError('big', { kind, limit: 1, size: 2 });
    assert.equal(local.kind, kind);
    assert.equal(local.code, code);
    assert.equal(local.statusCode, status);
    assert.equal(new TransportLimitError('big', { kind, limit: 1, size: 2, statusCode: 'INTERNAL' }).statusCode, 'INTERNAL');
  });
}

test('the base TransportError defaults retryable to false', () => {
  const error = new TransportError('x');
  assert.equal(error.retryable, false);
  assert.equal(error.name, 'TransportError');
});

test('a cause is kept', () => {
  const cause = new Error('socket');
  assert.equal(new TransportConnectionError('down', { cause }).cause, cause);
});

const statuses: Array<[number, boolean]> = [
  [400, false],
  [401, false],
  [403, false],
  [404, false],
  [405, false],
  [409, false],
  [413, false],
  [428, false],
  [429, true],
  [500, true],
  [501, true],
  [502, true],
  [503, true],
  [504, true],
  [599, true],
];
for (const [status, retryable] of statuses) {
  test(`HTTP ${status} is ${retryable ? '' : 'not '}retryable`, () => {
    assert.equal(isRetryableHttpStatus(status), retryable);
  });
}

// ---- what a real client raises for each failing peer -----------------------------------------

type Row = [
  label: string,
  peer: ((res: ServerResponse) => void) | 'refused',
  kind: (typeof KINDS)[number],
  retryable: boolean,
  statusCode: number | null,
  check?: (error: any) => void,
];

const rows: Row[] = [
  [
    '429 with an error body',
    (res) => answer(res, 429, { error: { code: 'resource_exhausted', message: 'slow down', status: 429 } }),
    TransportRemoteError,
    true,
    429,
    (e) => {
      assert.equal(e.code, 'resource_exhausted');
      assert.equal(e.message, 'slow down');
    },
  ],
  ['429 without a body', (res) => answer(res, 429), TransportRemoteError, true, 429],
  [
    '500 with an error body',
    (res) => answer(res, 500, { error: { code: 'internal', message: 'boom', status: 500, details: { where: 'x' } } }),
    TransportRemoteError,
    true,
    500,
    (e) => {
      assert.equal(e.code, 'internal');
      assert.deepEqual(e.details, { where: 'x' });
    },
  ],
  ['500 without a body', (res) => answer(res, 500), TransportRemoteError, true, 500],
  [
    '503 with a plain-text body',
    (res) => answer(res, 503, 'down for maintenance'),
    TransportRemoteError,
    true,
    503,
    (e) => assert.match(e.message, /down for maintenance/),
  ],
  [
    '404 with an error body',
    (res) => answer(res, 404, { error: { code: 'not_found', message: 'no such route', status: 404 } }),
    TransportRemoteError,
    false,
    404,
    (e) => assert.equal(e.code, 'not_found'),
  ],
  ['404 without a body', (res) => answer(res, 404), TransportRemoteError, false, 404],
  ['400 without a body', (res) => answer(res, 400), TransportRemoteError, false, 400],
  [
    '413 payload_too_large',
    (res) =>
      answer(res, 413, { error: { code: 'payload_too_large', message: 'big', status: 413, details: { limit: 10, size: 20 } } }),
    TransportLimitError,
    false,
    413,
    (e) => {
      assert.equal(e.limit, 10);
      assert.equal(e.size, 20);
    },
  ],
  ['200 with malformed JSON', (res) => answer(res, 200, '{"id":'), TransportProtocolError, false, 200],
  [
    'connection dropped mid-response (HTTP-layer disconnect)',
    (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 50 });
      res.write('{"id":"par');
      setImmediate(() => res.socket?.destroy());
    },
    TransportProtocolError,
    true,
    null,
  ],
  ['connection dropped before the response', (res) => res.socket?.destroy(), TransportProtocolError, true, null],
  ['port refused', 'refused', TransportConnectionError, true, null],
];

for (const [label, peer, kind, retryable, statusCode, check] of rows) {
  test(`http peer: ${label} -> ${kind.name}, retryable ${retryable}`, async (t) => {
    const server = peer === 'refused' ? null : await rawServer(t, (_req, res) => peer(res));
    const url = server ? server.url : await refusedUrl();
    const transport = await client(t, 'http', url);
    const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'e' }));
    assert.ok(error instanceof kind, `expected ${kind.name}, got ${String(error)}`);
    assert.ok(error instanceof TransportError);
    assert.equal(error.retryable, retryable);
    assert.equal(error.statusCode, statusCode);
    assert.equal(error.url, url);
    assert.equal(typeof error.message, 'string');
    assert.ok(error.message.length > 0);
    if (server) assert.equal(error.requestId, header(server.requests[0]!, 'x-svc-request-id'));
    else assert.match(String(error.requestId), /^[0-9a-f-]{36}$/);
    check?.(error);
  });
}

test('http peer that never answers: deadline (timeoutMs) -> TransportTimeoutError, retryable', async (t) => {
  const server = await rawServer(t, () => undefined);
  const transport = await client(t, 'http', server.url);
  // Long enough for a loaded machine to get the request to the peer, which the test checks.
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'e' }, { timeoutMs: 1_000 }));
  assert.ok(error instanceof TransportTimeoutError, String(error));
  assert.equal(error.retryable, true);
  assert.equal(error.url, server.url);
  await waitFor(() => server.requests.length === 1, 'the request reached the peer');
  assert.equal(error.requestId, header(server.requests[0]!, 'x-svc-request-id'));
});

test('http peer that never answers: deadline (timeout config, seconds) -> TransportTimeoutError', async (t) => {
  const server = await rawServer(t, () => undefined);
  const transport = await client(t, 'http', server.url, { timeout: 0.03 });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'e' }));
  assert.ok(error instanceof TransportTimeoutError, String(error));
});

test('a caller abort is not a timeout: the abort reason passes through', async (t) => {
  const server = await rawServer(t, () => undefined);
  const transport = await client(t, 'http', server.url);
  const aborter = new AbortController();
  const call = new AgentOperationsClient(transport).sendTask({ id: 'e' }, { signal: aborter.signal });
  await waitFor(() => server.requests.length === 1, 'request arrived');
  const reason = new Error('user cancelled');
  aborter.abort(reason);
  const error = await rejection(call);
  assert.ok(!(error instanceof TransportTimeoutError));
  assert.equal(error, reason);
});
