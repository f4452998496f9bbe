// classifyNodeFailure, one row per Node error code and per shape of cause chain, then the two
// mappings that use it (node:http-family sockets and grpc calls) and one real TLS mismatch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metadata } from '@grpc/grpc-js';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { LazyAbort } from '../../src/core/lazy-abort.js';
import type { OutboundCall } from '../../src/transport/binding.js';
import { TransportConnectionError, TransportProtocolError, TransportRemoteError } from '../../src/transport/errors.js';
import { errorFromCall } from '../../src/transport/grpc/errors.js';
import { classifyNodeFailure, type NodeFailureKind } from '../../src/transport/node-failures.js';
import { answer, client, ops, rawServer, rejection } from '../support/transport-fixtures.js';

/** An error as Node raises it: a message and a string `code`, optionally with a cause. */
function nodeError(code: string | undefined, cause?: unknown): Error {
  const error = new Error(`failure ${code ?? '(no code)'}`, cause === undefined ? undefined : { cause });
  if (code !== undefined) Object.assign(error, { code });
  return error;
}

const codes: Array<[string, NodeFailureKind]> = [
  ['ECONNREFUSED', 'cannot_connect'],
  ['ENOTFOUND', 'cannot_connect'],
  ['EAI_AGAIN', 'cannot_connect'],
  ['EHOSTUNREACH', 'cannot_connect'],
  ['ENETUNREACH', 'cannot_connect'],
  ['EADDRNOTAVAIL', 'cannot_connect'],
  ['ETIMEDOUT', 'cannot_connect'],
  ['ECONNRESET', 'dropped'],
  ['EPIPE', 'dropped'],
  ['ECONNABORTED', 'dropped'],
  ['ERR_STREAM_PREMATURE_CLOSE', 'dropped'],
  ['ERR_HTTP2_GOAWAY_SESSION', 'dropped'],
  ['ERR_HTTP2_SESSION_ERROR', 'dropped'],
  ['ERR_HTTP2_STREAM_ERROR', 'dropped'],
  ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
  ['ERR_TLS_HANDSHAKE_TIMEOUT', 'tls'],
  ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
  ['EPROTO', 'tls'],
  ['CERT_HAS_EXPIRED', 'tls'],
  ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
  ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls'],
  ['ENOENT', 'other'],
  ['ERR_INVALID_URL', 'other'],
];

for (const [code, kind] of codes) {
  test(`classifyNodeFailure: ${code} is ${kind}`, () => {
    assert.deepEqual(classifyNodeFailure(nodeError(code)), { kind, code });
  });
}

const cycle = nodeError(undefined);
Object.defineProperty(cycle, 'cause', { value: nodeError(undefined, cycle) });

const chains: Array<[string, unknown, NodeFailureKind, string | undefined]> = [
  ['an error without a code', new Error('plain'), 'other', undefined],
  ['not an Error at all', 'ECONNREFUSED', 'other', undefined],
  ['undefined', undefined, 'other', undefined],
  ['the Node error one cause down', new Error('wrapper', { cause: nodeError('ECONNREFUSED') }), 'cannot_connect', 'ECONNREFUSED'],
  [
    'two causes down (fetch-style)',
    new TypeError('fetch failed', { cause: new Error('x', { cause: nodeError('ECONNRESET') }) }),
    'dropped',
    'ECONNRESET',
  ],
  ['an unknown code wrapping a known one', nodeError('ERR_SOMETHING', nodeError('CERT_HAS_EXPIRED')), 'tls', 'CERT_HAS_EXPIRED'],
  ['the outermost known code wins', nodeError('ECONNRESET', nodeError('ECONNREFUSED')), 'dropped', 'ECONNRESET'],
  [
    'a numeric code (a grpc-js ServiceError) is skipped',
    Object.assign(new Error('connect'), { code: 14, cause: nodeError('EPIPE') }),
    'dropped',
    'EPIPE',
  ],
  ['only unknown codes: the first is reported', nodeError('ERR_A', nodeError('ERR_B')), 'other', 'ERR_A'],
  ['a cause cycle ends', cycle, 'other', undefined],
];

for (const [label, error, kind, code] of chains) {
  test(`classifyNodeFailure: ${label} -> ${kind}`, () => {
    assert.deepEqual(classifyNodeFailure(error), { kind, code });
  });
}

// grpc's errorFromCall: a grpc-js call fails with a ServiceError (numeric code, details), whose
// cause the client sets to the Node failure of the channel's connection.
function serviceError(grpcCode: number, cause: unknown): Error {
  const error = new Error(`${grpcCode} call failed`, { cause });
  return Object.assign(error, { code: grpcCode, details: 'call failed', metadata: new Metadata() });
}

const grpcCall = {
  cancellation: new LazyAbort(),
  url: 'grpc://127.0.0.1:1',
  requestId: 'r-1',
  spec: ops.sendTask,
} as unknown as OutboundCall;

const grpcRows: Array<[string, unknown, new (...args: never[]) => Error, boolean, string | null]> = [
  [
    'UNAVAILABLE wrapping ECONNREFUSED',
    serviceError(14, nodeError('ECONNREFUSED')),
    TransportConnectionError,
    true,
    'UNAVAILABLE',
  ],
  ['UNAVAILABLE wrapping ETIMEDOUT', serviceError(14, nodeError('ETIMEDOUT')), TransportConnectionError, true, 'UNAVAILABLE'],
  [
    'UNAVAILABLE wrapping a certificate failure',
    serviceError(14, nodeError('DEPTH_ZERO_SELF_SIGNED_CERT')),
    TransportConnectionError,
    false,
    'UNAVAILABLE',
  ],
  [
    'INTERNAL wrapping ERR_HTTP2_STREAM_ERROR',
    serviceError(13, nodeError('ERR_HTTP2_STREAM_ERROR')),
    TransportRemoteError,
    true,
    'INTERNAL',
  ],
  ['UNKNOWN wrapping ECONNRESET', serviceError(2, nodeError('ECONNRESET')), TransportProtocolError, true, 'UNKNOWN'],
  ['a bare EPIPE', nodeError('EPIPE'), TransportProtocolError, true, null],
  ['a bare unknown failure', nodeError('ENOENT'), TransportConnectionError, true, null],
];

for (const [label, error, kind, retryable, statusCode] of grpcRows) {
  test(`grpc errorFromCall: ${label} -> ${kind.name}`, () => {
    const mapped = errorFromCall(error, grpcCall) as TransportConnectionError;
    assert.ok(mapped instanceof kind, String(mapped));
    assert.equal(mapped.retryable, retryable);
    assert.equal(mapped.statusCode, statusCode);
    assert.equal(mapped.cause, error);
  });
}

test('http: an https client facing a plain HTTP server fails the TLS handshake, not retried', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 200, '{}'));
  const url = peer.url.replace('http://', 'https://');
  const transport = await client(t, 'http', url, { retry: { maxAttempts: 3, initialBackoff: 0, maxBackoff: 0, jitter: 0 } });
  const error = await rejection(new AgentOperationsClient(transport).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportConnectionError, String(error));
  assert.equal(error.retryable, false);
  assert.equal(classifyNodeFailure(error.cause).kind, 'tls');
  assert.equal(transport.health().metrics.retries, 0);
});
