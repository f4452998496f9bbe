// Capacity under a hung model provider (issue 28, defect 4), over every transport, against a
// real local server of the OpenAI chat completions API that accepts each request and never
// answers. While every request slot is held by a chat waiting on it, the probes (/healthz,
// /readyz, /metrics) are still answered; while model-backed requests are at their own bound
// (limits.max_concurrent_model_requests), a task that needs no model is still served.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentServer } from '../../src/agent/agent-server.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { OpenAIChatModel, type OpenAIChatOptions } from '../../src/llm/providers/openai-chat.js';
import { TRANSPORTS, listenUrl, type TransportKind } from '../support/cross-transport.js';
import { rejection, waitFor } from '../support/transport-fixtures.js';
import { startOpenAIServer, type OpenAITurn } from '../llm/fake-openai-server.js';
import type { HangTurn, ScriptedServer, TestScope } from '../llm/scripted-server.js';

/** Request slots of the agents under test: few, so filling them is cheap. */
const SLOTS = 4;
const TIMEOUT = { timeout: 20_000 };

/** The hung provider as a model: one attempt per step, so a chat holds its slot until it is let go. */
function hungModel(provider: ScriptedServer<OpenAITurn>, deadlines: Partial<OpenAIChatOptions> = {}): OpenAIChatModel {
  return new OpenAIChatModel({
    model: 'hung',
    apiKey: 'sk-test',
    baseUrl: `${provider.baseUrl}/v1`,
    retry: { maxAttempts: 1 },
    ...deadlines,
  });
}

/** An agent on `kind` whose model is a provider of its own that hangs on each of `hung` requests. */
async function start(
  t: TestScope,
  kind: TransportKind,
  hung: number,
  limits: Record<string, number>,
  deadlines: Partial<OpenAIChatOptions> = {},
  turn: HangTurn = { hang: true, silent: true },
) {
  // A provider per test: chats a previous test let go of cannot reach this one's.
  const provider = await startOpenAIServer(t);
  provider.script(...Array.from({ length: hung }, () => turn));
  const pages = kind === 'http' || kind === 'sse';
  const agent = new AgentServer({
    name: 'capacity',
    transport: kind,
    url: listenUrl(kind),
    llm: hungModel(provider, deadlines),
    // A handler of the author's that never calls the model: its tasks are not model-backed.
    handler: ({ input }) => input,
    transportOptions: { limits: { maxConcurrentRequests: SLOTS, ...limits }, shutdownTimeout: 1 },
    metrics: pages ? { public: true, processMetrics: false } : undefined,
  });
  await agent.start();
  const connect = () => new AgentClient(agent.url, { transport: kind, protocol: 'parley' });
  const client = connect();
  const chatters: AgentClient[] = [];
  return {
    agent,
    client,
    provider,
    /**
     * Chats that hang at the provider, each from a client of its own (a websocket client sends
     * one call at a time); their failures, once the test ends them, are expected.
     */
    chats(count: number) {
      for (let i = 0; i < count; i++) {
        const chatter = connect();
        chatters.push(chatter);
        chatter.chat(`hung ${i}`).catch(() => undefined);
      }
    },
    active: () => agent.transport.health().metrics.active_requests,
    async close() {
      // Stopping the provider drops its connections, which ends the hung chats, so the server
      // stops at once.
      await provider.stop();
      await Promise.all([client, ...chatters].map((each) => each.close()));
      await agent.stop();
    },
  };
}

for (const kind of TRANSPORTS) {
  describe(`a hung model provider over ${kind}`, () => {
    test('with every request slot held by a hung chat, /healthz, /readyz (and /metrics) are answered', TIMEOUT, async (t) => {
      // The model bound as large as the request slots: the chats can take every one.
      const served = await start(t, kind, SLOTS, { maxConcurrentModelRequests: SLOTS });
      t.after(() => served.close());
      const { provider } = served;
      served.chats(SLOTS);
      await provider.untilRequests(SLOTS);
      assert.equal(served.active(), SLOTS);
      // None of these may wait for a slot: before the fix they waited until the chats ended.
      assert.equal((await served.client.health()).status, 'ready');
      assert.equal((await served.client.readiness()).ready, true);
      if (kind === 'http' || kind === 'sse') {
        const metrics = await fetch(`${served.agent.url}/metrics`);
        assert.equal(metrics.status, 200);
        assert.match(await metrics.text(), /parley_/);
      }
      assert.equal(provider.requests.length, SLOTS, 'the chats are still waiting on the provider');
    });

    test('with model-backed requests at their bound, a task that needs no model is served', TIMEOUT, async (t) => {
      // The default bound: half the request slots. Only that many chats reach the provider.
      const served = await start(t, kind, SLOTS / 2, {});
      t.after(() => served.close());
      const { provider } = served;
      served.chats(SLOTS);
      // Every chat has arrived; half of them are at the provider, the rest wait for a model slot.
      await waitFor(() => served.active() === SLOTS, `${SLOTS} chats being served`);
      await provider.untilRequests(SLOTS / 2);
      const task = await served.client.sendTask('no model needed');
      assert.equal(task.state, 'completed');
      assert.equal(provider.requests.length, SLOTS / 2, 'the chats over the bound never reached the provider');
    });

    test(
      'a chat to a provider that never answers, or stalls mid-answer, ends at its deadline with 502 model_timeout',
      TIMEOUT,
      async (t) => {
        const silent = await start(t, kind, 1, {}, { firstByteTimeoutMs: 1_000 });
        t.after(() => silent.close());
        const first = await rejection(silent.client.chat('anyone there?'));
        assert.equal(first.code, 'model_timeout', first.message);
        assert.equal(first.statusCode, 502);
        assert.match(first.message, /first-byte timeout/);
        const stalled = await start(t, kind, 1, {}, { idleTimeoutMs: 500 }, { hang: true, before: ['half an'] });
        t.after(() => stalled.close());
        const idle = await rejection(stalled.client.chat('go on'));
        assert.equal(idle.code, 'model_timeout', idle.message);
        assert.match(idle.message, /idle timeout/);
      },
    );
  });
}
