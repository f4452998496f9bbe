// EndpointError takes a parley code's status from ERROR_STATUS (one row per code) and an
// application code's from its options; toEndpointError, one row per kind of thrown value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_STATUS } from '../../generated/errors/error-status.js';
import type { ErrorCode } from '../../generated/types/index.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { EndpointError, toEndpointError } from '../../src/transport/endpoint-error.js';
import { TransportLimitError, TransportRemoteError } from '../../src/transport/errors.js';

for (const [code, status] of Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>) {
  test(`EndpointError('${code}') is sent with ${status}`, () => {
    const error = new EndpointError(code, 'm', { why: 1 });
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    assert.deepEqual(error.toObject('r'), { code, message: 'm', status, request_id: 'r', details: { why: 1 } });
  });
}

test('an application code carries the status it names', () => {
  const error = new EndpointError('quota_exceeded', 'out of credits', undefined, { status: 402 });
  assert.equal(error.status, 402);
  assert.deepEqual(error.toObject(null), { code: 'quota_exceeded', message: 'out of credits', status: 402, request_id: null });
});

test('a parley code may repeat its own status', () => {
  assert.equal(new EndpointError('conflict', 'm', undefined, { status: 409 }).status, 409);
});

const refused: Array<[string, () => EndpointError]> = [
  ['a parley code with another status', () => new EndpointError('conflict', 'm', undefined, { status: 404 })],
  ['an application code without a status', () => new (EndpointError as any)('quota_exceeded', 'm')],
  ['an application code with a 2xx status', () => new EndpointError('quota_exceeded', 'm', undefined, { status: 200 })],
  ['an application code with a status past 599', () => new EndpointError('quota_exceeded', 'm', undefined, { status: 600 })],
  ['an application code with a fractional status', () => new EndpointError('quota_exceeded', 'm', undefined, { status: 450.5 })],
  ['a code named like an Object.prototype member', () => new (EndpointError as any)('constructor', 'm')],
];
for (const [label, build] of refused) {
  test(`EndpointError refuses ${label}`, () => {
    assert.throws(build, (error: unknown) => error instanceof InvalidArgumentError && error.code === 'invalid_error_status');
  });
}

const limit = (kind: 'request' | 'response' | 'event', message: string) =>
  new TransportLimitError(message, { kind, limit: 10, size: 11 });

// [label, thrown value, code, status, message, details]
const rows: Array<[string, unknown, string, number, string, unknown]> = [
  [
    'a request over its limit',
    limit('request', 'request of 11 bytes exceeds the 10-byte limit'),
    'payload_too_large',
    413,
    'request of 11 bytes exceeds the 10-byte limit',
    { limit: 10, size: 11 },
  ],
  [
    'a response over its limit',
    limit('response', 'response of 11 bytes exceeds the 10-byte limit'),
    'response_too_large',
    500,
    'response of 11 bytes exceeds the 10-byte limit',
    { limit: 10, size: 11 },
  ],
  [
    'an event over its limit',
    limit('event', 'event of 11 bytes exceeds the 10-byte limit'),
    'response_too_large',
    500,
    'event of 11 bytes exceeds the 10-byte limit',
    { limit: 10, size: 11 },
  ],
  // The kind decides, not the wording.
  [
    'a request limit whose message starts with "response"',
    limit('request', 'response-sized request'),
    'payload_too_large',
    413,
    'response-sized request',
    { limit: 10, size: 11 },
  ],
  [
    'a response limit whose message starts with "request"',
    limit('response', 'request answered too big'),
    'response_too_large',
    500,
    'request answered too big',
    { limit: 10, size: 11 },
  ],
  [
    'an event limit with a message of another shape',
    limit('event', 'frame too big'),
    'response_too_large',
    500,
    'frame too big',
    { limit: 10, size: 11 },
  ],
  ['an Error', new Error('boom'), 'internal', 500, 'boom', undefined],
  ['an Error with no message', new Error(''), 'internal', 500, 'internal error', undefined],
  [
    'a transport error from a call the handler made',
    new TransportRemoteError('peer said no', { statusCode: 404 }),
    'internal',
    500,
    'peer said no',
    undefined,
  ],
  ['a string', 'plain text', 'internal', 500, 'plain text', undefined],
  ['undefined', undefined, 'internal', 500, 'undefined', undefined],
];

for (const [label, thrown, code, status, message, details] of rows) {
  test(`toEndpointError: ${label} -> ${status} ${code}`, () => {
    const error = toEndpointError(thrown);
    assert.ok(error instanceof EndpointError);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    assert.equal(error.message, message);
    assert.deepEqual(error.details, details);
  });
}

test('toEndpointError: an EndpointError passes through as it is', () => {
  const original = new EndpointError('quota_exceeded', 'out of credits', { plan: 'free' }, { status: 402 });
  assert.equal(toEndpointError(original), original);
});
