// The A2A gRPC binding driven by two independent clients: connect-es (@connectrpc/connect with
// the gRPC transport of @connectrpc/connect-node, on the protobuf-es descriptors parley
// exports), and the official SDK's gRPC client transport (@a2a-js/sdk/client/grpc), which
// reads the card, dials the card's GRPC interface and turns the status details back into the
// SDK's A2A error classes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Code, ConnectError } from '@connectrpc/connect';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { ErrorInfoSchema } from '../../../generated/proto/google/rpc/error_details_pb.js';
import { Role, TaskState } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { cardOverGrpc, connectClient, startGrpcA2aAgent } from './support.js';

const VERSION = { headers: { 'a2a-version': '1.0' } };

const message = (text: string) => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  role: Role.USER,
  parts: [{ content: { case: 'text' as const, value: text } }],
});

describe('A2A gRPC binding: a connect-es client', () => {
  test('SendMessage, GetTask, ListTasks and CancelTask as typed calls', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const client = connectClient(target);
    const sent = await client.sendMessage({ message: message('hello from connect') }, VERSION);
    assert.equal(sent.payload.case, 'task');
    const task = sent.payload.value!;
    assert.equal(task.status?.state, TaskState.COMPLETED);
    assert.equal(task.artifacts[0]?.parts[0]?.content.value, 'hello from connect');
    const got = await client.getTask({ id: task.id }, VERSION);
    assert.equal(got.id, task.id);
    const listed = await client.listTasks({}, VERSION);
    assert.deepEqual(
      listed.tasks.map((one) => one.id),
      [task.id],
    );
    const refused = await client.cancelTask({ id: task.id }, VERSION).then(
      () => null,
      (error: unknown) => ConnectError.from(error),
    );
    assert.equal(refused?.code, Code.FailedPrecondition);
    assert.equal(refused?.findDetails(ErrorInfoSchema)[0]?.reason, 'TASK_NOT_CANCELABLE');
  });

  test('an unknown task is NotFound with the ErrorInfo among the details', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const client = connectClient(target);
    const error = await client.getTask({ id: 'nope' }, VERSION).then(
      () => null,
      (failure: unknown) => ConnectError.from(failure),
    );
    assert.equal(error?.code, Code.NotFound);
    const [info] = error!.findDetails(ErrorInfoSchema);
    assert.equal(info?.reason, 'TASK_NOT_FOUND');
    assert.equal(info?.domain, 'a2a-protocol.org');
  });

  test('SendStreamingMessage as a typed server stream: the task first, the artifact, the completed status last', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const client = connectClient(target);
    const cases: string[] = [];
    let text: string | undefined;
    let lastState: TaskState | undefined;
    for await (const event of client.sendStreamingMessage({ message: message('streamed to connect') }, VERSION)) {
      cases.push(String(event.payload.case));
      if (event.payload.case === 'artifactUpdate') {
        const part = event.payload.value.artifact?.parts[0]?.content;
        if (part?.case === 'text') text = part.value;
      }
      if (event.payload.case === 'statusUpdate') lastState = event.payload.value.status?.state;
    }
    assert.equal(cases[0], 'task');
    assert.equal(cases.at(-1), 'statusUpdate');
    assert.equal(lastState, TaskState.COMPLETED);
    assert.equal(text, 'streamed to connect');
  });

  test('SubscribeToTask for an unknown task ends with NotFound (TASK_NOT_FOUND)', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const client = connectClient(target);
    const error = await (async () => {
      for await (const _ of client.subscribeToTask({ id: 'no-such-task' }, VERSION)) void _;
    })().then(
      () => null,
      (failure: unknown) => ConnectError.from(failure),
    );
    assert.equal(error?.code, Code.NotFound);
    assert.equal(error?.findDetails(ErrorInfoSchema)[0]?.reason, 'TASK_NOT_FOUND');
  });
});

/**
 * Requests as the SDK's gRPC transport encodes them: its generated encoders read every field,
 * so each request is written out whole, as the SDK's own types require.
 */
const sdkSend = (messageId: string, text: string): any => ({
  tenant: '',
  message: {
    messageId,
    contextId: '',
    taskId: '',
    role: 1,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});
const sdkTaskId = (id: string): any => ({ tenant: '', id, historyLength: undefined, metadata: undefined });
const SDK_LIST: any = {
  tenant: '',
  contextId: '',
  status: 0,
  pageSize: undefined,
  pageToken: '',
  historyLength: undefined,
  statusTimestampAfter: undefined,
  includeArtifacts: undefined,
};

/** The SDK's client on the gRPC transport, from the card parley serves through SvcTransport. */
async function sdkGrpcClient(url: string) {
  const card = await cardOverGrpc(url);
  // The card reaches the SDK through its own resolver, as if fetched: a gRPC-only agent has no
  // HTTP route to fetch it from (docs/a2a.md, "The gRPC binding").
  const cardResolver = new DefaultAgentCardResolver({
    fetchImpl: async () => new Response(JSON.stringify(card), { headers: { 'content-type': 'application/json' } }),
  });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
      cardResolver,
    }),
  );
  return factory.createFromUrl('http://card.invalid');
}

describe("A2A gRPC binding: the official SDK's gRPC client", () => {
  test('sendMessage, getTask and listTasks over the GRPC interface of the card', async (t) => {
    const { url } = await startGrpcA2aAgent(t);
    const client = await sdkGrpcClient(url);
    const task: any = await client.sendMessage(sdkSend('sdk-1', 'ping'));
    assert.equal(task.status.state, 3);
    assert.equal(task.artifacts[0].parts[0].content.value, 'ping');
    const got: any = await client.getTask(sdkTaskId(task.id));
    assert.equal(got.id, task.id);
    const listed: any = await client.listTasks(SDK_LIST);
    assert.deepEqual(
      listed.tasks.map((one: any) => one.id),
      [task.id],
    );
  });

  test("errors come back as the SDK's A2A error classes, read from grpc-status-details-bin", async (t) => {
    const { url } = await startGrpcA2aAgent(t);
    const client = await sdkGrpcClient(url);
    const missing: any = await client.getTask(sdkTaskId('nope')).then(
      () => null,
      (error: unknown) => error,
    );
    assert.equal(missing?.name, 'TaskNotFoundError');
    assert.equal(missing?.transport, 'grpc');
    const done: any = await client.sendMessage(sdkSend('sdk-2', 'x'));
    const refused: any = await client.cancelTask(sdkTaskId(done.id)).then(
      () => null,
      (error: unknown) => error,
    );
    assert.equal(refused?.name, 'TaskNotCancelableError');
  });
});
