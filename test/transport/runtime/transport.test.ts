// Spec "Transport wire formats > Runtime": URL runtime://<name>, a process-local registry of
// started transports, query parameters discarded, the synthesized stream for targets that
// cannot stream; "Errors": unknown runtime endpoint is a remote error with status 404; no
// started target is a retryable connection error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOperationsClient } from '../../../generated/clients/agent.js';
import { validate } from '../../../generated/validators/index.js';
import { TransportConnectionError, TransportRemoteError, TransportTimeoutError } from '../../../src/transport/errors.js';
import { createTransport } from '../../../src/transport/factory.js';
import { EndpointError } from '../../../src/transport/endpoint-error.js';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { AgentClient } from '../../../src/client/agent-client.js';
import type { RequestContext } from '../../../src/transport/endpoint.js';
import {
  bytesOf,
  client,
  echoTask,
  fallbackTarget,
  ops,
  rejection,
  runtimeUrl,
  serve,
  stream,
  table,
  unary,
} from '../../support/transport-fixtures.js';

async function drain<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

test('runtime: query parameters in the URL and in the call are discarded', async (t) => {
  const url = runtimeUrl('rt-query');
  const seen: RequestContext[] = [];
  await serve(t, 'runtime', url, table(unary(ops.sendTask, (task, context) => (seen.push(context), task))));
  const api = new AgentOperationsClient(await client(t, 'runtime', `${url}?tenant=a&x=1`));
  assert.deepEqual(await api.sendTask({ id: 'q' }, { params: { extra: 'yes' } }), { id: 'q' });
  assert.equal(seen.length, 1, 'the URL with a query reached the target');
  assert.deepEqual(seen[0]!.params, {});
  assert.equal(seen[0]!.transport, 'runtime');
});

test('runtime: the handler sees the caller request id', async (t) => {
  const url = runtimeUrl('rt-reqid');
  const ids: string[] = [];
  await serve(t, 'runtime', url, table(unary(ops.sendTask, (task, context) => (ids.push(context.requestId), task))));
  const transport = await client(t, 'runtime', url);
  await transport.unary(ops.sendTask, { id: 'a' });
  await transport.unary(ops.sendTask, { id: 'b' });
  assert.equal(ids.length, 2);
  assert.notEqual(ids[0], ids[1]);
  for (const id of ids) assert.match(id, /^[0-9a-f-]{36}$/);
});

test('runtime: an unknown endpoint is a TransportRemoteError with status 404', async (t) => {
  const url = runtimeUrl('rt-404');
  await serve(t, 'runtime', url, table(echoTask()));
  const error = await rejection(new AgentOperationsClient(await client(t, 'runtime', url)).getCard());
  assert.ok(error instanceof TransportRemoteError, String(error));
  assert.equal(error.statusCode, 404);
  assert.equal(error.code, 'not_found');
  assert.equal(error.retryable, false);
  assert.equal(error.url, url);
});

test('runtime: the target counts a call to an unknown route, and one its schema refuses, once each', async (t) => {
  const url = runtimeUrl('rt-refused');
  const server = await serve(t, 'runtime', url, table(echoTask()));
  const transport = await client(t, 'runtime', url);
  const counts = () => {
    const { requests_started: started, requests_failed: failed } = server.health().metrics;
    return { started, failed };
  };
  const body = { id: 'lost' };
  const unknown = await rejection(transport.unary({ ...ops.sendTask, path: '/nowhere' }, body));
  assert.equal(unknown.statusCode, 404);
  assert.deepEqual(counts(), { started: 1, failed: 1 });
  assert.equal(server.health().metrics.bytes_received, bytesOf(body));
  const invalid = await rejection(transport.unary(ops.sendTask, { id: 5 }));
  assert.equal(invalid.statusCode, 400);
  assert.deepEqual(counts(), { started: 2, failed: 2 });
  await transport.unary(ops.sendTask, { id: 'fine' });
  assert.deepEqual(counts(), { started: 3, failed: 2 });
});

test('runtime: a target that was never started is a retryable TransportConnectionError', async (t) => {
  const url = runtimeUrl('rt-nobody');
  const error = await rejection(new AgentOperationsClient(await client(t, 'runtime', url)).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportConnectionError, String(error));
  assert.equal(error.retryable, true);
  assert.equal(error.url, url);
  assert.ok(error.requestId);
});

test('runtime: a stopped target is a retryable TransportConnectionError (unary and stream)', async (t) => {
  const url = runtimeUrl('rt-stopped');
  const target = await createTransport('runtime', url);
  await target.start(table(echoTask()));
  const api = new AgentOperationsClient(await client(t, 'runtime', url));
  assert.equal((await api.sendTask({ id: 'up' })).state, 'completed');
  await target.stop();
  const error = await rejection(api.sendTask({ id: 'down' }));
  assert.ok(error instanceof TransportConnectionError, String(error));
  assert.equal(error.retryable, true);
  const streamError = await rejection(drain(api.streamTask({ id: 'down' })));
  assert.ok(streamError instanceof TransportConnectionError, String(streamError));
});

test('runtime: a target without a stream endpoint yields exactly one synthesized final task_completed event', async (t) => {
  const url = runtimeUrl('rt-synth');
  let unaryCalls = 0;
  await serve(
    t,
    'runtime',
    url,
    table(fallbackTarget(ops.sendTask, (task) => (unaryCalls++, { ...task, state: 'completed', messages: [] }))),
  );
  const transport = await client(t, 'runtime', url);
  const events = await drain(new AgentOperationsClient(transport).streamTask({ id: 'synth-1' }));
  assert.equal(events.length, 1);
  assert.equal(unaryCalls, 1, 'submitted through the unary route');
  const [event] = events as any[];
  assert.equal(event.type, 'task_completed');
  assert.equal(event.task_id, 'synth-1');
  assert.deepEqual(event.task, { id: 'synth-1', state: 'completed', messages: [] });
  assert.equal(transport.health().metrics.streams_completed, 1);
});

test('runtime: the synthesized task_completed event is a valid stream-event', async (t) => {
  const url = runtimeUrl('rt-synth-schema');
  await serve(t, 'runtime', url, table(fallbackTarget(ops.sendTask, (task) => ({ ...task, state: 'completed' }))));
  const [event] = await drain(new AgentOperationsClient(await client(t, 'runtime', url)).streamTask({ id: 's-2' }));
  const checked = validate('stream-event', event);
  assert.ok(checked.valid, JSON.stringify(checked.valid ? null : checked.errors));
});

test('runtime: the fallback route is the one the stream spec names, not a fixed one', async (t) => {
  const url = runtimeUrl('rt-synth-route');
  const elsewhere = { ...ops.sendTask, name: 'submitElsewhere', path: '/elsewhere' };
  const seen: string[] = [];
  await serve(
    t,
    'runtime',
    url,
    table(
      unary(ops.sendTask, () => assert.fail('the fixed task route was called')),
      fallbackTarget(elsewhere, (task, context) => (seen.push(context.requestId), { ...task, state: 'input-required' })),
    ),
  );
  const spec = { ...ops.streamTask, fallback: { name: elsewhere.name, method: elsewhere.method, path: elsewhere.path } };
  const events = (await drain((await client(t, 'runtime', url)).stream(spec, { id: 'r-1' }))) as any[];
  assert.equal(seen.length, 1);
  assert.equal(events.length, 1);
  assert.equal(events[0].type, 'task_completed');
  assert.equal(events[0].state, 'input-required');
});

test('runtime: without a fallback (in the spec, or a final event on the target) a missing stream endpoint is a 404', async (t) => {
  const url = runtimeUrl('rt-no-fallback');
  let unaryCalls = 0;
  await serve(t, 'runtime', url, table(unary(ops.sendTask, (task) => (unaryCalls++, task))));
  const transport = await client(t, 'runtime', url);
  const noFinalEvent = await rejection(drain(transport.stream(ops.streamTask, { id: 'n-1' })));
  assert.ok(noFinalEvent instanceof TransportRemoteError, String(noFinalEvent));
  assert.equal(noFinalEvent.statusCode, 404);
  assert.equal(noFinalEvent.code, 'not_found');

  const other = runtimeUrl('rt-no-fallback-spec');
  await serve(t, 'runtime', other, table(fallbackTarget(ops.sendTask, (task) => (unaryCalls++, task))));
  const { fallback: _fallback, ...withoutFallback } = ops.streamTask;
  const noSpecFallback = await rejection(drain((await client(t, 'runtime', other)).stream(withoutFallback, { id: 'n-2' })));
  assert.ok(noSpecFallback instanceof TransportRemoteError, String(noSpecFallback));
  assert.equal(noSpecFallback.statusCode, 404);
  assert.equal(unaryCalls, 0, 'no unary route stood in');
});

test('runtime: a target with a stream endpoint streams its events in order, ending at the final one', async (t) => {
  const url = runtimeUrl('rt-stream');
  await serve(
    t,
    'runtime',
    url,
    table(
      echoTask(),
      stream(ops.streamTask, async function* (task) {
        yield { result: { type: 'task_status', n: 1 }, final: false };
        yield { result: { type: 'task_status', n: 2 }, final: false };
        yield { result: { type: 'task_completed', task_id: task.id }, final: true };
        yield { result: { type: 'never-sent' }, final: false };
      }),
    ),
  );
  const events = await drain(new AgentOperationsClient(await client(t, 'runtime', url)).streamTask({ id: 'st' }));
  assert.deepEqual(events, [
    { type: 'task_status', n: 1 },
    { type: 'task_status', n: 2 },
    { type: 'task_completed', task_id: 'st' },
  ]);
});

test('runtime: stream events reach the caller as its own copies, and no event is written as JSON text', async (t) => {
  const url = runtimeUrl('rt-stream-copy');
  const kept = { type: 'task_artifact', artifact: { id: 'a1', parts: [{ type: 'text', content: 'naïve "quoted"' }] } };
  await serve(
    t,
    'runtime',
    url,
    table(
      echoTask(),
      stream(ops.streamTask, async function* (task) {
        yield { result: kept, final: false };
        yield { result: { type: 'task_completed', task_id: task.id }, final: true };
      }),
    ),
  );
  const transport = await client(t, 'runtime', url);
  const stringify = t.mock.method(JSON, 'stringify');
  const events: any[] = await drain(new AgentOperationsClient(transport).streamTask({ id: 'sc' }));
  const written = stringify.mock.calls.filter((call) => typeof call.arguments[0] !== 'string');
  stringify.mock.restore();
  assert.deepEqual(written, [], 'the events were measured, not written');
  assert.deepEqual(events[0], kept);
  assert.notEqual(events[0], kept);
  events[0].artifact.parts[0].content = 'changed-by-caller';
  assert.equal(kept.artifact.parts[0]!.content, 'naïve "quoted"', "the caller's change did not reach the target's event");
  assert.deepEqual(events[1], { type: 'task_completed', task_id: 'sc' });
  assert.equal(transport.health().metrics.bytes_received, bytesOf(kept) + bytesOf(events[1]));
});

test('runtime: payloads are copies in both directions', async (t) => {
  const url = runtimeUrl('rt-copy');
  const kept = { id: 'kept', state: 'completed', messages: [{ role: 'agent', parts: [{ type: 'text', content: 'hi' }] }] };
  const received: any[] = [];
  await serve(
    t,
    'runtime',
    url,
    table(
      unary(ops.sendTask, (task) => {
        received.push(task);
        // The handler mutates what it received...
        task.id = 'changed-by-server';
        task.messages.push({ role: 'agent', parts: [] });
        // ...and answers with an object it keeps.
        return kept;
      }),
    ),
  );
  const api = new AgentOperationsClient(await client(t, 'runtime', url));
  const request = { id: 'mine', messages: [{ role: 'user', parts: [{ type: 'text', content: 'q' }] }] } as any;
  const snapshot = structuredClone(request);
  const result: any = await api.sendTask(request, undefined);
  assert.deepEqual(request, snapshot, "the server's mutation did not reach the caller's object");
  assert.notEqual(received[0], request);
  assert.deepEqual(result, kept);
  assert.notEqual(result, kept);
  result.messages[0].parts[0].content = 'changed-by-caller';
  assert.equal(kept.messages[0]!.parts[0]!.content, 'hi', "the caller's mutation did not reach the server's object");
});

test("runtime: an agent's finished task reaches the caller as its own copy, equal to the task's JSON", async (t) => {
  const url = runtimeUrl('rt-task-copy');
  let targetTask: any = null;
  const agent = new AgentServer({
    name: 'copies',
    transport: 'runtime',
    url,
    handler: (context) => {
      targetTask = context.task;
      return { text: 'done', artifacts: [{ text: 'made', metadata: { list: [1, 2] } }] };
    },
  });
  await agent.start();
  t.after(() => agent.stop());
  const caller = new AgentClient(url);
  t.after(() => caller.close());
  const answer: any = await caller.sendTask({
    id: 'copy-1',
    messages: [{ role: 'user', parts: [{ type: 'text', content: 'q' }] }],
  } as never);
  assert.equal(answer.state, 'completed');
  assert.ok(targetTask, 'the handler ran');
  // The answer reads as the target's task does as JSON, and shares none of its objects.
  assert.deepEqual(answer, JSON.parse(JSON.stringify(targetTask)));
  assert.notEqual(answer, targetTask);
  assert.notEqual(answer.messages, targetTask.messages);
  assert.notEqual(answer.artifacts.at(-1).metadata, targetTask.artifacts.at(-1).metadata);
  answer.artifacts.at(-1).metadata.list.push(3);
  answer.messages[0].parts[0].content = 'changed-by-caller';
  assert.deepEqual(targetTask.artifacts.at(-1).metadata.list, [1, 2], "the caller's change did not reach the target's task");
  assert.equal(targetTask.messages[0].parts[0].content, 'q');
});

test("runtime: an agent's round trip writes no JSON text, yet both sides count the bytes a wire would carry", async (t) => {
  const url = runtimeUrl('rt-measured');
  const served = await createTransport('runtime', url);
  const agent = new AgentServer({ name: 'measured', transport: served });
  await agent.start();
  t.after(() => agent.stop());
  const caller = await client(t, 'runtime', url);
  const request = { id: 'measured-1', messages: [{ role: 'user', parts: [{ type: 'text', content: 'naïve "quoted" ✓' }] }] };
  await caller.unary(ops.sendTask, { id: 'warm-up', messages: request.messages });
  const before = { sent: caller.health().metrics.bytes_sent, received: served.health().metrics.bytes_received };
  const answeredBefore = { sent: served.health().metrics.bytes_sent, received: caller.health().metrics.bytes_received };
  // What is written as JSON during the call itself: no document, only the odd string whose
  // escapes are counted that way.
  const stringify = t.mock.method(JSON, 'stringify');
  const answer = await caller.unary(ops.sendTask, request);
  const written = stringify.mock.calls.filter((call) => typeof call.arguments[0] !== 'string');
  stringify.mock.restore();
  assert.deepEqual(written, [], 'no JSON text was written for the request or the answer');
  assert.equal((answer as { state: string }).state, 'completed');
  assert.equal(caller.health().metrics.bytes_sent - before.sent, bytesOf(request));
  assert.equal(served.health().metrics.bytes_received - before.received, bytesOf(request));
  assert.equal(served.health().metrics.bytes_sent - answeredBefore.sent, bytesOf(answer));
  assert.equal(caller.health().metrics.bytes_received - answeredBefore.received, bytesOf(answer));
});

test('runtime: a retry hands the target the request as it was when the first attempt failed', async (t) => {
  const url = runtimeUrl('rt-retry-body');
  const received: unknown[] = [];
  const request = { id: 'retried', metadata: { note: 'as sent' } };
  await serve(
    t,
    'runtime',
    url,
    table(
      unary(ops.sendTask, (task) => {
        received.push(structuredClone(task));
        if (received.length > 1) return task;
        // The caller's code changes its object while the retry waits for its backoff.
        setImmediate(() => {
          request.metadata.note = 'changed during the backoff';
        });
        throw new EndpointError('unavailable', 'try again');
      }),
    ),
  );
  const transport = await client(t, 'runtime', url, {
    retry: { maxAttempts: 2, initialBackoff: 0.02, maxBackoff: 0.02, jitter: 0 },
  });
  const answer = (await transport.unary(ops.sendTask, request)) as typeof request;
  assert.equal(received.length, 2, 'the first attempt failed and was retried');
  assert.equal(request.metadata.note, 'changed during the backoff');
  assert.deepEqual(received[1], received[0]);
  assert.equal(answer.metadata.note, 'as sent');
});

test('runtime: a request that is not plain JSON reaches the target as its JSON text reads', async (t) => {
  const url = runtimeUrl('rt-not-plain');
  const received: any[] = [];
  await serve(t, 'runtime', url, table(unary(ops.sendTask, (task) => (received.push(task), task))));
  const api = new AgentOperationsClient(await client(t, 'runtime', url));
  const when = new Date(0);
  const request = { id: 'dated', metadata: { when, skipped: undefined, list: [1, { n: 2 }] } } as any;
  const answer: any = await api.sendTask(request);
  assert.deepEqual(received[0], { id: 'dated', metadata: { when: when.toISOString(), list: [1, { n: 2 }] } });
  assert.deepEqual(answer, received[0]);
  assert.notEqual(received[0].metadata.list, request.metadata.list);
});

test('runtime: a handler failure is a TransportRemoteError carrying the message', async (t) => {
  const url = runtimeUrl('rt-fail');
  await serve(
    t,
    'runtime',
    url,
    table(
      unary(ops.sendTask, () => {
        throw new Error('handler exploded');
      }),
    ),
  );
  const error = await rejection(new AgentOperationsClient(await client(t, 'runtime', url)).sendTask({ id: 'x' }));
  assert.ok(error instanceof TransportRemoteError, String(error));
  assert.match(error.message, /handler exploded/);
  assert.equal(error.retryable, false, 'spec: runtime handler failure is not retryable');
});

test('runtime: the request is validated against its schema like on any wire', async (t) => {
  const url = runtimeUrl('rt-invalid');
  let calls = 0;
  await serve(t, 'runtime', url, table(unary(ops.sendTask, (task) => (calls++, task))));
  const error = await rejection(new AgentOperationsClient(await client(t, 'runtime', url)).sendTask({ id: 5 } as never));
  assert.ok(error instanceof TransportRemoteError);
  assert.equal(error.statusCode, 400);
  assert.equal(error.code, 'invalid_request');
  assert.equal(calls, 0);
});

test('runtime: URLs with a trailing slash or a query name the same target', async (t) => {
  const url = runtimeUrl('rt-same');
  await serve(t, 'runtime', url, table(echoTask()));
  for (const variant of [`${url}/`, `${url}?a=b`]) {
    const api = new AgentOperationsClient(await client(t, 'runtime', variant));
    assert.equal((await api.sendTask({ id: 'v' })).state, 'completed');
  }
});

test('runtime: the transport is not networked and serves no browser pages', async (t) => {
  const url = runtimeUrl('rt-caps');
  const server = await serve(t, 'runtime', url, table(echoTask()));
  assert.equal(server.capabilities.networked, false);
  assert.equal(server.capabilities.streaming, true);
  assert.equal(server.health().url, url);
});

test("runtime: a stream's deadline ends the caller's wait at once and frees its stream slot, even if the target goes quiet", {
  timeout: 30_000,
}, async (t) => {
  const url = runtimeUrl('quiet-stream');
  await serve(
    t,
    'runtime',
    url,
    table(
      stream(ops.streamTask, async function* (task: { id: string }) {
        yield { result: { type: 'task_status', task_id: task.id }, final: false };
        // An upstream that never answers, and a handler that does not look at its signal.
        if (task.id === 'quiet') await new Promise(() => undefined);
        yield { result: { type: 'task_completed', task_id: task.id }, final: true };
      }),
    ),
  );
  // The wait for each event: long enough for a loaded machine to deliver those that do come.
  const transport = await client(t, 'runtime', url, { timeout: 1, limits: { maxConcurrentStreams: 1 } });
  const seen: unknown[] = [];
  const error = await rejection(
    (async () => {
      for await (const event of transport.stream(ops.streamTask, { id: 'quiet' })) seen.push(event);
    })(),
  );
  assert.ok(error instanceof TransportTimeoutError, String(error));
  assert.deepEqual(seen, [{ type: 'task_status', task_id: 'quiet' }]);
  assert.equal(transport.health().metrics.active_streams, 0);
  // The only stream slot is free again.
  const next = [];
  for await (const event of transport.stream(ops.streamTask, { id: 'next' })) next.push(event);
  assert.equal(next.length, 2);
});

test("runtime: a caller's abort ends its wait for a target without a stream endpoint too", { timeout: 30_000 }, async (t) => {
  const url = runtimeUrl('quiet-submit');
  await serve(t, 'runtime', url, table(fallbackTarget(ops.sendTask, () => new Promise(() => undefined))));
  const transport = await client(t, 'runtime', url);
  const hangUp = new AbortController();
  const waiting = rejection(
    (async () => {
      for await (const _ of transport.stream(ops.streamTask, { id: 'x' }, { signal: hangUp.signal })) void _;
    })(),
  );
  hangUp.abort(new Error('the caller hung up'));
  assert.equal(((await waiting) as Error).message, 'the caller hung up');
  assert.equal(transport.health().metrics.active_streams, 0);
});
