// POST /tasks/stream (spec: Agent endpoints, Events): only on transports that stream. Over
// runtime it yields task_status(working), then message, artifact, LLM and tool events as they
// happen, and always ends with task_completed. Plain http has no stream route at all.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamEvent } from '../../generated/types/index.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { SessionStore } from '../../src/agent/sessions.js';
import { TaskEngine } from '../../src/agent/task-engine.js';
import { TransportProtocolError } from '../../src/transport/errors.js';
import {
  EchoModel,
  aborted,
  assertIsoTimestamp,
  assertValid,
  deferred,
  historyStates,
  rawHttp,
  rejectsWithStatus,
  startAgent,
  texts,
  uniqueId,
  untilAborted,
  userTask,
  type Harness,
} from '../support/agent-harness.js';
import { collect } from '../support/async.js';
import { waitFor } from '../support/transport-fixtures.js';
import { agentOperations } from '../../generated/operations/agent.js';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { routeKey } from '../../src/transport/endpoint.js';
import { createTransport } from '../../src/transport/factory.js';
import { Transport } from '../../src/transport/transport.js';
import { hookedBinding, listenUrl } from '../support/agent-harness.js';

function assertWellFormed(events: readonly StreamEvent[], taskId: string): void {
  for (const event of events) {
    assertValid('stream-event', event);
    assert.equal(event.task_id, taskId, `${event.type} carries the task id`);
    assertIsoTimestamp(event.timestamp, `${event.type} timestamp`);
  }
  assert.equal(events.filter((event) => event.type === 'task_completed').length, 1, 'exactly one task_completed');
  assert.equal(events.at(-1)!.type, 'task_completed', 'task_completed is last');
}

class CustomValue {
  constructor(readonly a: number) {}
}

describe('POST /tasks/stream over http', () => {
  test('the typed client fails clearly: streaming_unsupported', async (t) => {
    const h = await startAgent('http');
    t.after(() => h.close());
    let caught: unknown;
    try {
      await collect(h.client.streamTask(userTask(uniqueId(), 'hi')));
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof TransportProtocolError, `got ${String(caught)}`);
    assert.equal(caught.code, 'streaming_unsupported');
    assert.equal(caught.retryable, false);
    assert.match(caught.message, /no task streams/);
  });

  test('a raw POST /tasks/stream is 404 with a JSON error body', async (t) => {
    let calls = 0;
    const h = await startAgent('http', { handler: () => void calls++ });
    t.after(() => h.close());
    const res = await rawHttp(h.url, {
      method: 'POST',
      path: '/tasks/stream',
      body: JSON.stringify(userTask(uniqueId(), 'hi')),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 404);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assertValid('error-body', res.json());
    assert.equal(res.json().error.code, 'not_found');
    assert.equal(calls, 0);
  });
});

describe('POST /tasks/stream over runtime', () => {
  test('events arrive in order: status, llm (final step does not close), tools, message, artifact, completed', async (t) => {
    const handler: AgentHandler = async function* (ctx) {
      yield { type: 'task_llm_stream', delta: 'Let me ', final: false, model: 'm' };
      yield { type: 'task_llm_stream', delta: 'check.', final: true, model: 'm' };
      const sum = await ctx.tool({ name: 'add', arguments: { a: 2, b: 3 }, call_id: 'call-add' }, () => 5);
      const rich = await ctx.tool({ name: 'rich' }, () => ({
        when: new Date('2024-01-01T00:00:00Z'),
        tags: new Set(['x']),
        map: new Map([['k', 1]]),
        custom: new CustomValue(7),
        big: 10n,
        skip: undefined,
      }));
      assert.ok(rich);
      await assert.rejects(
        ctx.tool({ name: 'broken', call_id: 'call-broken' }, () => {
          throw new RangeError('tool exploded');
        }),
        /tool exploded/,
      );
      ctx.message(`sum is ${sum}`);
      ctx.artifact({ kind: 'result', name: 'sum.txt', text: String(sum) });
      return { state: 'completed' };
    };
    const h = await startAgent('runtime', { handler });
    t.after(() => h.close());
    const id = uniqueId();
    const events = await collect(h.client.streamTask(userTask(id, 'add them')));
    assertWellFormed(events, id);
    assert.deepEqual(
      events.map((event) => event.type),
      [
        'task_status',
        'task_llm_stream',
        'task_llm_stream',
        'task_tool_call',
        'task_tool_result',
        'task_tool_call',
        'task_tool_result',
        'task_tool_call',
        'task_tool_result',
        'task_message',
        'task_artifact',
        'task_completed',
      ],
    );
    const [status, llm1, llm2, call1, result1, , result2, call3, result3, message, artifact, completed] = events as any[];
    assert.equal(status.state, 'working');
    assert.equal(status.task.id, id);
    assert.deepEqual(historyStates(status.task), ['submitted', 'working']);
    assert.deepEqual([llm1.delta, llm1.final, llm2.delta, llm2.final], ['Let me ', false, 'check.', true]);
    assert.deepEqual(call1.tool_call, { name: 'add', arguments: { a: 2, b: 3 }, call_id: 'call-add' });
    assert.deepEqual(result1.tool_result, { call_id: 'call-add', result: 5, error: null });
    // Tool output is normalized to JSON, whatever the tool returned.
    assert.deepEqual(result2.tool_result.result, {
      when: '2024-01-01T00:00:00.000Z',
      tags: ['x'],
      map: { k: 1 },
      custom: { a: 7 },
      big: '10',
    });
    assert.equal(result2.tool_result.error, null);
    assert.equal(typeof result2.tool_result.call_id, 'string');
    assert.equal(call3.tool_call.call_id, 'call-broken');
    assert.deepEqual(result3.tool_result, { call_id: 'call-broken', result: null, error: 'tool exploded' });
    assert.deepEqual(texts(message.message.parts), ['sum is 5']);
    assert.equal(artifact.artifact.name, 'sum.txt');
    assert.equal(completed.state, 'completed');
    assert.equal(completed.task.state, 'completed');
    assert.deepEqual(historyStates(completed.task), ['submitted', 'working', 'completed']);
    assert.deepEqual(
      completed.task.artifacts.map((a: any) => a.id),
      [artifact.artifact.id],
    );
  });

  test('a tool that throws a non-Error value still reports a string error', async (t) => {
    const handler: AgentHandler = async (ctx) => {
      await ctx
        .tool({ name: 'legacy', call_id: 'c1' }, () => Promise.reject({ code: 'E_TIMEOUT', detail: 'took too long' }))
        .catch(() => undefined);
      await ctx.tool({ name: 'stringly', call_id: 'c2' }, () => Promise.reject('just a string')).catch(() => undefined);
      return 'ok';
    };
    const h = await startAgent('runtime', { handler });
    t.after(() => h.close());
    const id = uniqueId();
    const events = await collect(h.client.streamTask(userTask(id, 'x')));
    const results = events.filter((event) => event.type === 'task_tool_result') as any[];
    assert.equal(results[1].tool_result.error, 'just a string');
    assert.equal(typeof results[0].tool_result.error, 'string', `error is ${JSON.stringify(results[0].tool_result.error)}`);
    assertWellFormed(events, id);
  });

  test('the default model handler streams the reply word by word; the model step final does not close the stream', async (t) => {
    const model = new EchoModel();
    const h = await startAgent('runtime', { llm: model });
    t.after(() => h.close());
    const id = uniqueId();
    const events = await collect(h.client.streamTask(userTask(id, 'hello big world')));
    assertWellFormed(events, id);
    const llm = events.filter((event) => event.type === 'task_llm_stream') as any[];
    assert.equal(llm.map((event) => event.delta).join(''), 'echo: hello big world');
    assert.ok(llm.length >= 4, 'one event per word, then the closing chunk');
    assert.ok(llm.every((event) => event.model === 'echo-model'));
    const finalIndex = events.findIndex((event) => event.type === 'task_llm_stream' && (event as any).final === true);
    assert.equal(finalIndex, events.indexOf(llm.at(-1)), 'the last llm event is the final one of the step');
    assert.deepEqual(
      events.slice(finalIndex + 1).map((event) => event.type),
      ['task_message', 'task_artifact', 'task_completed'],
      'the stream goes on after the model step ends',
    );
    const completed = events.at(-1) as any;
    assert.deepEqual(texts(completed.task.artifacts[0].parts), ['echo: hello big world']);
  });

  test('a failing handler ends the stream with task_completed in state failed, not an error frame', async (t) => {
    const h = await startAgent('runtime', {
      handler: async function* () {
        yield { type: 'task_llm_stream', delta: 'x', final: true };
        throw new Error('mid-stream failure');
      },
    });
    t.after(() => h.close());
    const id = uniqueId();
    const events = await collect(h.client.streamTask(userTask(id, 'x')));
    assertWellFormed(events, id);
    const completed = events.at(-1) as any;
    assert.equal(completed.state, 'failed');
    assert.equal(completed.task.metadata.error.message, 'mid-stream failure');
  });

  test('input-required ends the stream with task_completed in state input-required', async (t) => {
    const h = await startAgent('runtime', { handler: () => ({ state: 'input-required', messages: ['Which one?'] }) });
    t.after(() => h.close());
    const id = uniqueId();
    const events = await collect(h.client.streamTask(userTask(id, 'x')));
    assertWellFormed(events, id);
    assert.deepEqual(
      events.map((event) => event.type),
      ['task_status', 'task_message', 'task_completed'],
    );
    assert.equal((events.at(-1) as any).state, 'input-required');
  });

  test('a client that stops reading early cancels the task: the handler signal aborts', async (t) => {
    const started = deferred();
    const sawAbort = deferred<unknown>();
    const h = await startAgent('runtime', {
      handler: async function* ({ signal, input }) {
        if (input === 'quick') return 'quick answer';
        void aborted(signal).then((reason) => sawAbort.resolve(reason));
        yield { type: 'task_llm_stream', delta: 'first', final: false };
        started.resolve();
        await untilAborted(signal);
        return 'never';
      },
    });
    t.after(() => h.close());
    const id = uniqueId();
    const seen: string[] = [];
    for await (const event of h.client.streamTask(userTask(id, 'x'))) {
      seen.push(event.type);
      if (event.type === 'task_llm_stream') {
        await started.promise;
        break;
      }
    }
    assert.deepEqual(seen, ['task_status', 'task_llm_stream']);
    const reason = (await sawAbort.promise) as Error;
    assert.equal(reason.name, 'TaskCanceledError');
    assert.match(reason.message, /stream closed/);
    // The task has ended: nothing is left active to cancel.
    assert.equal((await h.client.describeState({})).state.active_tasks, 0);
    await rejectsWithStatus(h.client.cancelTask({ id }), 404, 'not_found');
    // The agent goes on serving streams.
    const next = await collect(h.client.streamTask(userTask(uniqueId(), 'quick')));
    assert.equal(next.at(-1)!.type, 'task_completed');
  });

  test('a caller that leaves while its stream is still being opened cancels the task as soon as it starts', {
    timeout: 5_000,
  }, async (t) => {
    const checking = deferred();
    const arrived = deferred();
    const sawAbort = deferred<unknown>();
    const authenticator: Authenticator = {
      scheme: { type: 'apiKey', scheme: null, description: 'slow key check', metadata: {} },
      async authenticate(credentials) {
        arrived.resolve();
        await checking.promise;
        return { principal_id: 'caller', token: credentials, expires_at: null, metadata: {} };
      },
      refreshToken: async (context) => context,
    };
    const h = await startAgent(
      'runtime',
      {
        authenticator,
        handler: async ({ signal }) => {
          void aborted(signal).then((reason) => sawAbort.resolve(reason));
          await untilAborted(signal);
        },
      },
      {
        authenticator: {
          ...authenticator,
          authenticate: async (token) => ({ principal_id: 'caller', token, expires_at: null, metadata: {} }),
        },
        credentials: 'key',
      },
    );
    t.after(() => h.close());
    const hangUp = new AbortController();
    const left = collect(h.client.streamTask(userTask(uniqueId(), 'x'), { signal: hangUp.signal }));
    await arrived.promise;
    hangUp.abort(new Error('the caller hung up'));
    await assert.rejects(left);
    checking.resolve();
    // The run starts after its caller left: it is canceled at once, not left waiting forever.
    assert.equal(((await sawAbort.promise) as Error).name, 'TaskCanceledError');
    await waitFor(() => h.agent.healthz().metrics.active_streams === 0, 'the stream to be over');
  });

  test('the engine cancels a stream whose request was aborted before the run began', { timeout: 5_000 }, async () => {
    // A transport may only learn after the fact that its caller left: the signal is aborted
    // before the engine ever listens to it, so no abort event will come.
    const sawAbort = deferred<unknown>();
    const engine = new TaskEngine({
      handler: async ({ signal }) => {
        void aborted(signal).then((reason) => sawAbort.resolve(reason));
        await untilAborted(signal);
      },
      model: null,
      sessions: new SessionStore(),
    });
    const left = new AbortController();
    left.abort(new Error('the caller left'));
    const request = {
      requestId: 'r',
      idempotencyKey: null,
      params: {},
      security: null,
      signal: left.signal,
      transport: 'runtime',
      url: 'runtime://engine',
    } as const;
    const events = engine.stream(userTask(uniqueId(), 'x'), request);
    assert.equal((await events.next()).value?.result.type, 'task_status');
    assert.equal(((await sawAbort.promise) as Error).name, 'TaskCanceledError');
    const rest = [];
    for (let step = await events.next(); !step.done; step = await events.next()) rest.push(step.value.result);
    assert.equal((rest.at(-1) as { state?: string }).state, 'canceled');
    assert.equal(engine.activeCount, 0);
  });

  test('a reader that stops reading holds a fast generator back instead of buffering its events', async (t) => {
    const total = 2000;
    let produced = 0;
    const h = await startAgent('runtime', {
      handler: async function* () {
        for (let i = 0; i < total; i++) {
          produced++;
          yield { type: 'task_llm_stream', delta: String(i), final: false };
        }
        return 'done';
      },
    });
    t.after(() => h.close());
    const reader = h.client.streamTask(userTask(uniqueId(), 'go'))[Symbol.asyncIterator]();
    assert.equal((await reader.next()).value?.type, 'task_status');
    // Unbounded, the whole run would be queued within these turns of the event loop.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(produced < total, `the handler ran ahead to ${produced} events`);
    assert.ok(produced <= 300, `${produced} events produced for a reader that read none`);
    const deltas: string[] = [];
    for (let step = await reader.next(); !step.done; step = await reader.next()) {
      if (step.value.type === 'task_llm_stream') deltas.push(step.value.delta);
      if (step.value.type === 'task_completed') assert.equal(step.value.state, 'completed');
    }
    assert.equal(deltas.length, total);
    assert.deepEqual(deltas.slice(0, 3), ['0', '1', '2']);
    assert.equal(deltas.at(-1), String(total - 1));
  });

  test('cancel from another caller ends the stream with task_completed in state canceled', async (t) => {
    const started = deferred();
    const h = await startAgent('runtime', {
      handler: async ({ signal }) => {
        started.resolve();
        return untilAborted(signal);
      },
    });
    t.after(() => h.close());
    const id = uniqueId();
    const streamed = collect(h.client.streamTask(userTask(id, 'x')));
    await started.promise;
    const other: Harness['client'] = await h.newClient();
    await other.cancelTask({ id, metadata: { reason: 'from elsewhere' } });
    const events = await streamed;
    assertWellFormed(events, id);
    const completed = events.at(-1) as any;
    assert.equal(completed.state, 'canceled');
    assert.equal(completed.task.metadata.state_history.at(-1).reason, 'from elsewhere');
  });

  test('streaming a task id that is already running is a 409 conflict', async (t) => {
    const started = deferred();
    const release = deferred();
    const h = await startAgent('runtime', {
      handler: async () => {
        started.resolve();
        await release.promise;
        return 'done';
      },
    });
    t.after(() => h.close());
    const id = uniqueId();
    const first = h.client.sendTask(userTask(id, 'x'));
    await started.promise;
    await rejectsWithStatus(collect(h.client.streamTask(userTask(id, 'again'))), 409, 'conflict');
    release.resolve();
    assert.equal((await first).state, 'completed', 'the refused stream did not cancel the running task');
  });

  test('an invalid task is refused before the stream opens', async (t) => {
    const h = await startAgent('runtime');
    t.after(() => h.close());
    await rejectsWithStatus(collect(h.client.streamTask({ nope: true } as never)), 400, 'invalid_request');
  });
});

test('an agent served without its stream route still streams over runtime: one task_completed, made by the agent', async (t) => {
  const { streamTask } = agentOperations;
  // The agent's own table, minus the stream route: the runtime client falls back to task submission.
  const binding = await hookedBinding('runtime', {
    beforeListen: (dispatcher) =>
      void (dispatcher.endpoints as Map<string, unknown>).delete(routeKey(streamTask.method, streamTask.path)),
  });
  const handler: AgentHandler = async function* () {
    yield { type: 'task_llm_stream', delta: 'only the final event reaches the caller', final: true, model: 'm' };
    return 'done';
  };
  const agent = new AgentServer({ name: 'no-stream-route', handler, transport: new Transport(binding, listenUrl('runtime')) });
  await agent.start();
  const transport = await createTransport('runtime', agent.url);
  t.after(async () => {
    await transport.stop();
    await agent.stop();
  });
  const id = uniqueId('fallback');
  const events = await collect(new AgentOperationsClient(transport).streamTask(userTask(id, 'hi')));
  assertWellFormed(events, id);
  assert.equal(events.length, 1);
  const [event] = events;
  assert.equal(event!.type, 'task_completed');
  if (event!.type !== 'task_completed') return;
  assert.equal(event.state, 'completed');
  assert.equal(event.task.state, 'completed');
  assert.deepEqual(historyStates(event.task), ['submitted', 'working', 'completed']);
});
