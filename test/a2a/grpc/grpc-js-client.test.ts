// The A2A 1.0 gRPC binding driven by a typed grpc-js stub (@grpc/proto-loader on the committed
// proto, as a grpc-js user writes it): every method of lf.a2a.v1.A2AService on the agent's own
// grpc server, each error row of the spec's gRPC mapping (status code, and google.rpc.ErrorInfo
// in grpc-status-details-bin), authentication from metadata with the agent's authenticator,
// the A2A-Version service parameter from metadata, and the card a gRPC-only agent advertises.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import type { AgentHandler } from '../../../src/agent/handler.js';
import { ApiKeyAuthenticator } from '../../../src/auth/api-key.js';
import {
  cardOverGrpc,
  errorInfoOf,
  grpcJsStub,
  metadataOf,
  startGrpcA2aAgent,
  unaryCall,
  userMessage,
  type A2aStub,
} from './support.js';

/** Asserts a call failed with `code` and an A2A ErrorInfo of `reason`. */
function assertA2aStatus(error: grpc.ServiceError | undefined, code: grpc.status, reason: string): void {
  assert.ok(error, `expected ${grpc.status[code]}, the call succeeded`);
  assert.equal(error.code, code, `${grpc.status[error.code]}: ${error.details}`);
  const { code: statusCode, info } = errorInfoOf(error);
  assert.equal(statusCode, code);
  assert.equal(info?.reason, reason);
  assert.equal(info?.domain, 'a2a-protocol.org');
}

/** The status a server-streaming call ended with. */
function streamStatus(stub: A2aStub, method: string, request: unknown, metadata = metadataOf()): Promise<grpc.ServiceError> {
  return new Promise((resolve, reject) => {
    const call = stub[method](request, metadata) as grpc.ClientReadableStream<unknown>;
    call.on('data', () => undefined);
    call.on('error', resolve);
    call.on('end', () => reject(new Error('the stream ended without an error')));
  });
}

/** Every event of a server-streaming call that ends without an error. */
function streamEvents(stub: A2aStub, method: string, request: unknown, metadata = metadataOf()): Promise<any[]> {
  return new Promise((resolve, reject) => {
    const events: any[] = [];
    const call = stub[method](request, metadata) as grpc.ClientReadableStream<unknown>;
    call.on('data', (event) => events.push(event));
    call.on('error', reject);
    call.on('end', () => resolve(events));
  });
}

describe('A2A gRPC binding: every method through a grpc-js stub', () => {
  test('SendMessage runs the task to completion; GetTask and ListTasks find it', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    const sent = await unaryCall(stub, 'SendMessage', { message: userMessage('hello over grpc') });
    assert.equal(sent.error, undefined, sent.error?.details);
    const task = sent.answer.task;
    assert.equal(sent.answer.payload, 'task');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0].parts[0].text, 'hello over grpc');
    assert.equal(task.history[0].role, 'ROLE_USER');

    const got = await unaryCall(stub, 'GetTask', { id: task.id, historyLength: 1 });
    assert.equal(got.answer.id, task.id);
    assert.equal(got.answer.contextId, task.contextId);
    assert.equal(got.answer.history.length, 1);

    const listed = await unaryCall(stub, 'ListTasks', { pageSize: 10 });
    assert.deepEqual(
      listed.answer.tasks.map((one: any) => one.id),
      [task.id],
    );
    assert.equal(listed.answer.totalSize, 1);
    assert.equal(listed.answer.pageSize, 10);
  });

  test('CancelTask cancels a running task; canceling it again is FAILED_PRECONDITION (TASK_NOT_CANCELABLE)', async (t) => {
    const handler: AgentHandler = ({ input, signal }) =>
      input === 'hold' ? new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped'))) : input;
    const { target } = await startGrpcA2aAgent(t, { handler });
    const stub = grpcJsStub(t, target);
    const started = await unaryCall(stub, 'SendMessage', {
      message: userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    const id = started.answer.task.id;
    const canceled = await unaryCall(stub, 'CancelTask', { id, metadata: { reason: 'enough' } });
    assert.equal(canceled.error, undefined, canceled.error?.details);
    assert.equal(canceled.answer.status.state, 'TASK_STATE_CANCELED');
    assertA2aStatus((await unaryCall(stub, 'CancelTask', { id })).error, grpc.status.FAILED_PRECONDITION, 'TASK_NOT_CANCELABLE');
  });

  test('the push-notification-config methods on an unknown task are NOT_FOUND (TASK_NOT_FOUND)', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    const calls: [string, unknown][] = [
      ['CreateTaskPushNotificationConfig', { taskId: 't', url: 'https://example.com/hook' }],
      ['GetTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
      ['ListTaskPushNotificationConfigs', { taskId: 't' }],
      ['DeleteTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
    ];
    for (const [method, request] of calls) {
      const { error } = await unaryCall(stub, method, request);
      assertA2aStatus(error, grpc.status.NOT_FOUND, 'TASK_NOT_FOUND');
    }
  });

  test('SendStreamingMessage streams the task, its artifact and the terminal status, then ends; SubscribeToTask refuses unknown and finished tasks', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    const events = await streamEvents(stub, 'SendStreamingMessage', { message: userMessage('streamed over grpc') });
    assert.equal(events[0].payload, 'task', 'the first event is the task');
    const last = events.at(-1);
    assert.equal(last.payload, 'statusUpdate');
    assert.equal(last.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    const artifact = events.find((event) => event.payload === 'artifactUpdate');
    assert.equal(artifact?.artifactUpdate.artifact.parts[0].text, 'streamed over grpc');
    const taskId = events[0].task.id;
    assertA2aStatus(await streamStatus(stub, 'SubscribeToTask', { id: 'x' }), grpc.status.NOT_FOUND, 'TASK_NOT_FOUND');
    assertA2aStatus(
      await streamStatus(stub, 'SubscribeToTask', { id: taskId }),
      grpc.status.FAILED_PRECONDITION,
      'UNSUPPORTED_OPERATION',
    );
  });
});

describe('A2A gRPC binding: the error mapping', () => {
  test('an unknown task is NOT_FOUND (TASK_NOT_FOUND), for GetTask, CancelTask and a follow-up message', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    assertA2aStatus((await unaryCall(stub, 'GetTask', { id: 'nope' })).error, grpc.status.NOT_FOUND, 'TASK_NOT_FOUND');
    assertA2aStatus((await unaryCall(stub, 'CancelTask', { id: 'nope' })).error, grpc.status.NOT_FOUND, 'TASK_NOT_FOUND');
    const followUp = await unaryCall(stub, 'SendMessage', { message: userMessage('x', { taskId: 'nope' }) });
    assertA2aStatus(followUp.error, grpc.status.NOT_FOUND, 'TASK_NOT_FOUND');
  });

  test('a message to a finished task is FAILED_PRECONDITION (UNSUPPORTED_OPERATION)', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    const done = (await unaryCall(stub, 'SendMessage', { message: userMessage('hi') })).answer.task;
    const again = await unaryCall(stub, 'SendMessage', { message: userMessage('more', { taskId: done.id }) });
    assertA2aStatus(again.error, grpc.status.FAILED_PRECONDITION, 'UNSUPPORTED_OPERATION');
  });

  test('bad params are INVALID_ARGUMENT (INVALID_PARAMS) with the field in the ErrorInfo metadata', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    const rows: [string, unknown, string][] = [
      ['SendMessage', {}, '/params/message'],
      ['SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }, '/params/message/messageId'],
      ['SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }, '/params/message/parts'],
      ['GetTask', {}, '/params/id'],
      ['ListTasks', { pageSize: 0 }, '/params/pageSize'],
      ['ListTasks', { pageToken: 'not-a-token' }, '/params/pageToken'],
    ];
    for (const [method, request, field] of rows) {
      const { error } = await unaryCall(stub, method, request);
      assertA2aStatus(error, grpc.status.INVALID_ARGUMENT, 'INVALID_PARAMS');
      assert.equal(errorInfoOf(error!).info?.metadata.field, field, `${method} ${JSON.stringify(request)}`);
    }
  });

  test('without A2A-Version in the metadata, or another version, the call is FAILED_PRECONDITION (VERSION_NOT_SUPPORTED)', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    const bare = await unaryCall(stub, 'GetTask', { id: 'x' }, new grpc.Metadata());
    assertA2aStatus(bare.error, grpc.status.FAILED_PRECONDITION, 'VERSION_NOT_SUPPORTED');
    assert.match(bare.error!.details, /no A2A-Version/);
    const old = await unaryCall(stub, 'GetTask', { id: 'x' }, metadataOf({ 'a2a-version': '0.3' }));
    assertA2aStatus(old.error, grpc.status.FAILED_PRECONDITION, 'VERSION_NOT_SUPPORTED');
    assert.equal(errorInfoOf(old.error!).info?.metadata.supported, '1.0');
    // A patch number does not count.
    const patch = await unaryCall(stub, 'GetTask', { id: 'x' }, metadataOf({ 'a2a-version': '1.0.3' }));
    assertA2aStatus(patch.error, grpc.status.NOT_FOUND, 'TASK_NOT_FOUND');
  });

  test('GetExtendedAgentCard without an extended card is FAILED_PRECONDITION (UNSUPPORTED_OPERATION)', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const stub = grpcJsStub(t, target);
    assertA2aStatus(
      (await unaryCall(stub, 'GetExtendedAgentCard', {})).error,
      grpc.status.FAILED_PRECONDITION,
      'UNSUPPORTED_OPERATION',
    );
  });
});

describe('A2A gRPC binding: authentication from metadata', () => {
  const KEY = 'grpc-a2a-key-0001';
  const EXTENDED = {
    description: 'For members.',
    skills: [{ id: 'translate', name: 'Translate', description: 'Translates.', tags: ['i18n'] }],
  };

  test('no credentials or a wrong key is UNAUTHENTICATED; the key in x-api-key or authorization is served', async (t) => {
    const authenticator = new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } });
    const { target } = await startGrpcA2aAgent(t, { authenticator, a2aExtendedCard: EXTENDED });
    const stub = grpcJsStub(t, target);
    const none = await unaryCall(stub, 'GetTask', { id: 'x' });
    assert.equal(none.error?.code, grpc.status.UNAUTHENTICATED);
    const wrong = await unaryCall(stub, 'SendMessage', { message: userMessage('x') }, metadataOf({ 'x-api-key': 'nope' }));
    assert.equal(wrong.error?.code, grpc.status.UNAUTHENTICATED);
    const sent = await unaryCall(stub, 'SendMessage', { message: userMessage('x') }, metadataOf({ 'x-api-key': KEY }));
    assert.equal(sent.answer.task.status.state, 'TASK_STATE_COMPLETED');
    const card = await unaryCall(stub, 'GetExtendedAgentCard', {}, metadataOf({ authorization: `ApiKey ${KEY}` }));
    assert.equal(card.error, undefined, card.error?.details);
    assert.equal(card.answer.description, EXTENDED.description);
    assert.deepEqual(
      card.answer.skills.map((skill: any) => skill.id),
      ['echo', 'translate'],
    );
    assert.deepEqual(card.answer.supportedInterfaces, [{ url: target, protocolBinding: 'GRPC', protocolVersion: '1.0' }]);
    assert.equal((await unaryCall(stub, 'GetExtendedAgentCard', {})).error?.code, grpc.status.UNAUTHENTICATED);
  });

  test('tasks stay with the principal that made them: another key gets NOT_FOUND', async (t) => {
    const authenticator = new ApiKeyAuthenticator({ validKeys: { [KEY]: [], 'other-key-000002': [] } });
    const { target } = await startGrpcA2aAgent(t, { authenticator });
    const stub = grpcJsStub(t, target);
    const mine = await unaryCall(stub, 'SendMessage', { message: userMessage('x') }, metadataOf({ 'x-api-key': KEY }));
    const theirs = await unaryCall(stub, 'GetTask', { id: mine.answer.task.id }, metadataOf({ 'x-api-key': 'other-key-000002' }));
    assertA2aStatus(theirs.error, grpc.status.NOT_FOUND, 'TASK_NOT_FOUND');
  });
});

describe('A2A gRPC binding: the card of a gRPC-only agent', () => {
  test('the public card, read through SvcTransport, lists the GRPC interface at host:port', async (t) => {
    const { url, target } = await startGrpcA2aAgent(t);
    const card: any = await cardOverGrpc(url);
    assert.deepEqual(card.supportedInterfaces, [{ url: target, protocolBinding: 'GRPC', protocolVersion: '1.0' }]);
    assert.equal(card.name, 'echo');
  });

  test('health knows the A2A service: SERVING while the agent runs', async (t) => {
    const { target } = await startGrpcA2aAgent(t);
    const health = new grpc.Client(target, grpc.credentials.createInsecure());
    t.after(() => health.close());
    const status = await new Promise<Buffer>((resolve, reject) =>
      health.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (service: string) => Buffer.concat([Buffer.from([10, service.length]), Buffer.from(service)]),
        (bytes: Buffer) => bytes,
        'lf.a2a.v1.A2AService',
        (error, answer) => (error ? reject(error) : resolve(answer!)),
      ),
    );
    // HealthCheckResponse { status: SERVING (1) }
    assert.deepEqual([...status], [8, 1]);
  });
});
