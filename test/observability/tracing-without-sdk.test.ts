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
