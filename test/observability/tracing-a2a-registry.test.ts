// Tracing across the A2A boundary and on the registry calls, with the OpenTelemetry SDK
// registered as an application registers it: the official @a2a-js/sdk client's trace context
// continued by a parley agent's A2A routes; parley's own A2A client (AgentClient with
// protocol a2a) making one trace of client -> A -> B; the RegistryClient and RegistryServer
// making CLIENT and SERVER spans; and what an agent's registration traces by default
// (register and unregister, not the heartbeats) and when told otherwise.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AgentServer } from '../../src/agent/agent-server.js';
import { type AgentHandler, needsInput } from '../../src/agent/handler.js';
import type { AgentRegistrationOptions } from '../../src/agent/agent-registration.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { MemoryRegistryStore } from '../../src/stores/memory/memory-registry-store.js';
import { RegistryServer } from '../../src/registry/registry-server.js';
import { sdkClientVia, startA2aAgent } from '../a2a/support.js';
import { listenUrl, TRANSPORTS } from '../support/cross-transport.js';
import type { Closer } from '../support/header-catcher.js';
import { card, startRegistry } from '../support/registry-harness.js';
import { assertChild, childrenOf, exporter, inAppSpan, only, spansOf, useTracingSdk } from '../support/tracing-sdk.js';
import { waitFor } from '../support/transport-fixtures.js';

useTracingSdk();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

const CARD = 'parley getA2ACard';
const RPC = 'parley a2a/SendMessage';

/** The texts of an A2A (protobuf-es) message's or artifact's parts. */
function textsOf(parts: any[] | undefined): string[] {
  return (parts ?? []).filter((part) => part.content?.$case === 'text').map((part) => part.content.value);
}

/** Agent B (echo, A2A on) and agent A (A2A on), whose handler asks B over A2A before answering. */
async function a2aAgents(t: Closer): Promise<{ a: AgentServer; b: AgentServer }> {
  const { agent: b } = await startA2aAgent(t, { name: 'b', tracing: true, handler: ({ input }) => `echo: ${input}` });
  const toB = new AgentClient(b.url, { protocol: 'a2a', tracing: true });
  t.after(() => toB.close());
  const handler: AgentHandler = async ({ input }) => {
    const answer = await toB.sendMessage(`from a: ${input}`);
    return `b said ${answer.parts.map((part) => ('content' in part ? part.content : '')).join('')}`;
  };
  const { agent: a } = await startA2aAgent(t, { name: 'a', tracing: true, handler });
  return { a, b };
}

/** The one span of `kind` named `name` among `spans`. */
function one(spans: ReadableSpan[], kind: SpanKind, name: string, what: string): ReadableSpan {
  return only(
    spans.filter((span) => span.kind === kind && span.name === name),
    what,
  );
}

describe('A2A inbound: the @a2a-js/sdk client sends a traceparent', () => {
  test("the card fetch and SendMessage continue its trace, and so does the handler's call to B", async (t) => {
    const { a } = await a2aAgents(t);
    // What an application's fetch instrumentation does: the trace context on every request.
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('traceparent', TRACEPARENT);
      headers.set('tracestate', 'vendor=sdk');
      return fetch(input, { ...init, headers });
    };
    const sdk = await sdkClientVia(a.url, fetchImpl);
    const result: any = await sdk.sendMessage({
      message: { messageId: 'm-1', role: 1, parts: [{ content: { $case: 'text', value: 'hello' } }] },
    } as any);
    assert.deepEqual(textsOf(result.artifacts[0].parts), ['b said echo: from a: hello']);

    // A's two SERVER spans are the children of the SDK's span.
    const fromSdk = exporter.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === PARENT_ID);
    const servedCard = one(fromSdk, SpanKind.SERVER, CARD, "A's card span");
    const servedRpc = one(fromSdk, SpanKind.SERVER, RPC, "A's JSON-RPC span");
    assert.equal(fromSdk.length, 2, 'nothing else is a child of the SDK span');
    for (const span of [servedCard, servedRpc]) {
      assert.equal(span.spanContext().traceId, TRACE_ID);
      assert.equal(span.parentSpanContext?.isRemote, true);
      assert.equal(span.spanContext().traceState?.get('vendor'), 'sdk');
      assert.equal(span.attributes['parley.transport'], 'http');
    }
    assert.equal(servedRpc.attributes['rpc.method'], 'SendMessage');
    // The handler ran inside A's JSON-RPC span: its calls to B (card, SendMessage) are children of it.
    const callsToB = childrenOf(SpanKind.CLIENT, servedRpc);
    assert.deepEqual(callsToB.map((span) => span.name).sort(), [RPC, CARD].sort());
    for (const call of callsToB) {
      const servedB = only(childrenOf(SpanKind.SERVER, call), `B's span under ${call.name}`);
      assert.equal(servedB.name, call.name);
      assert.equal(servedB.spanContext().traceId, TRACE_ID);
    }
    assert.equal(exporter.getFinishedSpans().length, 6, 'two spans on A, two calls to B, two spans on B');
  });
});

describe('A2A outbound: an AgentClient with protocol a2a', () => {
  test('client -> A -> B over A2A is one trace: card fetches and SendMessage calls, each served as a child', async (t) => {
    const { a } = await a2aAgents(t);
    const client = new AgentClient(a.url, { protocol: 'a2a', tracing: true });
    t.after(() => client.close());
    const task = await inAppSpan(() => client.sendTask('hello'));
    assert.equal(task.state, 'completed');

    const app = only(
      exporter.getFinishedSpans().filter((span) => span.name === 'app work'),
      'app span',
    );
    const traceId = app.spanContext().traceId;
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 9, 'the app span, then a card fetch and a SendMessage per hop, each on both sides');
    for (const span of spans) {
      assert.equal(span.spanContext().traceId, traceId, `${span.name}: one trace`);
      assert.notEqual(span.status.code, SpanStatusCode.ERROR, span.name);
    }
    // The caller: its card fetch and its SendMessage are children of the application's span.
    const outer = childrenOf(SpanKind.CLIENT, app);
    const outerCard = one(outer, SpanKind.CLIENT, CARD, "the caller's card fetch");
    const outerRpc = one(outer, SpanKind.CLIENT, RPC, "the caller's SendMessage");
    assert.equal(outerRpc.attributes['server.address'], '127.0.0.1');
    // A serves each as a child.
    assertChild(only(childrenOf(SpanKind.SERVER, outerCard), "A's card span"), outerCard, "A's card span");
    const servedA = only(childrenOf(SpanKind.SERVER, outerRpc), "A's JSON-RPC span");
    assert.equal(servedA.name, RPC);
    assert.equal(servedA.attributes['parley.request_id'], outerRpc.attributes['parley.request_id'], 'one request id');
    // A's handler calls B inside A's span, and B serves each call as a child.
    const inner = childrenOf(SpanKind.CLIENT, servedA);
    for (const name of [CARD, RPC]) {
      const call = one(inner, SpanKind.CLIENT, name, `A's ${name}`);
      const servedB = only(childrenOf(SpanKind.SERVER, call), `B's ${name}`);
      assert.equal(servedB.name, name);
    }
  });

  test("a cancellation by local id goes out in the caller's trace, served as a child", async (t) => {
    const { agent } = await startA2aAgent(t, { tracing: true, handler: () => needsInput('which city?') });
    const client = new AgentClient(agent.url, { protocol: 'a2a', tracing: true });
    t.after(() => client.close());
    const asked = await client.sendTask('weather');
    assert.equal(asked.state, 'input-required');
    exporter.reset();
    const cancelled = await inAppSpan(() => client.cancel(asked.id, 'enough'));
    assert.equal(cancelled.state, 'canceled');
    const app = only(spansOf(SpanKind.INTERNAL, 'app work'), 'app span');
    const call = only(childrenOf(SpanKind.CLIENT, app), 'the CancelTask call');
    assert.equal(call.name, 'parley a2a/CancelTask');
    assertChild(only(childrenOf(SpanKind.SERVER, call), 'its SERVER span'), call, 'the served CancelTask');
  });
});

describe('registry calls', () => {
  for (const kind of TRANSPORTS) {
    test(`${kind}: each RegistryClient call is a CLIENT span, served as a SERVER span under it`, async (t) => {
      const h = await startRegistry(t, kind, { tracing: true, clientOptions: { tracing: true } });
      const agentUrl = 'http://127.0.0.1:1/agent';
      await inAppSpan(async () => {
        assert.equal((await h.client.register(card(agentUrl, 'traced'))).error, undefined);
        assert.equal((await h.client.heartbeat(agentUrl)).error, undefined);
        assert.equal((await h.client.discover()).length, 1);
        assert.equal((await h.client.unregister(agentUrl)).error, undefined);
      });
      const app = only(
        exporter.getFinishedSpans().filter((span) => span.name === 'app work'),
        'app span',
      );
      const calls = childrenOf(SpanKind.CLIENT, app);
      assert.deepEqual(
        calls.map((span) => span.name),
        ['parley register', 'parley heartbeat', 'parley discover', 'parley unregister'],
      );
      for (const call of calls) {
        assert.equal(call.attributes['parley.transport'], kind);
        const served = only(childrenOf(SpanKind.SERVER, call), `the registry's span of ${call.name}`);
        assert.equal(served.name, call.name);
        assert.equal(served.attributes['parley.request_id'], call.attributes['parley.request_id']);
      }
      assert.equal(exporter.getFinishedSpans().length, 9);

      // A heartbeat opts out: no CLIENT span, no trace context, and the registry makes no span
      // of its own (a heartbeat is traced only within its caller's trace). Other calls that
      // opt out still start a trace on the registry.
      exporter.reset();
      await inAppSpan(async () => {
        assert.equal((await h.client.heartbeat(agentUrl, { tracing: false })).error, undefined);
        assert.equal((await h.client.discover({}, { tracing: false })).length, 0);
      });
      assert.equal(spansOf(SpanKind.CLIENT, 'parley heartbeat').length, 0);
      assert.equal(spansOf(SpanKind.SERVER, 'parley heartbeat').length, 0, 'no SERVER span for an untraced heartbeat');
      assert.equal(only(spansOf(SpanKind.SERVER, 'parley discover'), 'served discover').parentSpanContext, undefined);
    });
  }
});

/** The in-memory store, counting heartbeats (touches) so a test can wait for them. */
class CountingStore extends MemoryRegistryStore {
  touches = 0;
  override touch(url: string, lastSeen: number): boolean {
    this.touches++;
    return super.touch(url, lastSeen);
  }
}

describe("an agent's own registration", () => {
  /** A traced registry, and an agent that joins it with `registry` and the given tracing. */
  async function joined(
    t: Closer,
    agentTracing: boolean,
    client: AgentRegistrationOptions['client'] = {},
  ): Promise<{ agent: AgentServer; registry: RegistryServer }> {
    const store = new CountingStore();
    const registry = new RegistryServer({ transport: 'http', url: listenUrl('http'), tracing: true, store });
    await registry.start();
    t.after(() => registry.stop());
    const agent = new AgentServer({
      name: 'joiner',
      url: listenUrl('http'),
      tracing: agentTracing,
      registry: { url: registry.url, heartbeatIntervalSeconds: 0.02, client },
    });
    await agent.start();
    t.after(() => agent.stop());
    assert.equal((await agent.whenRegistered())?.error, undefined);
    await waitFor(() => store.touches >= 3, 'three heartbeats served');
    await agent.stop();
    return { agent, registry };
  }

  /** The registry's span under each of the agent's CLIENT spans named `name`. */
  function servedUnder(name: string): ReadableSpan[] {
    return spansOf(SpanKind.CLIENT, name).map((call) => only(childrenOf(SpanKind.SERVER, call), `served ${name}`));
  }

  test('tracing on the agent: register and unregister are traced, heartbeats are not', async (t) => {
    await joined(t, true);
    assert.equal(servedUnder('parley register').length, 1, 'register: a CLIENT span with its SERVER child');
    assert.equal(servedUnder('parley unregister').length, 1, 'unregister: the same');
    assert.equal(spansOf(SpanKind.CLIENT, 'parley heartbeat').length, 0, 'no heartbeat CLIENT span');
    assert.equal(spansOf(SpanKind.SERVER, 'parley heartbeat').length, 0, 'nor a SERVER span on the registry');
  });

  test('registry.client.tracing true: heartbeats are traced too', async (t) => {
    await joined(t, false, { tracing: true });
    assert.equal(servedUnder('parley register').length, 1);
    assert.equal(servedUnder('parley unregister').length, 1);
    const heartbeats = servedUnder('parley heartbeat');
    assert.ok(heartbeats.length >= 1, 'heartbeats are CLIENT spans with their SERVER children');
  });

  test('registry.client.tracing false: nothing of the registration is traced, whatever the agent does', async (t) => {
    await joined(t, true, { tracing: false });
    for (const name of ['parley register', 'parley heartbeat', 'parley unregister']) {
      assert.equal(spansOf(SpanKind.CLIENT, name).length, 0, name);
      for (const served of spansOf(SpanKind.SERVER, name)) assert.equal(served.parentSpanContext, undefined, name);
    }
    assert.equal(spansOf(SpanKind.SERVER, 'parley heartbeat').length, 0, 'untraced heartbeats make no SERVER span');
  });

  test('tracing off on the agent: no registry call is traced (as before)', async (t) => {
    await joined(t, false);
    assert.equal(exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT).length, 0);
  });
});
