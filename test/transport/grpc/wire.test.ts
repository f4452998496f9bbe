// The parley grpc server against independent peers: @grpc/grpc-js clients built by
// proto-loader from transport.proto (binary protobuf), grpc-js clients with pass-through JSON
// serializers (the spec's wire), and a raw node:http2 client for what grpc-js cannot show
// (content types, exact bytes, HTTP/2 settings).
import assert from 'node:assert/strict';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { status as GrpcCode } from '@grpc/grpc-js';
import { InvokeRequestSchema, InvokeResponseSchema } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import type { Transport } from '../../../src/transport/transport.js';
import { bytesOf, waitFor } from '../../support/transport-fixtures.js';
import {
  INVOKE_PATH,
  STREAM_PATH,
  agentEndpoints,
  binaryClient,
  envelopeOf,
  jsonClient,
  keyAuthenticator,
  rawBytesClient,
  serveGrpc,
  statusOf,
  streamCall,
  toStruct,
  toValue,
  unaryCall,
} from '../../support/grpc-peers.js';

/** A raw HTTP/2 connection to the server, closed when the test ends. */
function session(t: { after(fn: () => unknown): void }, url: string): ClientHttp2Session {
  const client = http2Connect(`http://${new URL(url).host}`);
  client.on('error', () => undefined);
  t.after(() => client.close());
  return client;
}

/** A length-prefixed gRPC message; `declared` may claim more bytes than follow (a truncated one). */
function frame(message: Buffer, declared = message.length): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(declared, 1);
  return Buffer.concat([prefix, message]);
}

/** A message carrying the JSON text of `value`, as pass-through JSON peers send it. */
const jsonFrame = (value: unknown) => frame(Buffer.from(JSON.stringify(value)));

interface RawAnswer {
  readonly headers: Record<string, unknown>;
  readonly body: Buffer;
  readonly trailers: Record<string, unknown>;
  /** grpc-status, from the trailers or a trailers-only answer. */
  readonly status: number;
  /** grpc-message as it came on the wire (percent-encoded). */
  readonly statusMessage: string;
}

/** One call whose request body is `body` exactly. */
function call(client: ClientHttp2Session, path: string, contentType: string, body: Buffer) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const stream = client.request({ ':method': 'POST', ':path': path, 'content-type': contentType, te: 'trailers' });
    let headers: Record<string, unknown> = {};
    let trailers: Record<string, unknown> = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (h) => (trailers = h));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const status = Number(trailers['grpc-status'] ?? headers['grpc-status']);
      const statusMessage = String(trailers['grpc-message'] ?? headers['grpc-message'] ?? '');
      resolve({ headers, body: Buffer.concat(chunks), trailers, status, statusMessage });
    });
    stream.on('error', reject);
    stream.end(body);
  });
}

/** The JSON messages of an answer's body, in order. */
function messagesOf(answer: RawAnswer): any[] {
  const messages: any[] = [];
  for (let at = 0; at < answer.body.length; ) {
    const length = answer.body.readUInt32BE(at + 1);
    messages.push(JSON.parse(answer.body.subarray(at + 5, at + 5 + length).toString('utf8')));
    at += 5 + length;
  }
  return messages;
}

/** The server's request counters (spec: Health payload). */
function requestCounts(server: Transport): { started: number; failed: number } {
  const { requests_started: started, requests_failed: failed } = server.health().metrics;
  return { started, failed };
}

describe('binary protobuf (grpc-js + proto-loader)', () => {
  it('Invoke carries the envelope and echoes its id', async (t) => {
    const fixture = agentEndpoints();
    const server = await serveGrpc(t, fixture.endpoints);
    const client = binaryClient(t, server.url);
    const response = await unaryCall(client, 'Invoke', {
      id: 'req-1',
      method: 'POST',
      path: '/tasks/',
      data: toValue({ id: 't1', messages: [] }),
      params: toStruct({}),
      idempotency_key: 'key-1',
    });
    assert.deepEqual(envelopeOf(response), {
      id: 'req-1',
      ok: true,
      result: { id: 't1', messages: [], state: 'completed' },
      final: true,
    });
    assert.equal(fixture.contexts[0]!.requestId, 'req-1');
    assert.equal(fixture.contexts[0]!.idempotencyKey, 'key-1');
  });

  it('refuses an envelope without an id, as websocket does, naming the metadata request id in the error', async (t) => {
    const fixture = agentEndpoints();
    const server = await serveGrpc(t, fixture.endpoints);
    const client = binaryClient(t, server.url);
    const response = envelopeOf(
      await unaryCall(
        client,
        'Invoke',
        { method: 'POST', path: '/tasks/', data: toValue({ id: 't2' }) },
        { 'x-svc-request-id': 'from-metadata', 'idempotency-key': 'meta-key' },
      ),
    );
    assert.equal(response.ok, false);
    assert.equal((response.error as any).code, 'invalid_request');
    assert.equal((response.error as any).request_id, 'from-metadata');
    assert.equal(fixture.contexts.length, 0);
  });

  it('takes the idempotency key from metadata when the envelope has none', async (t) => {
    const fixture = agentEndpoints();
    const server = await serveGrpc(t, fixture.endpoints);
    const client = binaryClient(t, server.url);
    const response = await unaryCall(
      client,
      'Invoke',
      { id: 'r2', method: 'POST', path: '/tasks/', data: toValue({ id: 't2' }) },
      { 'idempotency-key': 'meta-key' },
    );
    assert.equal(response.id, 'r2');
    assert.equal(fixture.contexts[0]!.idempotencyKey, 'meta-key');
  });

  it('the envelope id and idempotency_key win over the metadata', async (t) => {
    const fixture = agentEndpoints();
    const server = await serveGrpc(t, fixture.endpoints);
    const client = binaryClient(t, server.url);
    const response = await unaryCall(
      client,
      'Invoke',
      { id: 'from-envelope', method: 'POST', path: '/tasks/', data: toValue({ id: 't3' }), idempotency_key: 'env-key' },
      { 'x-svc-request-id': 'from-metadata', 'idempotency-key': 'meta-key' },
    );
    assert.equal(response.id, 'from-envelope');
    assert.equal(fixture.contexts[0]!.requestId, 'from-envelope');
    assert.equal(fixture.contexts[0]!.idempotencyKey, 'env-key');
  });

  it('Stream yields every event in order, the last one final', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = binaryClient(t, server.url);
    const events = await streamCall(client, 'Stream', {
      id: 'stream-1',
      method: 'POST',
      path: '/tasks/stream',
      data: toValue({ id: 'task-s' }),
    });
    assert.deepEqual(events.map(envelopeOf), [
      { id: 'stream-1', ok: true, result: { type: 'task_status', state: 'working', task_id: 'task-s' }, final: false },
      { id: 'stream-1', ok: true, result: { type: 'task_status', state: 'working', step: 2 }, final: false },
      { id: 'stream-1', ok: true, result: { type: 'task_completed', task: { id: 'task-s', state: 'completed' } }, final: true },
    ]);
    assert.equal(server.health().metrics.streams_completed, 1);
  });

  it('query parameters travel in params', async (t) => {
    const fixture = agentEndpoints();
    const server = await serveGrpc(t, fixture.endpoints);
    const client = binaryClient(t, server.url);
    await unaryCall(client, 'Invoke', {
      id: 'p',
      method: 'POST',
      path: '/tasks/',
      data: toValue({ id: 'tp' }),
      params: toStruct({ verbose: 'yes', tags: ['a', 'b'], n: 3 }),
    });
    assert.deepEqual(fixture.contexts[0]!.params, { verbose: 'yes', tags: ['a', 'b'], n: '3' });
  });
});

describe('pass-through JSON (grpc-js with JSON serializers, plain application/grpc)', () => {
  it('Invoke answers with exactly the spec envelope', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = jsonClient(t, server.url);
    const response = await unaryCall(client, 'Invoke', {
      id: 'json-1',
      method: 'POST',
      path: '/tasks/',
      data: { id: 'tj', messages: [{ role: 'user', parts: [] }] },
      params: {},
      idempotency_key: 'k',
    });
    assert.deepEqual(response, {
      id: 'json-1',
      ok: true,
      result: { id: 'tj', messages: [{ role: 'user', parts: [] }], state: 'completed' },
      final: true,
    });
  });

  it('Stream answers with one JSON envelope per event', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = jsonClient(t, server.url);
    const events = await streamCall(client, 'Stream', {
      id: 'json-s',
      method: 'POST',
      path: '/tasks/stream',
      data: { id: 'sj' },
    });
    assert.equal(events.length, 3);
    assert.deepEqual(events[0], {
      id: 'json-s',
      ok: true,
      result: { type: 'task_status', state: 'working', task_id: 'sj' },
      final: false,
    });
    assert.deepEqual(
      events.map((event) => event.final),
      [false, false, true],
    );
  });

  it('a JSON message and a binary message are told apart on the same connection', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const json = jsonClient(t, server.url);
    const binary = binaryClient(t, server.url);
    const [a, b] = await Promise.all([
      unaryCall(json, 'Invoke', { id: 'a', method: 'POST', path: '/tasks/', data: { id: 'ja' } }),
      unaryCall(binary, 'Invoke', { id: 'b', method: 'POST', path: '/tasks/', data: toValue({ id: 'jb' }) }),
    ]);
    assert.deepEqual(a.result, { id: 'ja', state: 'completed' });
    assert.deepEqual(envelopeOf(b).result, { id: 'jb', state: 'completed' });
  });
});

describe('raw HTTP/2 peer', () => {
  it('answers JSON sent as application/grpc+proto in JSON, under application/grpc+json', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = session(t, server.url);
    const request = Buffer.from(JSON.stringify({ id: 'raw-1', method: 'POST', path: '/tasks/', data: { id: 'r' } }));
    const answer = await call(client, INVOKE_PATH, 'application/grpc+proto', frame(request));
    assert.equal(answer.headers['content-type'], 'application/grpc+json');
    assert.equal(answer.trailers['grpc-status'], '0');
    const length = answer.body.readUInt32BE(1);
    assert.equal(answer.body[0], 0);
    assert.equal(
      answer.body.subarray(5, 5 + length).toString('utf8'),
      '{"id":"raw-1","ok":true,"result":{"id":"r","state":"completed"},"final":true}',
    );
  });

  it('the ProtoJSON codec (application/grpc+json) is answered under its own content type', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = session(t, server.url);
    const request = Buffer.from(JSON.stringify({ id: 'raw-2', method: 'GET', path: '/healthz' }));
    const answer = await call(client, INVOKE_PATH, 'application/grpc+json', frame(request));
    assert.equal(answer.headers['content-type'], 'application/grpc+json');
    assert.deepEqual(JSON.parse(answer.body.subarray(5).toString('utf8')), {
      id: 'raw-2',
      ok: true,
      result: { status: 'ready' },
      final: true,
    });
  });

  it('answers a binary message in binary under application/grpc+proto', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = session(t, server.url);
    const request = toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { id: 'raw-b', method: 'GET', path: '/healthz' }));
    const answer = await call(client, INVOKE_PATH, 'application/grpc', frame(Buffer.from(request)));
    assert.equal(answer.headers['content-type'], 'application/grpc+proto');
    const response = fromBinary(InvokeResponseSchema, answer.body.subarray(5));
    assert.deepEqual([response.id, response.ok, response.final], ['raw-b', true, true]);
  });

  it('passes grpc.channelOptions keys it does not derive to grpc-js (max_connection_age_ms: GOAWAY)', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, {
      grpc: { channelOptions: { 'grpc.max_connection_age_ms': 50 } },
    });
    const client = session(t, server.url);
    await new Promise<void>((resolve) => client.once('goaway', () => resolve()));
  });

  it('announces the HTTP/2 stream limit derived from maximum_concurrent_rpcs', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, {
      limits: { maxConcurrentStreams: 7 },
      grpc: { maximumConcurrentRpcs: 5 },
    });
    const client = session(t, server.url);
    await new Promise<void>((resolve) => client.once('remoteSettings', () => resolve()));
    assert.equal(client.remoteSettings.maxConcurrentStreams, 12);
  });

  it('pings the connection every keepalive_interval', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { keepaliveInterval: 0.02, keepaliveTimeout: 5 });
    const client = session(t, server.url);
    await new Promise<void>((resolve) => client.once('ping', () => resolve()));
  });
});

describe('authentication via metadata', () => {
  const invoke = { id: 'auth', method: 'POST', path: '/tasks/', data: toValue({ id: 'ta' }) };

  it('a missing credential aborts Invoke with UNAUTHENTICATED', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { authenticator: keyAuthenticator });
    const error = await statusOf(unaryCall(binaryClient(t, server.url), 'Invoke', invoke));
    assert.equal(error.code, GrpcCode.UNAUTHENTICATED);
  });

  it('a bad key aborts Invoke and Stream with UNAUTHENTICATED, for both codecs', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { authenticator: keyAuthenticator });
    const bad = { 'x-api-key': 'bad' };
    const binary = binaryClient(t, server.url);
    const json = jsonClient(t, server.url);
    assert.equal((await statusOf(unaryCall(binary, 'Invoke', invoke, bad))).code, GrpcCode.UNAUTHENTICATED);
    assert.equal(
      (await statusOf(unaryCall(json, 'Invoke', { id: 'j', method: 'POST', path: '/tasks/', data: { id: 'x' } }, bad))).code,
      GrpcCode.UNAUTHENTICATED,
    );
    const streamError = await statusOf(
      streamCall(binary, 'Stream', { id: 's', method: 'POST', path: '/tasks/stream', data: toValue({ id: 's' }) }, bad),
    );
    assert.equal(streamError.code, GrpcCode.UNAUTHENTICATED);
    assert.match(streamError.details, /Invalid API key/);
  });

  it('accepts the key in x-api-key or in authorization with the ApiKey prefix', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { authenticator: keyAuthenticator });
    const client = binaryClient(t, server.url);
    assert.equal((await unaryCall(client, 'Invoke', invoke, { 'x-api-key': 'good' })).ok, true);
    assert.equal((await unaryCall(client, 'Invoke', invoke, { authorization: 'ApiKey good' })).ok, true);
    const events = await streamCall(
      client,
      'Stream',
      { id: 's', method: 'POST', path: '/tasks/stream', data: toValue({ id: 's' }) },
      { authorization: 'Bearer good' },
    );
    assert.equal(events.length, 3);
  });

  it('public routes need no credential', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { authenticator: keyAuthenticator });
    const response = await unaryCall(jsonClient(t, server.url), 'Invoke', { id: 'h', method: 'GET', path: '/healthz' });
    assert.deepEqual(response.result, { status: 'ready' });
  });
});

describe('bad input', () => {
  it('a message that is neither protobuf nor JSON gets an error status; the server keeps serving', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const error = await statusOf(unaryCall(rawBytesClient(t, server.url), 'Invoke', Buffer.from([0xff, 0xff, 0xff])));
    // INTERNAL, as gRPC servers answer a message they cannot unmarshal.
    assert.equal(error.code, GrpcCode.INTERNAL);
    const response = await unaryCall(jsonClient(t, server.url), 'Invoke', { id: 'after', method: 'GET', path: '/healthz' });
    assert.equal(response.ok, true);
  });

  it('JSON that does not fit the envelope gets INVALID_ARGUMENT', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const error = await statusOf(unaryCall(jsonClient(t, server.url), 'Invoke', { id: 5, method: 'GET', path: '/healthz' }));
    assert.equal(error.code, GrpcCode.INVALID_ARGUMENT);
  });

  it('an envelope without method or path answers ok:false invalid_request', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const json = await unaryCall(jsonClient(t, server.url), 'Invoke', { id: 'no-path', method: 'POST' });
    assert.equal(json.ok, false);
    assert.equal(json.final, true);
    assert.equal(json.error.code, 'invalid_request');
    assert.equal(json.error.status, 400);
    assert.equal(json.error.request_id, 'no-path');
    const binary = envelopeOf(await unaryCall(binaryClient(t, server.url), 'Invoke', { id: 'no-method', path: '/tasks/' }));
    assert.equal(binary.ok, false);
    assert.equal((binary.error as any).code, 'invalid_request');
    const events = await streamCall(jsonClient(t, server.url), 'Stream', { id: 'no-method-s', path: '/tasks/stream' });
    assert.equal(events.length, 1);
    assert.equal(events[0].ok, false);
    assert.equal(events[0].final, true);
    assert.equal(events[0].error.code, 'invalid_request');
  });

  it('an unknown path answers ok:false not_found; a wrong method ok:false method_not_allowed', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = jsonClient(t, server.url);
    const missing = await unaryCall(client, 'Invoke', { id: 'nf', method: 'GET', path: '/nowhere' });
    assert.deepEqual(missing, {
      id: 'nf',
      ok: false,
      error: { code: 'not_found', message: 'no endpoint for GET /nowhere', status: 404, request_id: 'nf' },
      final: true,
    });
    const wrong = await unaryCall(client, 'Invoke', { id: 'mna', method: 'DELETE', path: '/tasks/' });
    assert.equal(wrong.error.code, 'method_not_allowed');
    assert.equal(wrong.error.status, 405);
    const stream = await streamCall(client, 'Stream', { id: 'nfs', method: 'POST', path: '/nowhere/stream' });
    assert.equal(stream.length, 1);
    assert.equal(stream[0].error.code, 'not_found');
  });

  it('a body that fails validation answers ok:false invalid_request with the issues', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const response = await unaryCall(jsonClient(t, server.url), 'Invoke', {
      id: 'v',
      method: 'POST',
      path: '/tasks/',
      data: { id: 5 },
    });
    assert.equal(response.ok, false);
    assert.equal(response.error.code, 'invalid_request');
    assert.ok(Array.isArray(response.error.details.issues));
  });

  it('a request over max_request_bytes answers ok:false payload_too_large (not a retryable status)', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { limits: { maxRequestBytes: 64 } });
    const response = await unaryCall(jsonClient(t, server.url), 'Invoke', {
      id: 'big',
      method: 'POST',
      path: '/tasks/',
      data: { id: 'x'.repeat(100) },
    });
    assert.equal(response.ok, false);
    assert.equal(response.error.code, 'payload_too_large');
    assert.equal(response.error.status, 413);
  });

  it('a message over the receive limit gets RESOURCE_EXHAUSTED', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, {
      grpc: { channelOptions: { 'grpc.max_receive_message_length': 256 } },
    });
    const error = await statusOf(
      unaryCall(jsonClient(t, server.url), 'Invoke', {
        id: 'huge',
        method: 'POST',
        path: '/tasks/',
        data: { id: 'y'.repeat(400) },
      }),
    );
    assert.equal(error.code, GrpcCode.RESOURCE_EXHAUSTED);
  });

  it('counts each call refused before dispatch once, Invoke and Stream alike, and keeps serving', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = session(t, server.url);
    const { INTERNAL, INVALID_ARGUMENT, OK } = GrpcCode;
    const garbage = frame(Buffer.from([0xff, 0xff, 0xff]));
    const streamTask = { id: 's', method: 'POST', path: '/tasks/stream', data: { id: 's' } };
    const streamText = Buffer.from(JSON.stringify(streamTask));
    const truncated = frame(streamText.subarray(0, 20), streamText.length);
    // [what, method path, request body, grpc-status, error code of the ok:false envelope]
    const cases: Array<[string, string, Buffer, number, string?]> = [
      ['Invoke, neither protobuf nor JSON', INVOKE_PATH, garbage, INTERNAL],
      ['Invoke, truncated message', INVOKE_PATH, truncated, INVALID_ARGUMENT],
      ['Invoke, broken JSON', INVOKE_PATH, frame(Buffer.from('{"id":"x","method":')), INVALID_ARGUMENT],
      ['Invoke, no path', INVOKE_PATH, jsonFrame({ id: 'np', method: 'POST' }), OK, 'invalid_request'],
      ['Invoke, unknown path', INVOKE_PATH, jsonFrame({ id: 'nf', method: 'GET', path: '/nowhere' }), OK, 'not_found'],
      // Refused by the dispatcher, which counts it: once, not twice.
      [
        'Invoke, body failing its schema',
        INVOKE_PATH,
        jsonFrame({ ...streamTask, path: '/tasks/', data: { id: 5 } }),
        OK,
        'invalid_request',
      ],
      ['Stream, neither protobuf nor JSON', STREAM_PATH, garbage, INTERNAL],
      ['Stream, truncated message', STREAM_PATH, truncated, INVALID_ARGUMENT],
      ['Stream, no method', STREAM_PATH, jsonFrame({ id: 'nm', path: '/tasks/stream' }), OK, 'invalid_request'],
      ['Stream, unknown path', STREAM_PATH, jsonFrame({ ...streamTask, path: '/nowhere' }), OK, 'not_found'],
    ];
    for (const [n, [what, path, body, status, error]] of cases.entries()) {
      const answer = await call(client, path, 'application/grpc', body);
      assert.equal(answer.status, status, `${what}: ${decodeURIComponent(answer.statusMessage)}`);
      if (error)
        assert.deepEqual(
          messagesOf(answer).map((message) => message.error.code),
          [error],
          what,
        );
      assert.deepEqual(requestCounts(server), { started: n + 1, failed: n + 1 }, what);
    }
    const served = await call(client, INVOKE_PATH, 'application/grpc', jsonFrame({ ...streamTask, path: '/tasks/' }));
    assert.equal(messagesOf(served)[0].ok, true);
    const streamed = await call(client, STREAM_PATH, 'application/grpc', frame(streamText));
    assert.equal(messagesOf(streamed).at(-1).final, true);
    // A stream the dispatcher refuses is a failed stream, not a request as well.
    const refusedStream = await call(client, STREAM_PATH, 'application/grpc', jsonFrame({ ...streamTask, data: { id: 5 } }));
    assert.equal(messagesOf(refusedStream)[0].error.code, 'invalid_request');
    const metrics = server.health().metrics;
    assert.deepEqual(requestCounts(server), { started: cases.length + 1, failed: cases.length });
    assert.deepEqual([metrics.streams_started, metrics.streams_completed, metrics.streams_failed], [2, 1, 1]);
  });

  it('counts the bytes of a refused call and of the error it was answered with', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = session(t, server.url);
    const garbage = frame(Buffer.from([0xff, 0xff, 0xff]));
    const refused = await call(client, INVOKE_PATH, 'application/grpc', garbage);
    assert.equal(refused.status, GrpcCode.INTERNAL);
    assert.equal(server.health().metrics.bytes_received, garbage.length);
    assert.equal(server.health().metrics.bytes_sent, Buffer.byteLength(refused.statusMessage));
    const unknown = jsonFrame({ id: 'nf', method: 'GET', path: '/nowhere' });
    const [envelope] = messagesOf(await call(client, INVOKE_PATH, 'application/grpc', unknown));
    assert.equal(envelope.error.code, 'not_found');
    assert.equal(server.health().metrics.bytes_received, garbage.length + unknown.length);
    assert.equal(server.health().metrics.bytes_sent, Buffer.byteLength(refused.statusMessage) + bytesOf(envelope.error));
  });

  it('an unknown method of the service is UNIMPLEMENTED', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const client = jsonClient(t, server.url);
    const error = await statusOf(
      new Promise((resolve, reject) =>
        client.makeUnaryRequest(
          '/svc.transport.v1.SvcTransport/Nope',
          (value: unknown) => Buffer.from(JSON.stringify(value)),
          (bytes: Buffer) => bytes,
          {},
          (err: unknown, value: unknown) => (err ? reject(err) : resolve(value)),
        ),
      ),
    );
    assert.equal(error.code, GrpcCode.UNIMPLEMENTED);
  });
});

describe('cancellation', () => {
  it('a client cancelling mid-stream frees the stream; the server keeps serving', async (t) => {
    const fixture = agentEndpoints();
    const server = await serveGrpc(t, fixture.endpoints);
    const client = binaryClient(t, server.url);
    const call = client.Stream({ id: 'cancel-me', method: 'POST', path: '/tasks/stream', data: toValue({ id: 'hold' }) });
    call.on('error', () => undefined);
    const first = await new Promise<any>((resolve) => call.once('data', resolve));
    assert.equal(first.ok, true);
    await fixture.heldStreamStarted;
    assert.equal(server.health().metrics.active_streams, 1);
    call.cancel();
    await waitFor(() => server.health().metrics.active_streams === 0, 'the stream slot to be released');
    assert.equal(server.health().metrics.streams_failed, 1);
    const response = await unaryCall(client, 'Invoke', {
      id: 'after',
      method: 'POST',
      path: '/tasks/',
      data: toValue({ id: 'ok' }),
    });
    assert.equal(response.ok, true);
  });
});
