// GET /.well-known/agent.json, GET /healthz and /readyz, GET and POST /chat (spec: Agent
// endpoints, AgentCard, Health payload).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TRANSPORTS,
  EchoModel,
  assertValid,
  rawHttp,
  rejectsWithStatus,
  startAgent,
  userTask,
} from '../support/agent-harness.js';
import { SPEC_CAPABILITIES, SPEC_METRIC_NAMES } from '../support/spec-tables.js';
import type { AgentServer } from '../../src/agent/agent-server.js';

for (const kind of TRANSPORTS) {
  describe(`agent card over ${kind}`, () => {
    test('the card validates and carries name, description, role, tags, url, interfaces, has_llm false', async (t) => {
      const h = await startAgent(kind, {
        name: 'planner',
        description: 'Plans trips',
        role: 'travel',
        tags: ['trips', 'planning'],
        version: '1.2.3',
      });
      t.after(() => h.close());
      const card = await h.client.getCard();
      assertValid('agent-card', card);
      assert.equal(card.name, 'planner');
      assert.equal(card.description, 'Plans trips');
      assert.equal(card.role, 'travel');
      assert.deepEqual(card.tags, ['trips', 'planning']);
      assert.equal(card.version, '1.2.3');
      assert.equal(card.url, h.url);
      assert.deepEqual(card.interfaces, [{ url: h.url, transport: kind, protocol_version: '1' }]);
      assert.equal(card.capabilities?.has_llm, false);
      assert.equal(card.capabilities?.streaming, kind === 'runtime');
      assert.equal(card.securitySchemes, undefined, 'no authenticator, no schemes');
      if (kind === 'http') assert.match(card.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'the bound port, not 0');
    });

    test('with a model the card says has_llm true; defaults fill the optional identity fields', async (t) => {
      const h = await startAgent(kind, { name: 'chatty', llm: new EchoModel() });
      t.after(() => h.close());
      const card = await h.client.getCard();
      assertValid('agent-card', card);
      assert.equal(card.capabilities?.has_llm, true);
      assert.equal(card.description, '');
      assert.equal(card.role, '');
      assert.deepEqual(card.tags, []);
    });
  });

  describe(`health and readiness over ${kind}`, () => {
    test('/healthz and /readyz have the same content, validate, and name the transport and its capabilities', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      await h.client.sendTask(userTask('health-1', 'count me'));
      const health = await h.client.healthz();
      const ready = await h.client.readyz();
      for (const payload of [health, ready]) {
        assertValid('health', payload);
        assert.equal(payload.status, 'ready');
        assert.equal(payload.ready, true);
        assert.equal(payload.transport, kind);
        assert.equal(payload.url, h.url);
        assert.deepEqual(payload.capabilities, SPEC_CAPABILITIES[kind]);
        assert.deepEqual(Object.keys(payload.metrics).sort(), SPEC_METRIC_NAMES);
      }
      const { metrics: healthMetrics, ...healthRest } = health;
      const { metrics: readyMetrics, ...readyRest } = ready;
      assert.deepEqual(readyRest, healthRest);
      // Metrics are live counters of the serving transport: the task and the probe itself count.
      assert.ok(healthMetrics.requests_started >= 2);
      assert.ok(healthMetrics.requests_succeeded >= 1);
      assert.ok(readyMetrics.requests_started > healthMetrics.requests_started);
      assert.ok(healthMetrics.bytes_received > 0);
    });

    test('after stop the payload says stopped', async () => {
      const h = await startAgent(kind);
      await h.close();
      const health = h.agent.healthz();
      assertValid('health', health);
      assert.equal(health.status, 'stopped');
      assert.equal(health.ready, false);
    });
  });

  describe(`chat over ${kind}`, () => {
    test('POST /chat is not mounted without a model', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      if (kind === 'http') {
        // The path exists for GET (the page), so HTTP says 405 and which methods are allowed
        // (HEAD with every GET).
        const error = await rejectsWithStatus(h.client.chat({ message: 'hi' }), 405, 'method_not_allowed');
        assert.deepEqual((error as { details?: unknown }).details, { allowed: ['GET'] });
        const raw = await rawHttp(h.url, { method: 'POST', path: '/chat', body: '{"message":"hi"}' });
        assert.equal(raw.status, 405);
        assert.equal(raw.headers.allow, 'GET, HEAD');
      } else {
        await rejectsWithStatus(h.client.chat({ message: 'hi' }), 404, 'not_found');
      }
    });

    test('POST /chat answers {reply, session_id, model}, and the session continues across calls', async (t) => {
      const model = new EchoModel();
      const h = await startAgent(kind, { llm: model });
      t.after(() => h.close());
      const first = await h.client.chat({ message: 'hello' });
      assertValid('chat-response', first);
      assert.equal(first.reply, 'echo: hello');
      assert.equal(first.model, 'echo-model');
      assert.equal(typeof first.session_id, 'string');
      assert.ok(first.session_id.length > 0);
      const second = await h.client.chat({ message: 'again', session_id: first.session_id });
      assert.equal(second.reply, 'echo: again');
      assert.equal(second.session_id, first.session_id);
      assert.deepEqual(model.calls.at(-1), [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'echo: hello' },
        { role: 'user', content: 'again' },
      ]);
      // A call without a session starts a new one.
      const fresh = await h.client.chat({ message: 'new' });
      assert.notEqual(fresh.session_id, first.session_id);
      assert.deepEqual(model.calls.at(-1), [{ role: 'user', content: 'new' }]);
      // A caller may name its own session.
      const named = await h.client.chat({ message: 'mine', session_id: 'my-session' });
      assert.equal(named.session_id, 'my-session');
      assert.equal((await h.client.describeState({ session_id: first.session_id })).state.turns, 4);
    });

    test('tasks for the default model handler share the chat session named in metadata.session_id', async (t) => {
      const model = new EchoModel();
      const h = await startAgent(kind, { llm: model });
      t.after(() => h.close());
      const chat = await h.client.chat({ message: 'remember me' });
      const task = await h.client.sendTask(userTask('llm-task-1', 'and this', { metadata: { session_id: chat.session_id } }));
      assert.equal(task.state, 'completed');
      assert.equal(task.messages!.at(-1)!.parts[0]!.content, 'echo: and this');
      assert.equal(model.calls.at(-1)!.length, 3, 'the task saw the chat history');
      assert.equal((await h.client.describeState({ session_id: chat.session_id })).state.turns, 4);
    });

    test('an invalid chat request is 400', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      await rejectsWithStatus(h.client.chat({} as never), 400, 'invalid_request');
    });
  });
}

describe('pages are an http thing', () => {
  test('over runtime GET /status and GET /chat (no model) are unknown endpoints: 404', async (t) => {
    const h = await startAgent('runtime');
    t.after(() => h.close());
    await rejectsWithStatus(h.client.getStatusPage(), 404, 'not_found');
    await rejectsWithStatus(h.client.getChatPage(), 404, 'not_found');
  });

  test('over runtime GET /chat is an unknown endpoint (404) even when POST /chat exists', async (t) => {
    // Spec, Errors: "Unknown runtime endpoint: remote error with status 404". Runtime has no
    // methods on paths, only endpoints; a 405 is an HTTP notion.
    const h = await startAgent('runtime', { llm: new EchoModel() });
    t.after(() => h.close());
    await rejectsWithStatus(h.client.getChatPage(), 404, 'not_found');
  });

  test('over http GET /chat without a model shows the fallback text', async (t) => {
    const h = await startAgent('http', { name: 'no-model' });
    t.after(() => h.close());
    const page = await h.client.getChatPage();
    assert.match(page, /no language model configured/);
    assert.match(page, /<h1>no-model<\/h1>/);
    assert.doesNotMatch(page, /<form/);
    const raw = await rawHttp(h.url, { path: '/chat' });
    assert.equal(raw.status, 200);
    assert.match(String(raw.headers['content-type']), /^text\/html/);
  });

  test('over http GET /chat with a model shows a chat form naming the model', async (t) => {
    const h = await startAgent('http', { name: 'talker', llm: new EchoModel() });
    t.after(() => h.close());
    const page = await h.client.getChatPage();
    assert.match(page, /<form id="chat">/);
    assert.match(page, /model echo-model/);
    assert.doesNotMatch(page, /no language model/);
  });
});

test('AgentServer offers its card under one name, getCard(), and no endpoint plumbing', async (t) => {
  const h = await startAgent('runtime', { name: 'surface' });
  t.after(() => h.close());
  const agent: AgentServer = h.agent;
  assert.equal(agent.getCard().name, 'surface');
  assert.deepEqual(agent.getCard(), await h.client.getCard());
  for (const name of ['sendTaskEncoded', 'streamItems']) assert.equal(name in agent, false, name);
  // @ts-expect-error card() is private: the generated interface's getCard() is the public name
  assert.equal(typeof agent.card, 'function');
});
