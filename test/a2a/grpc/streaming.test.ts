// Server streaming on the A2A gRPC binding (SendStreamingMessage, SubscribeToTask): each
// StreamResponse the request handler's AsyncIterable yields is one binary message, in order,
// and the call ends OK when the handler's stream ends. The agent's own handler streams once
// streaming lands in it (issue 32); until then these rows drive the binding with a handler
// whose streaming methods are written here, on the same grpc server and pipeline: a refusal
// before the first event is the call's status, a failure after it ends the stream with its
// status, a client that leaves stops the handler's stream, and credentials that expire end an
// open stream UNAUTHENTICATED, as native streams are ended.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, MessageShape } from '@bufbuild/protobuf';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { Code, ConnectError } from '@connectrpc/connect';
import * as grpc from '@grpc/grpc-js';
import type { SecurityContext } from '../../../generated/types/index.js';
import type { SendMessageRequestSchema, SubscribeToTaskRequestSchema } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { Role, TaskState } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { ErrorInfoSchema } from '../../../generated/proto/google/rpc/error_details_pb.js';
import { buildA2aEndpoints } from '../../../src/a2a/endpoints.js';
import { buildA2aCard } from '../../../src/a2a/card/agent-card.js';
import { A2aError } from '../../../src/a2a/errors/a2a-error.js';
import { A2aRequestHandler, type StreamResponseJson } from '../../../src/a2a/handler/request-handler.js';
import type { Authenticator } from '../../../src/auth/authenticator.js';
import type { RequestContext } from '../../../src/transport/endpoint.js';
import { createTransport } from '../../../src/transport/factory.js';
import type { Transport } from '../../../src/transport/transport.js';
import { connectClient, errorInfoOf, grpcJsStub, metadataOf, userMessage } from './support.js';

const status = (taskId: string, state: string): JsonObject => ({
  statusUpdate: { taskId, contextId: 'ctx', status: { state } },
});
const chunk = (taskId: string, text: string, append: boolean, lastChunk: boolean): JsonObject => ({
  artifactUpdate: { taskId, contextId: 'ctx', artifact: { artifactId: 'a1', parts: [{ text }] }, append, lastChunk },
});

/** A handler whose streams are scripted: `fail` fails after the first event, `hold` waits for the client to leave. */
class ScriptedStreams extends A2aRequestHandler {
  /** Resolved when a held stream's source is closed (the client left, or the call ended). */
  closed: Promise<void>;
  private close: () => void = () => undefined;

  constructor() {
    const refuse = () => {
      throw new Error('no engine in this test');
    };
    super({ engine: { submit: refuse, stream: refuse, cancel: refuse } });
    this.closed = new Promise((resolve) => (this.close = resolve));
  }

  override sendStreamingMessage(
    request: MessageShape<typeof SendMessageRequestSchema>,
    context: RequestContext,
  ): AsyncGenerator<StreamResponseJson, void, undefined> {
    const text = request.message?.parts[0]?.content.value;
    if (text === 'refuse') throw new A2aError('unsupportedOperation', 'not this one');
    return this.script(String(text), context);
  }

  override subscribeToTask(
    request: MessageShape<typeof SubscribeToTaskRequestSchema>,
    context: RequestContext,
  ): AsyncGenerator<StreamResponseJson, void, undefined> {
    if (request.id !== 't1') throw new A2aError('taskNotFound', `task ${request.id} not found`);
    return this.script('resubscribe', context);
  }

  private async *script(text: string, context: RequestContext): AsyncGenerator<StreamResponseJson, void, undefined> {
    try {
      yield { task: { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } } };
      if (text === 'fail') throw new A2aError('internalError', 'the model went away');
      if (text === 'hold') {
        yield status('t1', 'TASK_STATE_WORKING');
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
        return;
      }
      yield chunk('t1', `${text} `, false, false);
      yield chunk('t1', 'done', true, true);
      yield status('t1', 'TASK_STATE_COMPLETED');
    } finally {
      this.close();
    }
  }
}

async function startScripted(
  t: { after(fn: () => unknown): void },
  authenticator: Authenticator | null = null,
): Promise<{ transport: Transport; target: string; handler: ScriptedStreams }> {
  const handler = new ScriptedStreams();
  const transport = await createTransport('grpc', 'grpc://127.0.0.1:0', authenticator ? { authenticator } : {});
  const endpoints = buildA2aEndpoints({
    handler,
    transport: 'grpc',
    identity: { name: 'streams' },
    authenticator,
    url: () => transport.url,
  });
  await transport.start(endpoints);
  t.after(() => transport.stop());
  return { transport, target: transport.url.replace(/^grpc:\/\//, ''), handler };
}

/** Every message of a grpc-js server stream, and the status it ended with (null: OK). */
function readAll(call: grpc.ClientReadableStream<any>): Promise<{ events: any[]; error: grpc.ServiceError | null }> {
  const events: any[] = [];
  return new Promise((resolve) => {
    call.on('data', (event) => events.push(event));
    call.on('error', (error: grpc.ServiceError) => resolve({ events, error }));
    call.on('end', () => resolve({ events, error: null }));
  });
}

describe('A2A gRPC binding: server streaming', () => {
  test('grpc-js: the events in order, each a StreamResponse, then OK when the handler ends', async (t) => {
    const { target } = await startScripted(t);
    const stub = grpcJsStub(t, target);
    const { events, error } = await readAll(stub.SendStreamingMessage({ message: userMessage('hello') }, metadataOf()));
    assert.equal(error, null);
    assert.deepEqual(
      events.map((event) => event.payload),
      ['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    assert.equal(events[1].artifactUpdate.artifact.parts[0].text, 'hello ');
    assert.equal(events[2].artifactUpdate.append, true);
    assert.equal(events[2].artifactUpdate.lastChunk, true);
    assert.equal(events[3].statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });

  test('SubscribeToTask streams the same way; an unknown task is NOT_FOUND before any event', async (t) => {
    const { target } = await startScripted(t);
    const stub = grpcJsStub(t, target);
    const found = await readAll(stub.SubscribeToTask({ id: 't1' }, metadataOf()));
    assert.equal(found.error, null);
    assert.equal(found.events.length, 4);
    const missing = await readAll(stub.SubscribeToTask({ id: 'nope' }, metadataOf()));
    assert.equal(missing.events.length, 0);
    assert.equal(missing.error?.code, grpc.status.NOT_FOUND);
    assert.equal(errorInfoOf(missing.error!).info?.reason, 'TASK_NOT_FOUND');
  });

  test('a refusal before the first event and a failure after it end the call with their status', async (t) => {
    const { target } = await startScripted(t);
    const stub = grpcJsStub(t, target);
    const refused = await readAll(stub.SendStreamingMessage({ message: userMessage('refuse') }, metadataOf()));
    assert.equal(refused.events.length, 0);
    assert.equal(refused.error?.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(errorInfoOf(refused.error!).info?.reason, 'UNSUPPORTED_OPERATION');
    const failed = await readAll(stub.SendStreamingMessage({ message: userMessage('fail') }, metadataOf()));
    assert.equal(failed.events.length, 1);
    assert.equal(failed.error?.code, grpc.status.INTERNAL);
    assert.equal(errorInfoOf(failed.error!).info?.reason, 'INTERNAL_ERROR');
    assert.equal(failed.error?.details, 'the model went away');
    const versionless = await readAll(stub.SendStreamingMessage({ message: userMessage('hello') }, new grpc.Metadata()));
    assert.equal(versionless.error?.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(errorInfoOf(versionless.error!).info?.reason, 'VERSION_NOT_SUPPORTED');
  });

  test("a client that leaves stops the handler's stream", async (t) => {
    const { target, handler } = await startScripted(t);
    const stub = grpcJsStub(t, target);
    const call = stub.SendStreamingMessage({ message: userMessage('hold') }, metadataOf()) as grpc.ClientReadableStream<any>;
    call.on('error', () => undefined);
    let seen = 0;
    await new Promise<void>((resolve) =>
      call.on('data', () => {
        if (++seen === 2) resolve();
      }),
    );
    call.cancel();
    await handler.closed;
  });

  test('credentials that expire end an open stream UNAUTHENTICATED, after the events sent before', async (t) => {
    // Long enough for the stream to open on a loaded machine; the expiry is what the row is about.
    const expiresAt = Date.now() + 2000;
    const context: SecurityContext = {
      principal_id: 'short-lived',
      token: 'short-lived-token',
      expires_at: new Date(expiresAt).toISOString(),
    } as SecurityContext;
    const authenticator: Authenticator = {
      scheme: { type: 'http', scheme: 'bearer' } as Authenticator['scheme'],
      authenticate: async (token) => {
        if (token !== 'short-lived-token') throw new Error('unknown token');
        return context;
      },
      refreshToken: async () => context,
    };
    const { target } = await startScripted(t, authenticator);
    const stub = grpcJsStub(t, target);
    const { events, error } = await readAll(
      stub.SendStreamingMessage({ message: userMessage('hold') }, metadataOf({ authorization: 'Bearer short-lived-token' })),
    );
    assert.equal(events.length, 2);
    assert.equal(error?.code, grpc.status.UNAUTHENTICATED);
    assert.match(error!.details, /expired/);
  });

  test('connect-es reads the stream as typed StreamResponse messages', async (t) => {
    const { target } = await startScripted(t);
    const client = connectClient(target);
    const cases: string[] = [];
    for await (const event of client.sendStreamingMessage(
      { message: { messageId: 'c-1', role: Role.USER, parts: [{ content: { case: 'text', value: 'typed' } }] } },
      { headers: { 'a2a-version': '1.0' } },
    )) {
      cases.push(event.payload.case ?? 'none');
      if (event.payload.case === 'statusUpdate') assert.equal(event.payload.value.status?.state, TaskState.COMPLETED);
    }
    assert.deepEqual(cases, ['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
    const error = await (async () => {
      for await (const _ of client.subscribeToTask({ id: 'nope' }, { headers: { 'a2a-version': '1.0' } })) void _;
    })().then(
      () => null,
      (failure: unknown) => ConnectError.from(failure),
    );
    assert.equal(error?.code, Code.NotFound);
    assert.equal(error?.findDetails(ErrorInfoSchema)[0]?.reason, 'TASK_NOT_FOUND');
  });

  test("the official SDK's gRPC client streams from the binding", async (t) => {
    const { transport } = await startScripted(t);
    // The card as the agent builds it, streaming declared (the agent's own card says so once
    // its handler streams).
    const card = buildA2aCard({ name: 'streams' }, transport.url, null);
    (card.capabilities as JsonObject).streaming = true;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new GrpcTransportFactory()],
        cardResolver: new DefaultAgentCardResolver({
          fetchImpl: async () => new Response(JSON.stringify(card), { headers: { 'content-type': 'application/json' } }),
        }),
      }),
    );
    const client = await factory.createFromUrl('http://card.invalid');
    const kinds: string[] = [];
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: {
        messageId: 'sdk-s',
        contextId: '',
        taskId: '',
        role: 1,
        parts: [{ content: { $case: 'text', value: 'sdk' }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    } as any)) {
      kinds.push((event as any).payload?.$case ?? 'unknown');
    }
    assert.deepEqual(kinds, ['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
  });
});
