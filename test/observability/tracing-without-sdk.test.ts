// Tracing switched on in a process with no OpenTelemetry SDK: requests are served as ever and
// nothing is recorded. What reaches the next hop follows the API's own rules: with nothing
// registered there is no context to carry across the handler's awaits, so nothing is sent; once
// the application registers a context manager (propagation without recording), an incoming
// trace context passes through the agent's outbound calls unchanged.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AgentServer } from '../../src/agent/agent-server.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { loadTracing } from '../../src/observability/tracing.js';
import type { SpanHandle } from '../../src/transport/endpoint.js';
import { Inbound } from '../../src/transport/endpoint.js';
import { call, startA2aAgent, userMessage } from '../a2a/support.js';
import { type Closer, headerCatcher } from '../support/header-catcher.js';

after(() => {
  context.disable();
  propagation.disable();
});

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** An agent whose handler calls the peer at `next` (tracing on both ways), and a raw POST to it. */
async function relay(t: Closer, next: string): Promise<(headers: Record<string, string>) => Promise<number>> {
  const onward = new AgentClient(next, { protocol: 'parley', tracing: true });
  t.after(() => onward.close());
  const agent = new AgentServer({
    name: 'relay',
    tracing: true,
    handler: async (task) => {
      await onward.sendTask(task.input);
      return { text: 'relayed' };
    },
  });
  await agent.start();
  t.after(() => agent.stop());
  let n = 0;
  return async (headers) => {
    const task = { id: `relay-${++n}`, messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] };
    const answer = await fetch(`${agent.url}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(task),
    });
    await answer.text();
    return answer.status;
  };
}

test('nothing registered: served as ever, no spans, nothing sent onward', async (t) => {
  assert.equal(trace.getSpan(context.active()), undefined);
  const peer = await headerCatcher(t);
  const send = await relay(t, peer.url);
  assert.equal(await send({ traceparent: TRACEPARENT, tracestate: 'vendor=kept' }), 200);
  assert.equal(await send({ traceparent: 'malformed' }), 200);
  assert.equal(peer.seen.length, 2);
  for (const headers of peer.seen) assert.equal(headers.traceparent, undefined);
});

test('a context manager only: the incoming trace context passes through unchanged (parley reads and writes W3C itself)', async (t) => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  t.after(() => context.disable());
  const peer = await headerCatcher(t);
  const send = await relay(t, peer.url);
  assert.equal(await send({ traceparent: TRACEPARENT, tracestate: 'vendor=kept' }), 200);
  assert.equal(peer.seen[0]?.traceparent, TRACEPARENT);
  assert.equal(peer.seen[0]?.tracestate, 'vendor=kept');
  // Malformed: a new trace, but nothing to record it, so nothing to send.
  assert.equal(await send({ traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }), 200);
  assert.equal(peer.seen[1]?.traceparent, undefined);
});

test('a context manager and the W3C propagator, still no tracer provider: the same pass-through through the propagator', async (t) => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  t.after(() => {
    context.disable();
    propagation.disable();
  });
  const peer = await headerCatcher(t);
  const send = await relay(t, peer.url);
  assert.equal(await send({ traceparent: TRACEPARENT, tracestate: 'vendor=kept' }), 200);
  assert.equal(peer.seen[0]?.traceparent, TRACEPARENT);
  assert.equal(peer.seen[0]?.tracestate, 'vendor=kept');
});

test('nothing recording: a handler is handed no span to refine, whether or not there is a trace to pass on', async () => {
  const tracing = await loadTracing();
  const handed: (SpanHandle | null)[] = [];
  for (const trace of [undefined, { traceparent: TRACEPARENT }]) {
    const fields = { method: 'POST', path: '/', data: undefined, params: {}, requestId: 'r-1', idempotencyKey: null };
    const request = new Inbound({ ...fields, credentials: null, receivedBytes: 0, trace }, new AbortController());
    await tracing.serveUnary(request, undefined, 'http', (span) => {
      handed.push(span);
      return Promise.resolve({ kind: 'text', text: '', contentType: 'text/plain' });
    });
  }
  assert.deepEqual(handed, [null, null]);
});

test('the A2A boundary with tracing on and nothing registered: JSON-RPC calls are answered as ever', async (t) => {
  const { url } = await startA2aAgent(t, { tracing: true, handler: ({ input }) => `echo: ${input}` });
  const sent = await call(url, 'SendMessage', { message: userMessage('hi') });
  assert.equal(sent.result.task.status.state, 'TASK_STATE_COMPLETED');
  const fetched = await call(url, 'GetTask', { id: sent.result.task.id }, 2);
  assert.equal(fetched.result.id, sent.result.task.id);
  assert.equal((await call(url, 'GetTask', { id: 'no-such-task' }, 3)).error.code, -32001);
});
