// remoteErrorFrom, one row per shape of wire error object a peer can send: the class, code,
// status_code and retryable it becomes. Retryability follows isRetryableHttpStatus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isRetryableHttpStatus, TransportLimitError, TransportRemoteError } from '../../src/transport/errors.js';
import { remoteErrorFrom } from '../../src/transport/wire-errors.js';

interface Row {
  readonly label: string;
  readonly wire: unknown;
  readonly fallbackStatus?: number;
  readonly retryable?: boolean;
  readonly expect: {
    readonly kind: typeof TransportRemoteError | typeof TransportLimitError;
    readonly code: string;
    readonly message: string;
    readonly statusCode: number | null;
    readonly retryable: boolean;
    readonly limitKind?: 'request' | 'response';
    readonly limit?: number;
    readonly size?: number;
    readonly details?: unknown;
  };
}

const remote = TransportRemoteError;
const rows: Row[] = [
  {
    label: 'a full 404',
    wire: { code: 'not_found', message: 'no such task', status: 404, request_id: 'r' },
    expect: { kind: remote, code: 'not_found', message: 'no such task', statusCode: 404, retryable: false },
  },
  {
    label: 'a 400 with details',
    wire: { code: 'invalid_request', message: 'bad', status: 400, details: { issues: [] } },
    expect: { kind: remote, code: 'invalid_request', message: 'bad', statusCode: 400, retryable: false, details: { issues: [] } },
  },
  {
    label: '429 is retryable',
    wire: { code: 'resource_exhausted', message: 'full', status: 429 },
    expect: { kind: remote, code: 'resource_exhausted', message: 'full', statusCode: 429, retryable: true },
  },
  {
    label: '500 is retryable',
    wire: { code: 'internal', message: 'boom', status: 500 },
    expect: { kind: remote, code: 'internal', message: 'boom', statusCode: 500, retryable: true },
  },
  {
    label: '503 is retryable',
    wire: { code: 'unavailable', message: 'later', status: 503 },
    expect: { kind: remote, code: 'unavailable', message: 'later', statusCode: 503, retryable: true },
  },
  {
    label: 'an application code keeps its own status',
    wire: { code: 'teapot', message: 'short and stout', status: 418 },
    expect: { kind: remote, code: 'teapot', message: 'short and stout', statusCode: 418, retryable: false },
  },
  {
    label: 'no status: the fallback applies',
    wire: { code: 'internal', message: 'gateway' },
    fallbackStatus: 502,
    expect: { kind: remote, code: 'internal', message: 'gateway', statusCode: 502, retryable: true },
  },
  {
    label: 'the object status wins over the fallback',
    wire: { code: 'conflict', message: 'c', status: 409 },
    fallbackStatus: 500,
    expect: { kind: remote, code: 'conflict', message: 'c', statusCode: 409, retryable: false },
  },
  {
    label: 'no status and no fallback',
    wire: { code: 'internal', message: 'm' },
    expect: { kind: remote, code: 'internal', message: 'm', statusCode: null, retryable: false },
  },
  {
    label: 'an explicit retryable overrides the status rule',
    wire: { code: 'internal', message: 'handler failed', status: 500 },
    retryable: false,
    expect: { kind: remote, code: 'internal', message: 'handler failed', statusCode: 500, retryable: false },
  },
  {
    label: 'no code',
    wire: { message: 'odd', status: 400 },
    expect: { kind: remote, code: 'remote_error', message: 'odd', statusCode: 400, retryable: false },
  },
  {
    label: 'no message',
    wire: { code: 'not_found', status: 404 },
    expect: { kind: remote, code: 'not_found', message: 'remote error (status 404)', statusCode: 404, retryable: false },
  },
  {
    label: 'a string status is not a status',
    wire: { code: 'x', message: 'm', status: '500' },
    expect: { kind: remote, code: 'x', message: 'm', statusCode: null, retryable: false },
  },
  {
    label: 'null',
    wire: null,
    expect: { kind: remote, code: 'remote_error', message: 'remote error', statusCode: null, retryable: false },
  },
  {
    label: 'a bare string',
    wire: 'boom',
    expect: { kind: remote, code: 'remote_error', message: 'remote error', statusCode: null, retryable: false },
  },
  {
    label: 'payload_too_large: the peer refused our request',
    wire: { code: 'payload_too_large', message: 'big', status: 413, details: { limit: 10, size: 20 } },
    expect: {
      kind: TransportLimitError,
      code: 'payload_too_large',
      message: 'big',
      statusCode: 413,
      retryable: false,
      limitKind: 'request',
      limit: 10,
      size: 20,
    },
  },
  {
    label: 'response_too_large: the peer could not send its answer',
    wire: { code: 'response_too_large', message: 'huge', status: 500, details: { limit: 5, size: 9 } },
    expect: {
      kind: TransportLimitError,
      code: 'response_too_large',
      message: 'huge',
      statusCode: 500,
      retryable: false,
      limitKind: 'response',
      limit: 5,
      size: 9,
    },
  },
  {
    label: 'a limit error without status or details',
    wire: { code: 'response_too_large', message: 'huge' },
    expect: {
      kind: TransportLimitError,
      code: 'response_too_large',
      message: 'huge',
      statusCode: 500,
      retryable: false,
      limitKind: 'response',
      limit: 0,
      size: 0,
    },
  },
  {
    label: 'a limit error with malformed details',
    wire: { code: 'payload_too_large', message: 'big', status: 413, details: { limit: '10', size: null } },
    expect: {
      kind: TransportLimitError,
      code: 'payload_too_large',
      message: 'big',
      statusCode: 413,
      retryable: false,
      limitKind: 'request',
      limit: 0,
      size: 0,
    },
  },
];

for (const { label, wire, fallbackStatus, retryable, expect } of rows) {
  test(`remoteErrorFrom: ${label} -> ${expect.kind.name} ${expect.code}`, () => {
    const error = remoteErrorFrom(wire, 'http://peer', 'r-1', fallbackStatus, retryable);
    assert.ok(error instanceof expect.kind, String(error));
    assert.equal(error.code, expect.code);
    assert.equal(error.message, expect.message);
    assert.equal(error.statusCode, expect.statusCode);
    assert.equal(error.retryable, expect.retryable);
    assert.equal(error.url, 'http://peer');
    assert.equal(error.requestId, 'r-1');
    if (error instanceof TransportLimitError) {
      assert.equal(error.kind, expect.limitKind);
      assert.equal(error.limit, expect.limit);
      assert.equal(error.size, expect.size);
    } else {
      assert.deepEqual(error.details, expect.details);
    }
  });
}

test('remoteErrorFrom retries by the same rule as isRetryableHttpStatus, for every status', () => {
  for (let status = 400; status <= 599; status++) {
    const error = remoteErrorFrom({ code: 'some_code', message: 'm', status }, 'http://peer', null);
    assert.equal(error.retryable, isRetryableHttpStatus(status), `status ${status}`);
  }
});
