// Tracing with the OpenTelemetry SDK registered the way an application registers it (a tracer
// provider with an in-memory exporter, the AsyncLocalStorage context manager and the W3C
// propagator): one trace from a client through agent A to agent B on every transport, the
// trace context of raw peers honoured, malformed ones ignored, and nothing sent with tracing off.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { WebSocketServer } from 'ws';
import { AgentServer } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { type Closer, headerCatcher } from '../support/header-catcher.js';
import { listenUrl, TRANSPORTS, type TransportKind } from '../support/cross-transport.js';
import { jsonClient, passThroughService, unaryCall } from '../support/grpc-peers.js';
import { assertChild, childrenOf, exporter, inAppSpan, only, spansOf, useTracingSdk } from '../support/tracing-sdk.js';
import { client, instantRetry, ops, serve, table, unary } from '../support/transport-fixtures.js';
import { RawPeer } from '../support/websocket-peers.js';

useTracingSdk();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

/** Agent B (echo) and agent A, whose handler asks B through an AgentClient before answering. */
async function agents(t: Closer, kind: TransportKind): Promise<{ a: AgentServer; b: AgentServer }> {
  const b = new AgentServer({ name: 'b', transport: kind, url: listenUrl(kind), tracing: true });
  await b.start();
  t.after(() => b.stop());
  const toB = new AgentClient(b.url, { transport: kind, tracing: true, protocol: 'parley' });
  t.after(() => toB.close());
  const handler: AgentHandler = async (task) => {
    const answer = await toB.sendMessage(`from a: ${task.input}`);
    return { text: `b said ${answer.parts.map((part) => ('content' in part ? part.content : '')).join('')}` };
  };
  const a = new AgentServer({ name: 'a', transport: kind, url: listenUrl(kind), tracing: true, handler });
  await a.start();
  t.after(() => a.stop());
  return { a, b };
}

/**
 * The four spans of client -> A -> B, each the only child of the one before: the client's
 * span, A's server span, A's own client span and B's server span.
 */
function assertChain(kind: TransportKind, operation: string): void {
  const outer = only(childrenOf(SpanKind.CLIENT, null), 'root client span');
  const servedA = only(childrenOf(SpanKind.SERVER, outer), 'server span of A');
  const callB = only(childrenOf(SpanKind.CLIENT, servedA), "A's client span");
  const servedB = only(childrenOf(SpanKind.SERVER, callB), 'server span of B');
  assert.equal(exporter.getFinishedSpans().length, 4, 'no other spans');
  assert.deepEqual(
    [outer, servedA, callB, servedB].map((span) => span.name),
    [`parley ${operation}`, `parley ${operation}`, 'parley sendTask', 'parley sendTask'],
  );
  const traceId = outer.spanContext().traceId;
  for (const span of [outer, servedA, callB, servedB]) {
    assert.equal(span.spanContext().traceId, traceId, `${span.name}: one trace`);
    assert.equal(span.attributes['parley.transport'], kind);
    assert.equal(span.attributes['rpc.system'], 'parley');
    assert.equal(typeof span.attributes['parley.request_id'], 'string');
    assert.notEqual(span.status.code, SpanStatusCode.ERROR);
  }
  assert.equal(servedA.attributes['rpc.method'], operation);
  assert.equal(outer.attributes['parley.request_id'], servedA.attributes['parley.request_id'], 'one request id both sides');
}

describe('one trace across client -> agent A -> agent B', () => {
  for (const kind of TRANSPORTS) {
    test(`${kind}: sendTask`, async (t) => {
      const { a } = await agents(t, kind);
      const client = new AgentClient(a.url, { transport: kind, tracing: true, protocol: 'parley' });
      t.after(() => client.close());
      const task = await client.sendTask('hello');
      assert.equal(task.state, 'completed');
      assertChain(kind, 'sendTask');
    });

    if (kind === 'http') continue;
    test(`${kind}: streamTask (the stream's span ends with it; the handler's call is inside)`, async (t) => {
      const { a } = await agents(t, kind);
      const client = new AgentClient(a.url, { transport: kind, tracing: true, protocol: 'parley' });
      t.after(() => client.close());
      const types: string[] = [];
      for await (const event of client.streamTask('hello')) types.push(event.type);
      assert.equal(types.at(-1), 'task_completed');
      assertChain(kind, 'streamTask');
    });
  }
});

describe('trace context from peers that are not parley', () => {
  /** The one server span of agent A (not B's), once the request has been answered. */
  function servedByA(operation = 'sendTask'): ReadableSpan {
    const served = spansOf(SpanKind.SERVER, `parley ${operation}`);
    const clientsOfA = spansOf(SpanKind.CLIENT, 'parley sendTask');
    // A's server span is the one that is not the child of A's own client span.
    return only(
      served.filter((span) => !clientsOfA.some((call) => call.spanContext().spanId === span.parentSpanContext?.spanId)),
      "A's server span",
    );
  }

  function task(id: string) {
    return { id, messages: [{ role: 'user', parts: [{ type: 'text', content: 'raw' }] }] };
  }

  test('http: a traceparent header is the server span parent, and tracestate travels on to B', async (t) => {
    const { a } = await agents(t, 'http');
    const answer = await fetch(`${a.url}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT, tracestate: 'vendor=opaque' },
      body: JSON.stringify(task('raw-http')),
    });
    assert.equal(answer.status, 200);
    const served = servedByA();
    assert.equal(served.spanContext().traceId, TRACE_ID);
    assert.equal(served.parentSpanContext?.spanId, PARENT_ID);
    assert.equal(served.parentSpanContext?.isRemote, true);
    // Carried to B with A's outbound call, tracestate included.
    const servedB = only(
      spansOf(SpanKind.SERVER, 'parley sendTask').filter((span) => span !== served),
      'server span of B',
    );
    assert.equal(servedB.spanContext().traceId, TRACE_ID);
    assert.equal(servedB.parentSpanContext?.traceState?.get('vendor'), 'opaque');
  });

  test('http: a malformed traceparent is ignored: the request is served in a new trace', async (t) => {
    const { a } = await agents(t, 'http');
    for (const traceparent of [
      'garbage',
      `00-${TRACE_ID}-${PARENT_ID}`,
      `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
    ]) {
      exporter.reset();
      const answer = await fetch(`${a.url}/tasks/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent },
        body: JSON.stringify(task(`malformed-${traceparent.length}-${traceparent.slice(0, 2)}`)),
      });
      assert.equal(answer.status, 200, traceparent);
      const served = servedByA();
      assert.equal(served.parentSpanContext, undefined, `${traceparent}: a root span`);
      assert.notEqual(served.spanContext().traceId, TRACE_ID);
    }
  });

  test('sse: a traceparent header on a stream request is its span parent', async (t) => {
    const { a } = await agents(t, 'sse');
    const answer = await fetch(`${a.url}/tasks/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', traceparent: TRACEPARENT },
      body: JSON.stringify(task('raw-sse')),
    });
    assert.equal(answer.status, 200);
    await answer.text();
    const served = servedByA('streamTask');
    assert.equal(served.spanContext().traceId, TRACE_ID);
    assert.equal(served.parentSpanContext?.spanId, PARENT_ID);
  });

  test('websocket: the frame `trace` is the parent; a malformed one is ignored', async (t) => {
    const { a } = await agents(t, 'websocket');
    const peer = await RawPeer.open(a.url);
    t.after(() => peer.socket.close());
    const frame = (id: string, traceparent: string) => ({
      id,
      method: 'POST',
      path: '/tasks/',
      data: task(id),
      trace: { traceparent, tracestate: 'vendor=ws' },
    });
    peer.send(frame('ws-1', TRACEPARENT));
    const answer = await peer.next();
    assert.equal(answer.json.ok, true, answer.text);
    const served = servedByA();
    assert.equal(served.spanContext().traceId, TRACE_ID);
    assert.equal(served.parentSpanContext?.spanId, PARENT_ID);
    assert.equal(served.spanContext().traceState?.get('vendor'), 'ws');

    exporter.reset();
    peer.send(frame('ws-2', 'not-a-traceparent'));
    const second = await peer.next();
    assert.equal(second.json.ok, true, second.text);
    assert.equal(servedByA().parentSpanContext, undefined);
  });

  test('grpc: traceparent and tracestate metadata are the parent', async (t) => {
    const { a } = await agents(t, 'grpc');
    const client = jsonClient(t, a.url);
    const answer = await unaryCall(
      client,
      'Invoke',
      { id: 'grpc-1', method: 'POST', path: '/tasks/', data: task('grpc-1') },
      { traceparent: TRACEPARENT, tracestate: 'vendor=grpc' },
    );
    assert.equal(answer.ok, true);
    const served = servedByA();
    assert.equal(served.spanContext().traceId, TRACE_ID);
    assert.equal(served.parentSpanContext?.spanId, PARENT_ID);
    assert.equal(served.spanContext().traceState?.get('vendor'), 'grpc');
  });
});

describe('what a client sends', () => {
  /** A plain ws server that answers every frame with a finished task and keeps the frames. */
  async function frameCatcher(t: Closer): Promise<{ url: string; seen: Record<string, unknown>[] }> {
    const seen: Record<string, unknown>[] = [];
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    server.on('connection', (socket) => {
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as Record<string, unknown>;
        seen.push(frame);
        socket.send(JSON.stringify({ id: frame.id, ok: true, result: { id: 'caught', state: 'completed' }, final: true }));
      });
    });
    t.after(() => {
      for (const client of server.clients) client.terminate();
      return new Promise((resolve) => server.close(resolve));
    });
    return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  test('http: tracing off sends no trace headers, even inside an active span; on, the call span is the parent', async (t) => {
    const peer = await headerCatcher(t);
    const off = new AgentClient(peer.url, { protocol: 'parley' });
    t.after(() => off.close());
    await inAppSpan(() => off.sendTask('untraced'));
    assert.equal(peer.seen[0]?.traceparent, undefined);
    assert.equal(peer.seen[0]?.tracestate, undefined);
    assert.equal(spansOf(SpanKind.CLIENT, 'parley sendTask').length, 0);

    const on = new AgentClient(peer.url, { protocol: 'parley', tracing: true });
    t.after(() => on.close());
    await inAppSpan(() => on.sendTask('traced'));
    const call = only(spansOf(SpanKind.CLIENT, 'parley sendTask'), 'client span');
    const app = only(
      exporter
        .getFinishedSpans()
        .filter((span) => span.name === 'app work' && span.spanContext().traceId === call.spanContext().traceId),
      'app span',
    );
    assertChild(call, app, 'the call');
    assert.equal(peer.seen[1]?.traceparent, `00-${call.spanContext().traceId}-${call.spanContext().spanId}-01`);
    assert.equal(call.attributes['server.address'], '127.0.0.1');
  });

  test('websocket: tracing off puts no `trace` in the frame; on, the frame carries the call span', async (t) => {
    const peer = await frameCatcher(t);
    const off = new AgentClient(peer.url, { protocol: 'parley' });
    t.after(() => off.close());
    await inAppSpan(() => off.sendTask('untraced'));
    assert.equal('trace' in peer.seen[0]!, false);

    const on = new AgentClient(peer.url, { protocol: 'parley', tracing: true });
    t.after(() => on.close());
    await inAppSpan(() => on.sendTask('traced'));
    const call = only(spansOf(SpanKind.CLIENT, 'parley sendTask'), 'client span');
    assert.deepEqual(peer.seen[1]?.trace, { traceparent: `00-${call.spanContext().traceId}-${call.spanContext().spanId}-01` });
  });

  test('grpc: tracing off sends no trace metadata; on, it sends the call span', async (t) => {
    const seen: grpc.Metadata[] = [];
    const server = new grpc.Server();
    server.addService(passThroughService as unknown as grpc.ServiceDefinition, {
      Invoke: (call: grpc.ServerUnaryCall<{ id: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        seen.push(call.metadata);
        callback(null, { id: call.request.id, ok: true, result: { id: 'caught', state: 'completed' }, final: true });
      },
      Stream: () => undefined,
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    t.after(() => server.forceShutdown());
    const url = `grpc://127.0.0.1:${port}`;
    const off = new AgentClient(url, { protocol: 'parley', grpc: { codec: 'json' } });
    t.after(() => off.close());
    await inAppSpan(() => off.sendTask('untraced'));
    assert.deepEqual(seen[0]?.get('traceparent'), []);

    const on = new AgentClient(url, { protocol: 'parley', tracing: true, grpc: { codec: 'json' } });
    t.after(() => on.close());
    await inAppSpan(() => on.sendTask('traced'));
    const call = only(spansOf(SpanKind.CLIENT, 'parley sendTask'), 'client span');
    assert.deepEqual(seen[1]?.get('traceparent'), [`00-${call.spanContext().traceId}-${call.spanContext().spanId}-01`]);
  });
});

describe('span outcomes', () => {
  test('a server fault is an error on both sides; each retried attempt is served in a span of the one call', async (t) => {
    const boom = table(
      unary(ops.sendTask, () => {
        throw new Error('boom');
      }),
    );
    const server = await serve(t, 'http', listenUrl('http'), boom, { tracing: true });
    const caller = await client(t, 'http', server.url, { tracing: true, retry: instantRetry(2) });
    await assert.rejects(caller.unary(ops.sendTask, { id: 'boom', messages: [] }));
    const call = only(childrenOf(SpanKind.CLIENT, null), 'client span');
    assert.equal(call.status.code, SpanStatusCode.ERROR);
    assert.deepEqual(
      call.events.map((event) => [event.name, event.attributes?.['parley.attempt']]),
      [['retry', 1]],
    );
    const served = childrenOf(SpanKind.SERVER, call);
    assert.equal(served.length, 2, 'both attempts');
    for (const span of served) {
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.equal(span.attributes['error.type'], 'internal');
    }
  });

  test("a caller's mistake (404) is an error to the caller only", async (t) => {
    const agent = new AgentServer({ name: 'plain', url: listenUrl('http'), tracing: true });
    await agent.start();
    t.after(() => agent.stop());
    const caller = new AgentClient(agent.url, { protocol: 'parley', tracing: true });
    t.after(() => caller.close());
    await assert.rejects(caller.cancel('no-such-task'));
    const call = only(childrenOf(SpanKind.CLIENT, null), 'client span');
    const served = only(childrenOf(SpanKind.SERVER, call), 'server span');
    assert.equal(call.name, 'parley cancelTask');
    assert.equal(call.status.code, SpanStatusCode.ERROR);
    assert.equal(served.attributes['error.type'], 'not_found');
    assert.notEqual(served.status.code, SpanStatusCode.ERROR);
  });
});
