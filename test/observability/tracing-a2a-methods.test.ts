// The A2A JSON-RPC spans carry the JSON-RPC method, as the OpenTelemetry conventions for
// JSON-RPC have it: `parley a2a/<Method>` with rpc.system 'jsonrpc', rpc.method, the version,
// the request id and the error code of an error answer, on both sides of a call. A request
// whose method is unknown, a batch and a body that is not JSON-RPC keep the bounded name
// `parley a2a` and no rpc.method, whatever the caller wrote.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { needsInput } from '../../src/agent/handler.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { call, postRpc, sdkClientVia, startA2aAgent, userMessage } from '../a2a/support.js';
import { assertChild, childrenOf, exporter, inAppSpan, only, spansOf, useTracingSdk } from '../support/tracing-sdk.js';

useTracingSdk();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

/** The JSON-RPC attributes a span of a call to `method` with id `id` carries. */
function assertJsonRpc(span: ReadableSpan, method: string | null, id: string | null): void {
  const what = `${span.name} (${SpanKind[span.kind]})`;
  assert.equal(span.name, method ? `parley a2a/${method}` : 'parley a2a', what);
  assert.equal(span.attributes['rpc.system'], 'jsonrpc', `${what}: rpc.system`);
  assert.equal(span.attributes['rpc.method'], method ?? undefined, `${what}: rpc.method`);
  assert.equal(span.attributes['rpc.jsonrpc.request_id'], id ?? undefined, `${what}: rpc.jsonrpc.request_id`);
  assert.equal(span.attributes['parley.transport'], 'http', `${what}: parley.transport`);
  assert.equal(typeof span.attributes['parley.request_id'], 'string', `${what}: parley.request_id`);
}

/** The one SERVER span of the agent (kind SERVER, not the card's). */
function servedCalls(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER && span.name !== 'parley getA2ACard');
}

describe("parley's A2A client to a parley agent", () => {
  test('SendMessage: a CLIENT and a SERVER span `parley a2a/SendMessage`, one trace, the same ids', async (t) => {
    const { agent } = await startA2aAgent(t, { tracing: true, handler: ({ input }) => `echo: ${input}` });
    const client = new AgentClient(agent.url, { protocol: 'a2a', tracing: true });
    t.after(() => client.close());
    const task = await inAppSpan(() => client.sendTask('hello'));
    assert.equal(task.state, 'completed');

    const app = only(spansOf(SpanKind.INTERNAL, 'app work'), 'app span');
    const sent = only(
      childrenOf(SpanKind.CLIENT, app).filter((span) => span.name !== 'parley getA2ACard'),
      'the SendMessage CLIENT span',
    );
    const id = sent.attributes['rpc.jsonrpc.request_id'];
    assert.equal(typeof id, 'string');
    assertJsonRpc(sent, 'SendMessage', id as string);
    assert.equal(sent.attributes['rpc.jsonrpc.version'], '2.0');
    assert.equal(sent.attributes['rpc.jsonrpc.error_code'], undefined);
    assert.equal(sent.attributes['server.address'], '127.0.0.1');
    assert.notEqual(sent.status.code, SpanStatusCode.ERROR);

    const served = only(childrenOf(SpanKind.SERVER, sent), 'the SendMessage SERVER span');
    assertChild(served, sent, 'the served SendMessage');
    assertJsonRpc(served, 'SendMessage', id as string);
    assert.equal(served.attributes['rpc.jsonrpc.version'], '2.0');
    assert.equal(served.attributes['rpc.jsonrpc.error_code'], undefined);
    assert.equal(served.attributes['parley.request_id'], sent.attributes['parley.request_id'], 'one request id');
    assert.equal(served.spanContext().traceId, app.spanContext().traceId, 'one trace');
  });

  test('a JSON-RPC error answer: CancelTask of a finished task carries the error code on both sides', async (t) => {
    const { agent } = await startA2aAgent(t, { tracing: true, handler: () => needsInput('which city?') });
    const client = new AgentClient(agent.url, { protocol: 'a2a', tracing: true });
    t.after(() => client.close());
    const asked = await client.sendTask('weather');
    await client.cancel(asked.id);
    exporter.reset();
    await assert.rejects(
      inAppSpan(() => client.cancel(asked.id)),
      (error: any) => error.code === 'a2a_rpc_error' && error.rpcCode === -32002,
    );
    const app = only(spansOf(SpanKind.INTERNAL, 'app work'), 'app span');
    const sent = only(childrenOf(SpanKind.CLIENT, app), 'the CancelTask CLIENT span');
    assertJsonRpc(sent, 'CancelTask', sent.attributes['rpc.jsonrpc.request_id'] as string);
    assert.equal(sent.attributes['rpc.jsonrpc.error_code'], -32002);
    assert.equal(sent.attributes['error.type'], '-32002');
    assert.equal(sent.status.code, SpanStatusCode.ERROR, 'a failed call is an error to its caller');

    const served = only(childrenOf(SpanKind.SERVER, sent), 'the CancelTask SERVER span');
    assertJsonRpc(served, 'CancelTask', sent.attributes['rpc.jsonrpc.request_id'] as string);
    assert.equal(served.attributes['rpc.jsonrpc.error_code'], -32002);
    assert.equal(served.attributes['error.type'], '-32002');
    assert.notEqual(served.status.code, SpanStatusCode.ERROR, "the caller's mistake is not a server fault");
  });
});

describe('the @a2a-js/sdk client to a parley agent', () => {
  test("SendMessage then GetTask: `parley a2a/SendMessage` and `parley a2a/GetTask`, in the caller's trace", async (t) => {
    const { agent } = await startA2aAgent(t, { tracing: true, handler: ({ input }) => `echo: ${input}` });
    const ids: string[] = [];
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('traceparent', `00-${TRACE_ID}-${PARENT_ID}-01`);
      if (typeof init?.body === 'string') ids.push(String(JSON.parse(init.body).id));
      return fetch(input, { ...init, headers });
    };
    const sdk = await sdkClientVia(agent.url, fetchImpl);
    const sent: any = await sdk.sendMessage({
      message: { messageId: 'm-1', role: 1, parts: [{ content: { $case: 'text', value: 'hello' } }] },
    } as any);
    const fetched: any = await sdk.getTask({ id: sent.id } as any);
    assert.equal(fetched.id, sent.id);
    assert.equal(ids.length, 2);

    const [sendSpan, getSpan] = servedCalls();
    assert.ok(sendSpan && getSpan, 'two JSON-RPC SERVER spans');
    assertJsonRpc(sendSpan, 'SendMessage', ids[0]!);
    assertJsonRpc(getSpan, 'GetTask', ids[1]!);
    for (const span of [sendSpan, getSpan]) {
      assert.equal(span.attributes['rpc.jsonrpc.version'], '2.0');
      assert.equal(span.spanContext().traceId, TRACE_ID);
      assert.equal(span.parentSpanContext?.spanId, PARENT_ID);
    }
  });
});

describe('raw JSON-RPC requests', () => {
  test('GetTask of an unknown task: `parley a2a/GetTask` with the id as a string and the error code', async (t) => {
    const { url } = await startA2aAgent(t, { tracing: true });
    const answer = await call(url, 'GetTask', { id: 'no-such-task' }, 42);
    assert.equal(answer.error.code, -32001);
    const served = only(servedCalls(), 'the GetTask span');
    assertJsonRpc(served, 'GetTask', '42');
    assert.equal(served.attributes['rpc.jsonrpc.error_code'], -32001);
    assert.notEqual(served.status.code, SpanStatusCode.ERROR);
  });

  test('a body that is not JSON: the bounded name, no rpc.method, the parse error code', async (t) => {
    const { url } = await startA2aAgent(t, { tracing: true });
    const answer = await postRpc(url, '{"jsonrpc": "2.0", "method": "SendMessage"');
    assert.equal(answer.json.error.code, -32700);
    const served = only(servedCalls(), 'the span of the malformed request');
    assertJsonRpc(served, null, null);
    assert.equal(served.attributes['rpc.jsonrpc.error_code'], -32700);
  });

  test('not a JSON-RPC request object: the bounded name, no rpc.method, the invalid request code', async (t) => {
    const { url } = await startA2aAgent(t, { tracing: true });
    const answer = await postRpc(url, { jsonrpc: '1.0', id: 7, method: 'SendMessage' });
    assert.equal(answer.json.error.code, -32600);
    const served = only(servedCalls(), 'the span of the invalid request');
    assertJsonRpc(served, null, '7');
    assert.equal(served.attributes['rpc.jsonrpc.error_code'], -32600);
  });

  test("an unknown method: the bounded name, never the caller's string", async (t) => {
    const { url } = await startA2aAgent(t, { tracing: true });
    const answer = await call(url, 'Frobnicate/../x', {}, 'abc');
    assert.equal(answer.error.code, -32601);
    const served = only(servedCalls(), 'the span of the unknown method');
    assertJsonRpc(served, null, 'abc');
    assert.equal(served.attributes['rpc.jsonrpc.error_code'], -32601);
  });

  test('a batch: the bounded name, no rpc.method, the calls answered', async (t) => {
    const { url } = await startA2aAgent(t, { tracing: true });
    const answer = await postRpc(url, [
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('one') } },
      { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'no-such-task' } },
    ]);
    assert.equal(answer.json.length, 2);
    const served = only(servedCalls(), 'the span of the batch');
    assertJsonRpc(served, null, null);
    assert.equal(served.attributes['rpc.jsonrpc.error_code'], undefined);
  });
});
