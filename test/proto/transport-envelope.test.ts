// The svc.transport.v1 messages must serialize, as plain ProtoJSON, to exactly the
// JSON envelopes of the service spec (section "Transport wire formats"), and survive
// JSON -> message -> binary -> message -> JSON without change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  create,
  fromBinary,
  fromJson,
  fromJsonString,
  toBinary,
  toJson,
  toJsonString,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import {
  InvokeRequestSchema,
  InvokeResponseSchema,
  StreamRequestSchema,
  StreamResponseSchema,
  SvcTransport,
} from '../../generated/proto/svc/transport/v1/transport_pb.js';

/** JSON -> message -> binary -> message -> JSON, with default (no) serializer options. */
function roundTrip(schema: DescMessage, json: JsonValue): JsonValue {
  const message = fromJson(schema, json);
  const bytes = toBinary(schema, message);
  return toJson(schema, fromBinary(schema, bytes));
}

const nestedData: JsonValue = {
  task: {
    id: 't-1',
    payload: { text: 'hello', tokens: [1, 2.5, -3], flags: { dry_run: true, verbose: false } },
    attachments: [],
    nothing: null,
  },
  list: [[], [{}], ['a', null, 0, false, { deep: { deeper: [{ deepest: 'x' }] } }]],
  unicode: 'żółw 🐢',
};

const requestEnvelope: JsonObject = {
  id: 'req-7f3a',
  method: 'POST',
  path: '/tasks',
  data: nestedData,
  params: { limit: 10, tags: ['a', 'b'], filter: { name: 'agent-x' } },
  idempotency_key: 'idem-1234',
};

const successEnvelope: JsonObject = {
  id: 'req-7f3a',
  ok: true,
  result: { task_id: 't-1', status: 'completed', artifacts: [{ kind: 'text', text: 'done' }] },
  final: true,
};

const failureEnvelope: JsonObject = {
  id: 'req-7f3a',
  ok: false,
  error: { code: 'not_found', message: 'no such task', details: { task_id: 't-9', retryable: false } },
  final: true,
};

describe('svc.transport.v1 envelopes (ProtoJSON)', () => {
  it('request envelope round-trips unchanged through binary', () => {
    assert.deepEqual(roundTrip(InvokeRequestSchema, requestEnvelope), requestEnvelope);
    assert.deepEqual(roundTrip(StreamRequestSchema, requestEnvelope), requestEnvelope);
  });

  it('request JSON uses the spec field names, idempotency_key in snake_case', () => {
    const json = toJson(InvokeRequestSchema, fromJson(InvokeRequestSchema, requestEnvelope)) as JsonObject;
    assert.deepEqual(Object.keys(json).sort(), ['data', 'id', 'idempotency_key', 'method', 'params', 'path']);
    assert.equal('idempotencyKey' in json, false);
    // toJsonString yields the same envelope as text.
    assert.deepEqual(
      JSON.parse(toJsonString(InvokeRequestSchema, fromJson(InvokeRequestSchema, requestEnvelope))),
      requestEnvelope,
    );
  });

  it('data carries any JSON value, including scalars, arrays and null', () => {
    for (const data of ['text', 0, -1.25, true, false, null, [], [1, 'two', null], {}] as JsonValue[]) {
      const envelope: JsonObject = { id: 'r', method: 'POST', path: '/x', data };
      assert.deepEqual(roundTrip(InvokeRequestSchema, envelope), envelope, `data=${JSON.stringify(data)}`);
    }
  });

  it('only fields that were present come back (no invented defaults)', () => {
    const minimal: JsonObject = { id: 'r-1', method: 'GET', path: '/.well-known/agent.json' };
    assert.deepEqual(roundTrip(InvokeRequestSchema, minimal), minimal);
    const empty: JsonObject = { id: '', method: '', path: '', idempotency_key: '' };
    assert.deepEqual(roundTrip(InvokeRequestSchema, empty), empty);
  });

  it('success and failure responses round-trip; ok:false and final stay present', () => {
    for (const schema of [InvokeResponseSchema, StreamResponseSchema]) {
      assert.deepEqual(roundTrip(schema, successEnvelope), successEnvelope);
      const failure = roundTrip(schema, failureEnvelope) as JsonObject;
      assert.deepEqual(failure, failureEnvelope);
      assert.equal(failure.ok, false);
      assert.equal(failure.final, true);
    }
    const midStream: JsonObject = { id: 's-1', ok: true, result: { event: 'status', state: 'working' }, final: false };
    const out = roundTrip(StreamResponseSchema, midStream) as JsonObject;
    assert.deepEqual(out, midStream);
    assert.equal(out.final, false);
  });

  it('messages built in code serialize zero values that were set, with default options', () => {
    // Struct fields are plain JsonObject values in protobuf-es; Value fields are messages.
    const response = create(InvokeResponseSchema, { id: 'r-2', ok: false, error: { code: 'boom' }, final: true });
    assert.deepEqual(toJson(InvokeResponseSchema, response), {
      id: 'r-2',
      ok: false,
      error: { code: 'boom' },
      final: true,
    });
    const unset = create(InvokeResponseSchema, {});
    assert.deepEqual(toJson(InvokeResponseSchema, unset), {});
    assert.equal(unset.ok, undefined);
  });

  it('a result built with ValueSchema serializes as the plain JSON value', () => {
    const response = create(InvokeResponseSchema, {
      id: 'r-3',
      ok: true,
      result: fromJson(ValueSchema, { items: [1, 'a', null] }),
      final: true,
    });
    assert.deepEqual(toJson(InvokeResponseSchema, response), {
      id: 'r-3',
      ok: true,
      result: { items: [1, 'a', null] },
      final: true,
    });
  });

  it('a null result is kept as JSON null, distinct from an absent result', () => {
    const withNull: JsonObject = { id: 'r', ok: true, result: null, final: true };
    assert.deepEqual(roundTrip(InvokeResponseSchema, withNull), withNull);
    const without: JsonObject = { id: 'r', ok: true, final: true };
    assert.deepEqual(roundTrip(InvokeResponseSchema, without), without);
  });

  it('Invoke and Stream messages share one binary and JSON shape', () => {
    const bytes = toBinary(InvokeRequestSchema, fromJson(InvokeRequestSchema, requestEnvelope));
    assert.deepEqual(toJson(StreamRequestSchema, fromBinary(StreamRequestSchema, bytes)), requestEnvelope);
    const responseBytes = toBinary(StreamResponseSchema, fromJson(StreamResponseSchema, failureEnvelope));
    assert.deepEqual(toJson(InvokeResponseSchema, fromBinary(InvokeResponseSchema, responseBytes)), failureEnvelope);
  });

  it('parses an SSE frame (which adds jsonrpc) when unknown fields are ignored', () => {
    const frame = '{"jsonrpc":"2.0","id":"s-9","ok":true,"result":{"state":"working"},"final":false}';
    assert.throws(() => fromJsonString(StreamResponseSchema, frame));
    const event = fromJsonString(StreamResponseSchema, frame, { ignoreUnknownFields: true });
    assert.deepEqual(toJson(StreamResponseSchema, event), { id: 's-9', ok: true, result: { state: 'working' }, final: false });
  });

  it('rejects envelopes with wrongly typed fields', () => {
    assert.throws(() => fromJsonString(InvokeResponseSchema, '{"id":"r","ok":"false"}'));
    assert.throws(() => fromJsonString(InvokeRequestSchema, '{"id":"r","params":[1,2]}'));
    assert.throws(() => fromJsonString(InvokeRequestSchema, '{"id":7}'));
  });

  it('describes the spec service svc.transport.v1.SvcTransport', () => {
    assert.equal(SvcTransport.typeName, 'svc.transport.v1.SvcTransport');
    assert.equal(SvcTransport.method.invoke.name, 'Invoke');
    assert.equal(SvcTransport.method.invoke.methodKind, 'unary');
    assert.equal(SvcTransport.method.stream.name, 'Stream');
    assert.equal(SvcTransport.method.stream.methodKind, 'server_streaming');
    assert.equal(SvcTransport.method.invoke.input.typeName, 'svc.transport.v1.InvokeRequest');
    assert.equal(SvcTransport.method.stream.output.typeName, 'svc.transport.v1.StreamResponse');
  });
});
