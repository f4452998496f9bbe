// parley's AgentClient drives an @a2a-js/sdk agent over each A2A binding (JSON-RPC, HTTP+JSON,
// gRPC, the SDK's own servers): send, get, list, cancel, stream, subscribe from a second
// client, and errors, the same rows on each binding with the same answers. Then the binding
// choice, from cards the SDK agent serves: the card's order, a forced binding, what is skipped,
// and a card without streaming.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamEvent } from '../../generated/types/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { A2aClientError } from '../../src/a2a/client/errors.js';
import { TransportLimitError } from '../../src/transport/errors.js';
import { type Binding, startStreamingSdkAgent, type StreamingSdkAgentOptions } from './sdk-streaming-agent.js';

type Scope = { after(fn: () => unknown): void };

async function sdkAgent(t: Scope, options?: StreamingSdkAgentOptions) {
  const agent = await startStreamingSdkAgent(options);
  t.after(() => agent.close());
  return agent;
}

function client(t: Scope, url: string, options: ConstructorParameters<typeof AgentClient>[1] = {}): AgentClient {
  const made = new AgentClient(url, { protocol: 'a2a', ...options });
  t.after(() => made.close());
  return made;
}

/** What a test compares of an event: its type, and the state or the parts' text. */
function summary(event: StreamEvent): string {
  switch (event.type) {
    case 'task_status':
    case 'task_completed':
      return `${event.type} ${event.state}`;
    case 'task_artifact':
      return `${event.type} ${event.artifact.id} ${event.artifact.parts.map((part) => part.content).join('|')}`;
    case 'task_message':
      return `${event.type} ${event.message.role} ${event.message.parts.map((part) => part.content).join('|')}`;
    default:
      return event.type;
  }
}

function remoteId(event: StreamEvent): string {
  assert.ok('task' in event, `${event.type} carries no task`);
  return (event.task.metadata!.a2a_remote as { task_id: string }).task_id;
}

const isA2a = (kind: string, rpcCode: number) => (error: unknown) =>
  error instanceof A2aClientError && error.code === 'a2a_rpc_error' && error.kind === kind && error.rpcCode === rpcCode;

for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const satisfies readonly Binding[]) {
  describe(`AgentClient over the SDK's ${binding} binding`, () => {
    test('the forced binding is the one used', async (t) => {
      const agent = await sdkAgent(t);
      const peer = await client(t, agent.url, { a2aBinding: binding }).a2a();
      const chosen = await peer.binding();
      assert.equal(chosen.binding, binding);
      assert.equal(chosen.streaming, true);
    });

    test('send: the task completes with the artifact put together from its chunks and the reply', async (t) => {
      const agent = await sdkAgent(t);
      const task = await client(t, agent.url, { a2aBinding: binding }).sendTask({
        id: 'local-1',
        messages: [{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }],
      });
      assert.equal(task.id, 'local-1');
      assert.equal(task.state, 'completed');
      assert.deepEqual(
        task.artifacts!.map((artifact) => artifact.parts.map((part) => part.content)),
        [['echo: ', 'hello']],
      );
      assert.deepEqual(task.messages!.at(-1)!.parts, [{ type: 'text', content: 'echo: hello' }]);
      assert.equal((task.metadata!.a2a_remote as { state: string }).state, 'TASK_STATE_COMPLETED');
    });

    test('get and list: the task by the agent’s id, and among the listed ones', async (t) => {
      const agent = await sdkAgent(t);
      const parley = client(t, agent.url, { a2aBinding: binding });
      const sent = await parley.sendTask('one');
      const id = (sent.metadata!.a2a_remote as { task_id: string }).task_id;
      const peer = await parley.a2a();
      const got = await peer.getTask(id);
      assert.equal(got.id, id);
      assert.equal(got.status?.state, 3 /* TASK_STATE_COMPLETED */);
      assert.deepEqual(
        got.artifacts.map((artifact) => artifact.artifactId),
        ['doc'],
      );
      await parley.sendTask('two');
      const listed = await peer.listTasks({ pageSize: 10 });
      assert.equal(listed.tasks.length, 2);
      assert.ok(listed.tasks.some((task) => task.id === id));
    });

    test('stream: the events in order, mapped to native ones, ending with task_completed', async (t) => {
      const agent = await sdkAgent(t);
      const events: StreamEvent[] = [];
      for await (const event of client(t, agent.url, { a2aBinding: binding }).streamTask({
        id: 'local-s',
        messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }],
      }))
        events.push(event);
      assert.deepEqual(events.map(summary), [
        'task_status submitted',
        'task_status working',
        'task_artifact doc echo: ',
        'task_artifact doc echo: |hi',
        'task_message agent echo: hi',
        'task_completed completed',
      ]);
      assert.ok(events.every((event) => event.task_id === 'local-s'));
      const last = events.at(-1) as Extract<StreamEvent, { type: 'task_completed' }>;
      assert.deepEqual(
        last.task.artifacts!.map((artifact) => artifact.parts.map((part) => part.content)),
        [['echo: ', 'hi']],
      );
    });

    test('subscribe: a second client follows a running task it did not start, to the end', async (t) => {
      const agent = await sdkAgent(t);
      const starter = client(t, agent.url, { a2aBinding: binding }).streamTask('wait')[Symbol.asyncIterator]();
      let first = await starter.next();
      while (!first.done && !(first.value.type === 'task_status' && first.value.state === 'working'))
        first = await starter.next();
      const id = remoteId(first.value as StreamEvent);
      const follower = client(t, agent.url, { a2aBinding: binding }).subscribe(id)[Symbol.asyncIterator]();
      const now = await follower.next();
      assert.equal(summary(now.value as StreamEvent), 'task_status working', 'first, the task as it is');
      agent.release(id);
      const rest: string[] = [];
      for (let next = await follower.next(); !next.done; next = await follower.next()) rest.push(summary(next.value));
      assert.deepEqual(rest, [
        'task_artifact doc echo: ',
        'task_artifact doc echo: |wait',
        'task_message agent echo: wait',
        'task_completed completed',
      ]);
      const starterRest: string[] = [];
      for (let next = await starter.next(); !next.done; next = await starter.next()) starterRest.push(summary(next.value));
      assert.equal(starterRest.at(-1), 'task_completed completed', 'the starter sees the end too');
    });

    test('cancel: a running task by its local id; its stream ends canceled', async (t) => {
      const agent = await sdkAgent(t);
      const parley = client(t, agent.url, { a2aBinding: binding });
      const stream = parley.streamTask({
        id: 'local-c',
        messages: [{ role: 'user', parts: [{ type: 'text', content: 'wait' }] }],
      });
      const events = stream[Symbol.asyncIterator]();
      let event = await events.next();
      while (!event.done && !(event.value.type === 'task_status' && event.value.state === 'working')) event = await events.next();
      const canceled = await parley.cancel('local-c', 'no longer needed');
      assert.equal(canceled.id, 'local-c');
      const rest: string[] = [];
      for (let next = await events.next(); !next.done; next = await events.next()) rest.push(summary(next.value));
      assert.equal(rest.at(-1), 'task_completed canceled');
    });

    test('an event over max_event_bytes ends the stream with TransportLimitError', async (t) => {
      const agent = await sdkAgent(t);
      const parley = client(t, agent.url, { a2aBinding: binding, limits: { maxEventBytes: 100 } });
      await assert.rejects(
        async () => {
          for await (const _ of parley.streamTask('a task whose first event is longer than 100 bytes')) {
            // the first event is already too large
          }
        },
        (error) => error instanceof TransportLimitError && error.limit === 100,
      );
      assert.equal((await parley.sendTask('unary calls are not events')).state, 'completed');
    });

    test('errors: the same A2aClientError kind and JSON-RPC code on every binding', async (t) => {
      const agent = await sdkAgent(t);
      const parley = client(t, agent.url, { a2aBinding: binding });
      const peer = await parley.a2a();
      await assert.rejects(peer.getTask('no-such-task'), isA2a('taskNotFound', -32001));
      const done = await parley.sendTask({
        id: 'local-e',
        messages: [{ role: 'user', parts: [{ type: 'text', content: 'x' }] }],
      });
      assert.equal(done.state, 'completed');
      await assert.rejects(parley.cancel('local-e'), isA2a('taskNotCancelable', -32002));
      const subscribe = async () => {
        for await (const _ of parley.subscribe((done.metadata!.a2a_remote as { task_id: string }).task_id)) {
          // a finished task cannot be subscribed to
        }
      };
      await assert.rejects(subscribe, isA2a('unsupportedOperation', -32004));
      await assert.rejects(
        async () => {
          for await (const _ of parley.subscribe('no-such-task')) {
            // nothing to follow
          }
        },
        isA2a('taskNotFound', -32001),
      );
    });
  });
}

describe('which binding the client picks from the card', () => {
  const cases: { name: string; agent: StreamingSdkAgentOptions; force?: Binding; expected: Binding }[] = [
    { name: 'the first of the card, JSON-RPC', agent: { order: ['JSONRPC', 'HTTP+JSON', 'GRPC'] }, expected: 'JSONRPC' },
    { name: 'the first of the card, HTTP+JSON', agent: { order: ['HTTP+JSON', 'GRPC', 'JSONRPC'] }, expected: 'HTTP+JSON' },
    { name: 'the first of the card, gRPC', agent: { order: ['GRPC', 'JSONRPC'] }, expected: 'GRPC' },
    { name: 'a binding parley does not speak is skipped', agent: { order: ['SOAP', 'HTTP+JSON'] }, expected: 'HTTP+JSON' },
    { name: 'forced, though not first', agent: { order: ['JSONRPC', 'HTTP+JSON', 'GRPC'] }, force: 'GRPC', expected: 'GRPC' },
  ];
  for (const row of cases) {
    test(row.name, async (t) => {
      const agent = await sdkAgent(t, row.agent);
      const parley = client(t, agent.url, row.force ? { a2aBinding: row.force } : {});
      assert.equal((await (await parley.a2a()).binding()).binding, row.expected);
      assert.deepEqual((await parley.sendMessage('x')).parts, [{ type: 'text', content: 'echo: x' }]);
    });
  }

  test('a forced binding the card does not offer: a2a_incompatible_card, nothing sent', async (t) => {
    const agent = await sdkAgent(t, { order: ['JSONRPC'] });
    await assert.rejects(
      client(t, agent.url, { a2aBinding: 'GRPC' }).sendMessage('x'),
      (error) => error instanceof A2aClientError && error.code === 'a2a_incompatible_card' && /GRPC/.test(error.message),
    );
  });

  test('interfaces of another protocol version are skipped', async (t) => {
    const agent = await sdkAgent(t, { version: '0.3' });
    await assert.rejects(
      client(t, agent.url).sendMessage('x'),
      (error) => error instanceof A2aClientError && error.code === 'a2a_incompatible_card',
    );
  });

  test('an unknown a2aBinding is a RangeError at construction', () => {
    assert.throws(() => new AgentClient('http://127.0.0.1:1', { a2aBinding: 'SOAP' as Binding }), RangeError);
  });

  test('without capabilities.streaming: streamTask is one SendMessage, subscribe is refused', async (t) => {
    const agent = await sdkAgent(t, { streaming: false });
    const parley = client(t, agent.url);
    const events: StreamEvent[] = [];
    for await (const event of parley.streamTask('plain')) events.push(event);
    assert.deepEqual(events.map(summary), ['task_completed completed']);
    await assert.rejects(
      async () => {
        for await (const _ of parley.subscribe('any')) {
          // refused before anything is sent
        }
      },
      (error) => error instanceof A2aClientError && error.code === 'a2a_streaming_unsupported',
    );
  });
});

describe('subscribe by local id, and a2a() on a native peer', () => {
  test('a local id this client sent is followed under the remote id, its events under the local one', async (t) => {
    const agent = await sdkAgent(t);
    const parley = client(t, agent.url);
    const started = parley.streamTask({
      id: 'local-w',
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'wait' }] }],
    });
    const events = started[Symbol.asyncIterator]();
    let event = await events.next();
    while (!event.done && !(event.value.type === 'task_status' && event.value.state === 'working')) event = await events.next();
    const follower = parley.subscribe('local-w')[Symbol.asyncIterator]();
    const now = await follower.next();
    assert.equal(now.value?.task_id, 'local-w');
    agent.release(remoteId(event.value as StreamEvent));
    let last: StreamEvent | undefined;
    for (let next = await follower.next(); !next.done; next = await follower.next()) last = next.value;
    assert.equal(last?.type, 'task_completed');
    assert.equal(last?.task_id, 'local-w');
    let starterLast: StreamEvent | undefined;
    for (let next = await events.next(); !next.done; next = await events.next()) starterLast = next.value;
    assert.equal(starterLast?.type, 'task_completed');
  });

  test('a2a() and subscribe on a parley peer: InvalidArgumentError', async (t) => {
    const native = new AgentServer({ name: 'native' });
    await native.start();
    t.after(() => native.stop());
    const parley = new AgentClient(native.url);
    t.after(() => parley.close());
    await assert.rejects(parley.a2a(), (error: Error) => error.name === 'InvalidArgumentError');
    await assert.rejects(
      async () => {
        for await (const _ of parley.subscribe('x')) {
          // a parley peer has no SubscribeToTask
        }
      },
      (error: Error) => error.name === 'InvalidArgumentError',
    );
  });
});
