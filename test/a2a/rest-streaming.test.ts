// A2A 1.0 streaming over HTTP+JSON (issue 32): POST /a2a/rest/message:stream and
// /a2a/rest/tasks/{id}:subscribe answered as server-sent events whose data is each StreamResponse
// itself (A2A section 11.7, no envelope), driven by the official SDK's REST transport and by raw
// requests; the same events, in the same order, as the JSON-RPC binding streams; refusals
// before the first event are ordinary HTTP errors in the binding's shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { AgentHandler } from '../../src/agent/handler.js';
import { startA2aAgent, userMessage } from './support.js';

const ROLE_USER = 1;
const STATE = { WORKING: 2, COMPLETED: 3 } as const;
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** Releases for tasks that wait for the test (`hold`), by test. */
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

function message(text: string): any {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
  };
}

function sdkClient(url: string, binding: 'HTTP+JSON' | 'JSONRPC'): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }),
  );
  return factory.createFromUrl(url);
}

const kinds = (events: any[]) => events.map((event) => event.payload?.$case);

/** A stream's events without what differs from run to run (ids, times). */
function shapeOf(events: any[]): unknown[] {
  return events.map((event) => {
    const value = event.payload.value;
    switch (event.payload.$case) {
      case 'task':
        return ['task', value.status.state];
      case 'statusUpdate':
        return ['status', value.status.state, value.status.message?.parts?.[0]?.content?.value];
      case 'artifactUpdate':
        return ['artifact', value.artifact.name, value.artifact.parts[0].content.value, value.append, value.lastChunk];
      default:
        return [event.payload.$case];
    }
  });
}

/** One raw request, read whole: its status, content type, and each `data:` event as JSON (or the JSON body). */
async function raw(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/a2a/rest${path}`, {
    method,
    headers: HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const events = type.startsWith('text/event-stream')
    ? text
        .split('\n\n')
        .filter((frame) => frame.startsWith('data: '))
        .map((frame) => JSON.parse(frame.slice(6)))
    : [];
  return { status: response.status, type, events, json: type.startsWith('application/json') ? JSON.parse(text) : undefined };
}

describe('A2A HTTP+JSON streaming', () => {
  test('the SDK REST client streams the task, an artifact, the reply, the result, then the completed status', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const client = await sdkClient(url, 'HTTP+JSON');
    const events: any[] = [];
    for await (const event of client.sendMessageStream({ message: message('hello') } as any)) events.push(event);
    assert.deepEqual(kinds(events), ['task', 'artifactUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    assert.equal(events.at(-1).payload.value.status.state, STATE.COMPLETED);
    const stored: any = await client.getTask({ id: events[0].payload.value.id } as any);
    assert.equal(stored.status.state, STATE.COMPLETED);
  });

  test('the same stream as JSON-RPC gives, event for event', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const streams: unknown[][] = [];
    for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
      const client = await sdkClient(url, binding);
      const events: any[] = [];
      for await (const event of client.sendMessageStream({ message: message('same') } as any)) events.push(event);
      streams.push(shapeOf(events));
    }
    assert.deepEqual(streams[1], streams[0]);
    assert.deepEqual(streams[0]!.at(-1), ['status', STATE.COMPLETED, 'echo: same']);
  });

  test('on the wire: text/event-stream, each data line a bare StreamResponse', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const answer = await raw(url, 'POST', '/message:stream', { message: userMessage('wire') });
    assert.equal(answer.status, 200);
    assert.match(answer.type, /^text\/event-stream/);
    assert.ok(answer.events[0].task, JSON.stringify(answer.events[0]));
    for (const event of answer.events) {
      assert.equal(event.jsonrpc, undefined, 'no JSON-RPC envelope');
      assert.equal(Object.keys(event).length, 1, `one member of StreamResponse: ${JSON.stringify(event)}`);
    }
    assert.equal(answer.events.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });

  test('SubscribeToTask through the SDK (POST :subscribe): the current task, then the rest to the last status', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const client = await sdkClient(url, 'HTTP+JSON');
    const started: any = await client.sendMessage({
      message: message('hold'),
      configuration: { returnImmediately: true },
    } as any);
    assert.equal(started.status.state, STATE.WORKING);
    const events: any[] = [];
    for await (const event of client.resubscribeTask({ id: started.id } as any)) {
      events.push(event);
      // The current task arrived: the task may now go on.
      if (events.length === 1) holds.get('hold')?.();
    }
    assert.equal(kinds(events)[0], 'task');
    assert.equal(events[0].payload.value.id, started.id);
    assert.equal(events.at(-1).payload.value.status.state, STATE.COMPLETED);
  });

  test('SubscribeToTask by GET, as the proto declares it, streams too', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const started = await raw(url, 'POST', '/message:send', {
      message: userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    const id = started.json.task.id;
    const response = await fetch(`${url}/a2a/rest/tasks/${id}:subscribe`, { headers: HEADERS });
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    // Read as it arrives: once the current task is here, the task may go on.
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const events: any[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const frames = text.split('\n\n');
      text = frames.pop()!;
      for (const frame of frames) if (frame.startsWith('data: ')) events.push(JSON.parse(frame.slice(6)));
      if (events.length > 0) holds.get('hold')?.();
    }
    assert.equal(events[0].task.id, id);
    assert.equal(events.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });

  test('refusals come before the stream, as the SDK error classes with their status', async (t) => {
    const { url } = await startA2aAgent(t, { handler });
    const client = await sdkClient(url, 'HTTP+JSON');
    await assert.rejects(
      (async () => {
        for await (const _ of client.resubscribeTask({ id: 'no-such-task' } as any));
      })(),
      (error) => error instanceof TaskNotFoundError,
    );
    const done: any = await client.sendMessage({ message: message('done') } as any);
    await assert.rejects(
      (async () => {
        for await (const _ of client.resubscribeTask({ id: done.id } as any));
      })(),
      (error) => error instanceof UnsupportedOperationError,
    );
    const bad = await raw(url, 'POST', '/message:stream', { message: { parts: 3 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.details[0].reason, 'INVALID_PARAMS');
  });
});

describe('A2A HTTP+JSON streaming: a failure once the stream is open', () => {
  /** The first events fit; the artifact after them is over the agent's max_event_bytes. */
  const oversized: AgentHandler = async function* ({ input, artifact }) {
    yield { type: 'task_progress', progress: 0.1 } as never;
    artifact({ kind: 'result', name: 'big', text: `${input} `.repeat(2_000) });
    return 'never reached whole';
  };

  test('is the last event, named `error`, with the binding error body; the SDK client raises it', async (t) => {
    const { url } = await startA2aAgent(t, { handler: oversized, transportOptions: { limits: { maxEventBytes: 4_096 } } });
    const response = await fetch(`${url}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ message: userMessage('large') }),
    });
    const frames = (await response.text()).split('\n\n').filter((frame) => frame.trim() !== '');
    const last = frames.at(-1) ?? '';
    assert.match(last, /^event: error\ndata: /, last);
    const body = JSON.parse(last.slice(last.indexOf('data: ') + 6));
    assert.equal(typeof body.error?.message, 'string');
    assert.ok(
      frames.slice(0, -1).every((frame) => frame.startsWith('data: ')),
      'only the failure is named',
    );

    const client = await sdkClient(url, 'HTTP+JSON');
    await assert.rejects(async () => {
      for await (const _ of client.sendMessageStream({ message: message('large again') } as never)) void _;
    });
  });
});
