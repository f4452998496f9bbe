// Interop with an independent protobuf implementation: @grpc/proto-loader (protobufjs)
// reads the .proto sources directly, and its encoders/decoders must agree byte for byte
// with the protobuf-es code generated from the same files. A real @grpc/grpc-js server
// built from proto-loader's definitions is called by a client that uses protobuf-es.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  create,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescMessage,
  type DescMethod,
  type JsonObject,
  type MessageShape,
} from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import {
  InvokeRequestSchema,
  InvokeResponseSchema,
  StreamRequestSchema,
  StreamResponseSchema,
  SvcTransport,
} from '../../generated/proto/svc/transport/v1/transport_pb.js';
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus,
} from '../../generated/proto/grpc/health/v1/health_pb.js';
import { Role, TaskSchema, TaskState } from '../../generated/proto/lf/a2a/v1/a2a_pb.js';

const PROTO_ROOT = fileURLToPath(new URL('../../proto/', import.meta.url));

function load(files: string[], keepCase: boolean): grpc.GrpcObject & protoLoader.PackageDefinition {
  return protoLoader.loadSync(files, {
    includeDirs: [PROTO_ROOT],
    keepCase,
    longs: String,
    enums: String,
    bytes: String,
    defaults: false,
    oneofs: true,
  }) as grpc.GrpcObject & protoLoader.PackageDefinition;
}

const peer = load(['svc/transport/v1/transport.proto', 'grpc/health/v1/health.proto'], true);
const transportService = peer['svc.transport.v1.SvcTransport'] as protoLoader.ServiceDefinition;
const healthService = peer['grpc.health.v1.Health'] as protoLoader.ServiceDefinition;

// protobufjs (with oneofs: true) adds virtual `_field` / `kind` members; compare only real data.
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key.startsWith('_') || key === 'kind') continue;
      out[key] = plain(inner);
    }
    return out;
  }
  return value;
}

describe('proto-loader sees the expected services', () => {
  it('svc.transport.v1.SvcTransport: Invoke (unary) and Stream (server streaming)', () => {
    assert.deepEqual(Object.keys(transportService).sort(), ['Invoke', 'Stream']);
    assert.equal(transportService.Invoke!.path, '/svc.transport.v1.SvcTransport/Invoke');
    assert.equal(transportService.Invoke!.requestStream, false);
    assert.equal(transportService.Invoke!.responseStream, false);
    assert.equal(transportService.Stream!.path, '/svc.transport.v1.SvcTransport/Stream');
    assert.equal(transportService.Stream!.requestStream, false);
    assert.equal(transportService.Stream!.responseStream, true);
  });

  it('grpc.health.v1.Health: Check (unary), List (unary) and Watch (server streaming)', () => {
    assert.deepEqual(Object.keys(healthService).sort(), ['Check', 'List', 'Watch']);
    assert.equal(healthService.Check!.path, '/grpc.health.v1.Health/Check');
    assert.equal(healthService.Watch!.path, '/grpc.health.v1.Health/Watch');
    assert.equal(healthService.Watch!.responseStream, true);
  });

  it('grpc.reflection v1 and v1alpha: ServerReflectionInfo is a bidirectional stream', () => {
    const reflection = load(['grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'], true);
    for (const pkg of ['grpc.reflection.v1', 'grpc.reflection.v1alpha']) {
      const service = reflection[`${pkg}.ServerReflection`] as protoLoader.ServiceDefinition;
      const method = service.ServerReflectionInfo!;
      assert.equal(method.path, `/${pkg}.ServerReflection/ServerReflectionInfo`);
      assert.equal(method.requestStream, true);
      assert.equal(method.responseStream, true);
    }
  });
});

describe('binary interop between protobuf-es and protobufjs', () => {
  const envelope: JsonObject = {
    id: 'req-1',
    method: 'POST',
    path: '/tasks',
    data: { text: 'hi', n: 2, list: [true, null] },
    params: { limit: 5 },
    idempotency_key: 'idem-1',
  };

  it('an InvokeRequest encoded by protobuf-es decodes with protobufjs', () => {
    const bytes = Buffer.from(toBinary(InvokeRequestSchema, fromJson(InvokeRequestSchema, envelope)));
    const decoded = plain(transportService.Invoke!.requestDeserialize(bytes));
    assert.deepEqual(decoded, {
      id: 'req-1',
      method: 'POST',
      path: '/tasks',
      data: {
        structValue: {
          fields: {
            text: { stringValue: 'hi' },
            n: { numberValue: 2 },
            list: { listValue: { values: [{ boolValue: true }, { nullValue: 'NULL_VALUE' }] } },
          },
        },
      },
      params: { fields: { limit: { numberValue: 5 } } },
      idempotency_key: 'idem-1',
    });
  });

  it('an InvokeResponse with ok:false encoded by protobufjs decodes with protobuf-es', () => {
    const bytes = transportService.Invoke!.responseSerialize({
      id: 'req-1',
      ok: false,
      error: { fields: { code: { stringValue: 'denied' } } },
      final: true,
    });
    const message = fromBinary(InvokeResponseSchema, bytes);
    assert.equal(message.ok, false);
    assert.deepEqual(toJson(InvokeResponseSchema, message), {
      id: 'req-1',
      ok: false,
      error: { code: 'denied' },
      final: true,
    });
  });

  it('an A2A Task encoded by protobuf-es decodes with protobufjs (camelCase, enum names)', () => {
    const a2a = load(['lf/a2a/v1/a2a.proto'], false);
    const taskType = a2a['lf.a2a.v1.Task'] as unknown as { deserialize(bytes: Buffer): unknown };
    const task = create(TaskSchema, {
      id: 't-1',
      contextId: 'c-1',
      status: { state: TaskState.AUTH_REQUIRED },
      history: [{ messageId: 'm-1', role: Role.USER, parts: [{ content: { case: 'raw', value: new Uint8Array([1, 2, 3]) } }] }],
    });
    assert.deepEqual(plain(taskType.deserialize(Buffer.from(toBinary(TaskSchema, task)))), {
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_AUTH_REQUIRED' },
      // protobufjs names the set member of a oneof under the oneof's name.
      history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ content: 'raw', raw: 'AQID' }] }],
    });
  });
});

/** A grpc-js method definition that (de)serializes with protobuf-es. */
function esMethod<I extends DescMessage, O extends DescMessage>(method: DescMethod, input: I, output: O) {
  return {
    path: `/${method.parent.typeName}/${method.name}`,
    requestStream: method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
    responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
    requestSerialize: (value: MessageShape<I>) => Buffer.from(toBinary(input, value)),
    requestDeserialize: (bytes: Buffer) => fromBinary(input, bytes),
    responseSerialize: (value: MessageShape<O>) => Buffer.from(toBinary(output, value)),
    responseDeserialize: (bytes: Buffer) => fromBinary(output, bytes),
  };
}

describe('grpc-js server from proto-loader, client from protobuf-es', () => {
  let server: grpc.Server;
  let transportClient: grpc.Client & Record<string, (...args: unknown[]) => unknown>;
  let healthClient: grpc.Client & Record<string, (...args: unknown[]) => unknown>;
  let seenRequestId: string | undefined;

  before(async () => {
    server = new grpc.Server();
    server.addService(transportService, {
      Invoke(call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: grpc.sendUnaryData<unknown>) {
        seenRequestId = call.metadata.get('x-svc-request-id')[0] as string | undefined;
        const request = plain(call.request) as Record<string, unknown>;
        if (request.path === '/fail') {
          callback(null, { id: request.id, ok: false, error: { fields: { code: { stringValue: 'nope' } } }, final: true });
          return;
        }
        callback(null, { id: request.id, ok: true, result: { structValue: { fields: { echo: request.data } } }, final: true });
      },
      Stream(call: grpc.ServerWritableStream<Record<string, unknown>, unknown>) {
        const id = call.request.id;
        call.write({ id, ok: true, result: { stringValue: 'submitted' }, final: false });
        call.write({ id, ok: true, result: { stringValue: 'working' }, final: false });
        call.write({ id, ok: true, result: { stringValue: 'completed' }, final: true });
        call.end();
      },
    });
    server.addService(healthService, {
      Check(_call: unknown, callback: grpc.sendUnaryData<unknown>) {
        callback(null, { status: 'SERVING' });
      },
      List(_call: unknown, callback: grpc.sendUnaryData<unknown>) {
        callback(null, { statuses: {} });
      },
      Watch(call: grpc.ServerWritableStream<unknown, unknown>) {
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    const TransportClient = grpc.makeGenericClientConstructor(
      {
        Invoke: esMethod(SvcTransport.method.invoke, InvokeRequestSchema, InvokeResponseSchema),
        Stream: esMethod(SvcTransport.method.stream, StreamRequestSchema, StreamResponseSchema),
      },
      'SvcTransport',
    );
    const HealthClient = grpc.makeGenericClientConstructor(
      { Check: esMethod(Health.method.check, HealthCheckRequestSchema, HealthCheckResponseSchema) },
      'Health',
    );
    transportClient = new TransportClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as typeof transportClient;
    healthClient = new HealthClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as typeof healthClient;
  });

  after(() => {
    transportClient?.close();
    healthClient?.close();
    server?.forceShutdown();
  });

  function invoke(envelope: JsonObject, metadata = new grpc.Metadata()): Promise<JsonObject> {
    return new Promise((resolve, reject) => {
      transportClient.Invoke!(
        fromJson(InvokeRequestSchema, envelope),
        metadata,
        { deadline: Date.now() + 5000 },
        (error: grpc.ServiceError | null, response: MessageShape<typeof InvokeResponseSchema>) =>
          error ? reject(error) : resolve(toJson(InvokeResponseSchema, response) as JsonObject),
      );
    });
  }

  it('Invoke: a protobuf-es request reaches the protobufjs server intact', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('x-svc-request-id', 'req-42');
    const response = await invoke(
      { id: 'req-42', method: 'POST', path: '/tasks', data: { goal: 'x', steps: [1, 2] }, idempotency_key: 'k-42' },
      metadata,
    );
    assert.equal(seenRequestId, 'req-42');
    assert.deepEqual(response, { id: 'req-42', ok: true, result: { echo: { goal: 'x', steps: [1, 2] } }, final: true });
  });

  it('Invoke: a failure envelope arrives with ok:false present', async () => {
    const response = await invoke({ id: 'req-43', method: 'POST', path: '/fail' });
    assert.deepEqual(response, { id: 'req-43', ok: false, error: { code: 'nope' }, final: true });
  });

  it('Stream: events arrive in order and the last one is final', async () => {
    const events: JsonObject[] = [];
    await new Promise<void>((resolve, reject) => {
      const call = transportClient.Stream!(
        create(StreamRequestSchema, {
          id: 's-1',
          method: 'POST',
          path: '/tasks/stream',
          data: fromJson(ValueSchema, { goal: 'stream' }),
        }),
        { deadline: Date.now() + 5000 },
      ) as grpc.ClientReadableStream<MessageShape<typeof StreamResponseSchema>>;
      call.on('data', (event) => events.push(toJson(StreamResponseSchema, event) as JsonObject));
      call.on('error', reject);
      call.on('end', resolve);
    });
    assert.deepEqual(events, [
      { id: 's-1', ok: true, result: 'submitted', final: false },
      { id: 's-1', ok: true, result: 'working', final: false },
      { id: 's-1', ok: true, result: 'completed', final: true },
    ]);
  });

  it('Health.Check answers SERVING', async () => {
    const status = await new Promise<HealthCheckResponse_ServingStatus>((resolve, reject) => {
      healthClient.Check!(
        create(HealthCheckRequestSchema, { service: 'svc.transport.v1.SvcTransport' }),
        { deadline: Date.now() + 5000 },
        (error: grpc.ServiceError | null, response: MessageShape<typeof HealthCheckResponseSchema>) =>
          error ? reject(error) : resolve(response.status),
      );
    });
    assert.equal(status, HealthCheckResponse_ServingStatus.SERVING);
  });
});
