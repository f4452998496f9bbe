// A2A 1.0 streaming over JSON-RPC (issue 32 item 1): SendStreamingMessage and SubscribeToTask
// answered as server-sent events on POST /, driven by the official SDK's client (@a2a-js/sdk,
// JSON-RPC transport) and by raw requests where the wire itself is the subject: the event
// order, the stream closing after the last status, refusals as plain JSON-RPC errors, and a
// caller that leaves freeing its stream slot.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { SignJWT } from 'jose';
import { needsInput, type AgentHandler } from '../../src/agent/handler.js';
import { JwtAuthenticator } from '../../src/auth/jwt.js';
import { MemoryTaskIndex } from '../../src/stores/memory/memory-task-index.js';
import type { TaskScope } from '../../src/stores/task-entries.js';
import { aborted } from '../support/async.js';
import { call, postRpc, startA2aAgent, userMessage } from './support.js';

const ROLE_USER = 1;
const STATE = { WORKING: 2, COMPLETED: 3, CANCELED: 5, INPUT_REQUIRED: 6 } as const;

/** Releases for tasks that wait for the test (`hold`). */
const holds = new Map<string, () => void>();

/** Streams an artifact and a message before it ends; `hold` waits until the test releases it. */
const handler: AgentHandler = async function* ({ input, artifact, signal }) {
  if (input === 'hold') {
    await new Promise<void>((resolve) => {
      holds.set('hold', resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  artifact({ kind: 'result', name: 'notes', text: `notes on ${input}` });
  yield { type: 'task_progress', progress: 0.5 } as never;
  return `echo: ${input}`;
};

function message(text: string, extra: Record<string, unknown> = {}): any {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
    ...extra,
  };
}

async function sdkClient(url: string): Promise<Client> {
  return new ClientFactory().createFromUrl(url);
}

const kinds = (events: any[]) => events.map((event) => event.payload?.$case);

/** POSTs one JSON-RPC call and reads the whole answer: its content type and each SSE event's JSON. */
async function rawStream(url: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'req-7', method, params }),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const events = type.startsWith('text/event-stream')
    ? text
        .split('\n\n')
        .filter((frame) => frame.startsWith('data: '))
        .map((frame) => JSON.parse(frame.slice(6)))
    : [];
  return { status: response.status, type, text, events };
}

describe('A2A streaming: SendStreamingMessage', () => {
  test('the card says streaming is on', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const card: any = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    assert.equal(card.capabilities.streaming, true);
  });

  test('the SDK client streams the task, an artifact, the reply, the result, then the completed status, and the stream ends', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const client = await sdkClient(url);
    const events: any[] = [];
    for await (const event of client.sendMessageStream({ message: message('hello') } as any)) events.push(event);
    assert.deepEqual(kinds(events), ['task', 'artifactUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    const [first, notes, reply, result, last] = events.map((event) => event.payload.value);
    assert.equal(reply.status.state, STATE.WORKING);
    assert.equal(reply.status.message.parts[0].content.value, 'echo: hello');
    assert.equal(first.status.state, STATE.WORKING);
    assert.equal(notes.taskId, first.id);
    assert.equal(notes.artifact.name, 'notes');
    assert.equal(notes.lastChunk, true);
    assert.equal(notes.append, false);
    assert.equal(result.artifact.parts[0].content.value, 'echo: hello');
    assert.equal(last.status.state, STATE.COMPLETED);
    assert.equal(last.contextId, first.contextId);
    const stored: any = await client.getTask({ id: first.id } as any);
    assert.equal(stored.status.state, STATE.COMPLETED, 'the index knows the task finished');
    assert.equal(stored.artifacts.length, 2);
  });

  test("a model's text arrives as chunks of one artifact: append after the first, lastChunk on the last", async (t) => {
    const chunks: AgentHandler = async function* () {
      for (const [delta, final] of [
        ['Hel', false],
        ['lo ', false],
        ['there', true],
      ] as const)
        yield { type: 'task_llm_stream', delta, final, message_id: 'reply-1', model: 'scripted', step: 1 };
      return 'Hello there';
    };
    const { url } = await startA2aAgent(t, { handler: chunks });
    const client = await sdkClient(url);
    const events: any[] = [];
    for await (const event of client.sendMessageStream({ message: message('hi') } as any)) events.push(event);
    const text = events
      .filter((event) => event.payload.$case === 'artifactUpdate' && event.payload.value.artifact.name === 'model text')
      .map((event) => event.payload.value);
    assert.deepEqual(
      text.map((update) => [update.artifact.parts[0].content.value, update.append, update.lastChunk]),
      [
        ['Hel', false, false],
        ['lo ', true, false],
        ['there', true, true],
      ],
    );
    assert.equal(new Set(text.map((update) => update.artifact.artifactId)).size, 1, 'one artifact');
    assert.equal(events.at(-1).payload.value.status.state, STATE.COMPLETED);
  });

  test('on the wire: text/event-stream, each event a JSON-RPC response with the request id', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const answer = await rawStream(url, 'SendStreamingMessage', { message: userMessage('wire') });
    assert.equal(answer.status, 200);
    assert.match(answer.type, /^text\/event-stream/);
    assert.ok(answer.events.length >= 3);
    for (const event of answer.events) {
      assert.equal(event.jsonrpc, '2.0');
      assert.equal(event.id, 'req-7');
      assert.ok(event.result, JSON.stringify(event));
    }
    assert.ok(answer.events[0].result.task);
    assert.equal(answer.events.at(-1).result.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });

  test('bad params and a message to an unknown task are plain JSON-RPC errors, not a stream', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const bad = await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { parts: 3 } } });
    assert.equal(bad.json.error.code, -32602);
    const unknown = await call(url, 'SendStreamingMessage', { message: userMessage('x', { taskId: 'no-such-task' }) });
    assert.equal(unknown.error.code, -32001);
  });

  test('a streaming method in a batch is -32600 for that member', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const answer = await postRpc(url, [
      { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('a') } },
    ]);
    assert.equal(answer.json[0].error.code, -32600);
  });
});

describe('A2A streaming: SubscribeToTask', () => {
  test('from another connection: the current task, then the rest, ending with the last status', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const client = await sdkClient(url);
    const started: any = await client.sendMessage({
      message: message('hold'),
      configuration: { returnImmediately: true },
    } as any);
    assert.equal(started.status.state, STATE.WORKING);
    const events: any[] = [];
    const subscribed = (async () => {
      for await (const event of client.resubscribeTask({ id: started.id } as any)) {
        events.push(event);
        // The current task arrived: the task may now go on.
        if (events.length === 1) holds.get('hold')?.();
      }
    })();
    await subscribed;
    assert.equal(kinds(events)[0], 'task');
    assert.equal(events[0].payload.value.id, started.id);
    assert.equal(events.at(-1).payload.$case, 'statusUpdate');
    assert.equal(events.at(-1).payload.value.status.state, STATE.COMPLETED);
    // The task ran without a stream: its artifacts come whole, before its last status.
    const artifacts = events.filter((event) => event.payload.$case === 'artifactUpdate').map((event) => event.payload.value);
    assert.equal(artifacts.length, 2);
    assert.equal(artifacts[0].artifact.name, 'notes');
    assert.equal(artifacts[1].artifact.parts[0].content.value, 'echo: hold');
  });

  test('a subscriber to a streaming task gets the events the streaming caller gets after it', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const client = await sdkClient(url);
    const stream = client.sendMessageStream({ message: message('hold') } as any);
    const first: any = (await stream.next()).value;
    const taskId = first.payload.value.id;
    const subscriber: any[] = [];
    const subscribed = (async () => {
      for await (const event of client.resubscribeTask({ id: taskId } as any)) {
        subscriber.push(event);
        if (subscriber.length === 1) holds.get('hold')?.();
      }
    })();
    const rest: any[] = [];
    for await (const event of stream) rest.push(event);
    await subscribed;
    assert.equal(rest.at(-1).payload.value.status.state, STATE.COMPLETED);
    assert.equal(subscriber[0].payload.$case, 'task');
    assert.equal(subscriber.at(-1).payload.value.status.state, STATE.COMPLETED);
  });

  test('a task waiting for input: the task, then its input-required status, and the stream ends', async (t) => {
    const asking: AgentHandler = () => needsInput('which city?');
    const { url } = await startA2aAgent(t, { handler: asking });
    const client = await sdkClient(url);
    const waiting: any = await client.sendMessage({ message: message('weather') } as any);
    assert.equal(waiting.status.state, STATE.INPUT_REQUIRED);
    const events: any[] = [];
    for await (const event of client.resubscribeTask({ id: waiting.id } as any)) events.push(event);
    assert.deepEqual(kinds(events), ['task', 'statusUpdate']);
    assert.equal(events[1].payload.value.status.state, STATE.INPUT_REQUIRED);
  });

  test('an unknown task is TaskNotFoundError (-32001); a finished one UnsupportedOperationError (-32004)', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const client = await sdkClient(url);
    await assert.rejects(async () => {
      for await (const _ of client.resubscribeTask({ id: 'no-such-task' } as any)) {
        // nothing arrives
      }
    }, TaskNotFoundError);
    const done: any = await client.sendMessage({ message: message('done') } as any);
    await assert.rejects(async () => {
      for await (const _ of client.resubscribeTask({ id: done.id } as any)) {
        // nothing arrives
      }
    }, UnsupportedOperationError);
    const raw = await call(url, 'SubscribeToTask', { id: done.id });
    assert.equal(raw.error.code, -32004);
    assert.equal((await call(url, 'SubscribeToTask', {})).error.code, -32602);
  });
});

describe('A2A streaming: a caller that leaves', () => {
  test('frees its stream slot and cancels its task', async (t) => {
    const { url } = await startA2aAgent(t, {
      handler,
      transportOptions: { limits: { maxConcurrentStreams: 1 } },
    });
    const controller = new AbortController();
    const response = await fetch(`${url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('hold') } }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = JSON.parse(first.slice(first.indexOf('{'), first.indexOf('\n\n'))).result.task.id;
    controller.abort();
    await reader.cancel().catch(() => undefined);
    // The only stream slot is free again: a new stream runs to its end.
    const client = await sdkClient(url);
    const events: any[] = [];
    for await (const event of client.sendMessageStream({ message: message('after') } as any)) events.push(event);
    assert.equal(events.at(-1).payload.value.status.state, STATE.COMPLETED);
    const left = (await call(url, 'GetTask', { id: taskId })).result;
    assert.equal(left.status.state, 'TASK_STATE_CANCELED');
  });
});

/** The memory index, telling the test each time a task is looked up (a handler method has run that far). */
class WatchedIndex extends MemoryTaskIndex {
  private waiter: (() => void) | null = null;

  /** Resolves at the next lookup. */
  nextGet(): Promise<void> {
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  override get(scope: TaskScope, id: string) {
    const answer = super.get(scope, id);
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
    return answer;
  }
}

describe('A2A streaming: streams waiting for a stream slot', () => {
  // One stream slot and one request slot. Before, a SubscribeToTask waiting for the stream slot
  // held the request slot meanwhile, so every unary call of the agent (GetTask here, but also
  // SendMessage and the native routes) waited until some stream ended: a caller with twice
  // max_concurrent_streams connections froze the agent. The timeout only keeps that hang from
  // stalling the suite; fixed, GetTask is answered as soon as it is read.
  for (const binding of ['JSON-RPC', 'HTTP+JSON'] as const) {
    test(`over ${binding}, a queued SubscribeToTask leaves the request slot to GetTask`, { timeout: 60_000 }, async (t) => {
      const index = new WatchedIndex();
      // Registered before the agent's stop, so it runs first: the held task ends, nothing waits.
      const leave = new AbortController();
      t.after(() => {
        leave.abort();
        holds.get('hold')?.();
      });
      const { url } = await startA2aAgent(t, {
        handler,
        a2aTaskIndex: index,
        transportOptions: { limits: { maxConcurrentStreams: 1, maxConcurrentRequests: 1 } },
      });
      const held = (await call(url, 'SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: true } }))
        .result.task;
      const subscribe = (signal: AbortSignal) =>
        binding === 'JSON-RPC'
          ? fetch(`${url}/`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: held.id } }),
              signal,
            })
          : fetch(`${url}/a2a/rest/tasks/${held.id}:subscribe`, { method: 'POST', headers: { 'a2a-version': '1.0' }, signal });
      // The first subscriber holds the only stream slot.
      const open = await subscribe(leave.signal);
      assert.equal(open.headers.get('content-type')?.split(';')[0], 'text/event-stream');
      await open.body!.getReader().read();
      // The second has read the task (its handler ran) and now waits for the stream slot.
      const looked = index.nextGet();
      const queued = subscribe(leave.signal).catch(() => undefined);
      await looked;
      await new Promise((resolve) => setImmediate(resolve));
      const answer = await call(url, 'GetTask', { id: held.id });
      assert.equal(answer.result?.id, held.id, JSON.stringify(answer));
      assert.equal(answer.result.status.state, 'TASK_STATE_WORKING');
      leave.abort();
      await queued;
    });
  }
});

describe('A2A streaming: credentials', () => {
  const SECRET = 'a2a-streaming-test-secret-0123456789';
  test('a stream outlives no token: it ends with a JSON-RPC error event once the token expires', {
    timeout: 20_000,
  }, async (t) => {
    const waiting: AgentHandler = async ({ signal }) => {
      throw await aborted(signal);
    };
    const { url } = await startA2aAgent(t, { handler: waiting, authenticator: new JwtAuthenticator({ secret: SECRET }) });
    // Valid from now for one to two seconds (exp is in whole seconds).
    const exp = Math.ceil(Date.now() / 1000) + 1;
    const token = await new SignJWT({ sub: 'alice', exp })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(SECRET));
    const answer = await rawStream(
      url,
      'SendStreamingMessage',
      { message: userMessage('a long job') },
      {
        authorization: `Bearer ${token}`,
      },
    );
    assert.match(answer.type, /^text\/event-stream/);
    assert.ok(answer.events[0].result.task, 'the stream opened');
    const last = answer.events.at(-1);
    assert.equal(last.id, 'req-7');
    assert.equal(last.error.code, -32603);
    assert.equal(last.error.message, 'the credentials expired');
    assert.equal(last.error.data[0].metadata.reason, 'unauthenticated');
    assert.ok(Date.now() >= exp * 1000, 'not before the token expired');
  });
});
