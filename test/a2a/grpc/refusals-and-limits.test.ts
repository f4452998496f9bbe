// Input the A2A gRPC binding must refuse without crashing: bytes that are no protobuf message of
// the method's request type (garbage, a message cut short, a field of the wrong wire type) end
// the call INVALID_ARGUMENT with an ErrorInfo, on unary and streaming methods alike; the agent
// serves the next call as before. The binding's methods are reachable only as gRPC methods: an
// SvcTransport envelope naming their path is an unknown route. Calls wait for the grpc server's
// RPC slots, and a call past its deadline ends DEADLINE_EXCEEDED.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { OperationSpec } from '../../../generated/operations/spec.js';
import { SendMessageRequestSchema } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { AgentHandler } from '../../../src/agent/handler.js';
import { TransportRemoteError } from '../../../src/transport/errors.js';
import { createTransport } from '../../../src/transport/factory.js';
import { errorInfoOf, grpcJsStub, metadataOf, startGrpcA2aAgent, unaryCall, userMessage } from './support.js';

const identity = (bytes: Buffer) => bytes;

/** Sends `bytes` as the request message of `path`; the status the call ended with. */
function rawUnary(client: grpc.Client, path: string, bytes: Buffer): Promise<grpc.ServiceError | null> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, identity, identity, bytes, metadataOf(), (error) => resolve(error));
  });
}

function rawStream(client: grpc.Client, path: string, bytes: Buffer): Promise<grpc.ServiceError | null> {
  return new Promise((resolve) => {
    const call = client.makeServerStreamRequest(path, identity, identity, bytes, metadataOf());
    call.on('data', () => undefined);
    call.on('error', (error: grpc.ServiceError) => resolve(error));
    call.on('end', () => resolve(null));
  });
}

const valid = Buffer.from(
  toBinary(
    SendMessageRequestSchema,
    create(SendMessageRequestSchema, {
      message: { messageId: 'm-1', role: 1, parts: [{ content: { case: 'text', value: 'a longer text to cut short' } }] },
    }),
  ),
);

const MALFORMED: readonly [string, Buffer][] = [
  ['garbage', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])],
  ['a message cut short', valid.subarray(0, valid.length - 5)],
  // Field 1 (message) with wire type 0 (varint) where a length-delimited message belongs.
  ['a field of the wrong wire type', Buffer.from([0x08, 0x01])],
  ['a length running past the end', Buffer.from([0x12, 0x7f, 0x01])],
];

describe('A2A gRPC binding: messages that are not the request type', () => {
  for (const [name, bytes] of MALFORMED) {
    test(`${name}: INVALID_ARGUMENT on SendMessage and SendStreamingMessage; the agent serves on`, async (t) => {
      const { target } = await startGrpcA2aAgent(t);
      const client = new grpc.Client(target, grpc.credentials.createInsecure());
      t.after(() => client.close());
      for (const error of [
        await rawUnary(client, '/lf.a2a.v1.A2AService/SendMessage', bytes),
        await rawStream(client, '/lf.a2a.v1.A2AService/SendStreamingMessage', bytes),
      ]) {
        assert.equal(error?.code, grpc.status.INVALID_ARGUMENT, error?.details);
        assert.match(error!.details, /not a lf\.a2a\.v1\.SendMessageRequest message/);
        assert.equal(errorInfoOf(error!).info?.reason, 'INVALID_REQUEST');
      }
      const stub = grpcJsStub(t, target);
      const after = await unaryCall(stub, 'SendMessage', { message: userMessage('still here') });
      assert.equal(after.answer?.task.status.state, 'TASK_STATE_COMPLETED');
    });
  }

  test('the valid message the others were cut from is served', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    t.after(() => client.close());
    assert.equal(await rawUnary(client, '/lf.a2a.v1.A2AService/SendMessage', valid), null);
  });

  test('an empty message is a request with nothing set: INVALID_ARGUMENT (INVALID_PARAMS)', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    t.after(() => client.close());
    const error = await rawUnary(client, '/lf.a2a.v1.A2AService/SendMessage', Buffer.alloc(0));
    assert.equal(error?.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(errorInfoOf(error!).info?.reason, 'INVALID_PARAMS');
  });

  test('an unknown method of the service is UNIMPLEMENTED', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    t.after(() => client.close());
    const error = await rawUnary(client, '/lf.a2a.v1.A2AService/SendMesage', valid);
    assert.equal(error?.code, grpc.status.UNIMPLEMENTED);
  });
});

describe('A2A gRPC binding: reachable as gRPC methods only', () => {
  test('an SvcTransport envelope naming a method path is an unknown route (404)', async (t) => {
    const { url } = await startGrpcA2aAgent(t);
    const client = await createTransport('grpc', url);
    t.after(() => client.stop());
    const spec = { ...agentOperations.a2aJsonRpc, path: '/lf.a2a.v1.A2AService/SendMessage' } as OperationSpec;
    const error = await client.unary(spec, { message: userMessage('x') }).then(
      () => null,
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.statusCode, 404);
  });
});

describe('A2A gRPC binding: slots', () => {
  test('a call waits for a maximumConcurrentRpcs slot and gets one once it frees', async (t) => {
    let entered: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const handler: AgentHandler = ({ input }) => {
      if (input !== 'hold') return input;
      entered();
      return new Promise((resolve) => (release = () => resolve('released')));
    };
    const { target } = await startGrpcA2aAgent(t, { handler, transportOptions: { grpc: { maximumConcurrentRpcs: 1 } } });
    const stub = grpcJsStub(t, target);
    const held = unaryCall(stub, 'SendMessage', { message: userMessage('hold') });
    await arrived;
    // GetTask answers at once when it runs; here it can only wait for the slot the held call has.
    const waiting = await new Promise<grpc.ServiceError | null>((resolve) =>
      stub.GetTask({ id: 'nope' }, metadataOf(), { deadline: Date.now() + 1500 }, (error: grpc.ServiceError | null) =>
        resolve(error),
      ),
    );
    assert.equal(waiting?.code, grpc.status.DEADLINE_EXCEEDED);
    release();
    assert.equal((await held).answer?.task.status.state, 'TASK_STATE_COMPLETED');
    const served = await unaryCall(stub, 'GetTask', { id: 'nope' });
    assert.equal(served.error?.code, grpc.status.NOT_FOUND);
  });
});

describe('A2A gRPC binding: deadlines', () => {
  test('a call past its deadline is DEADLINE_EXCEEDED; the agent serves the next', async (t) => {
    let entered: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const handler: AgentHandler = ({ input }) => {
      if (input !== 'hold') return input;
      entered();
      // The task outlives its caller (A2A tasks do); the test lets it go once the deadline passed.
      return new Promise((resolve) => (release = () => resolve('released')));
    };
    const { target } = await startGrpcA2aAgent(t, { handler });
    const stub = grpcJsStub(t, target);
    const held = new Promise<grpc.ServiceError | null>((resolve) =>
      stub.SendMessage(
        { message: userMessage('hold') },
        metadataOf(),
        // Long enough to arrive on a loaded machine; the handler never answers by itself.
        { deadline: Date.now() + 3000 },
        (error: grpc.ServiceError | null) => resolve(error),
      ),
    );
    await arrived;
    assert.equal((await held)?.code, grpc.status.DEADLINE_EXCEEDED);
    release();
    const next = await unaryCall(stub, 'SendMessage', { message: userMessage('next') });
    assert.equal(next.answer?.task.status.state, 'TASK_STATE_COMPLETED');
  });
});
