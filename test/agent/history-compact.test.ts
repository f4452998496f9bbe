// POST /llm/history/compact (spec: Agent endpoints, Control-plane request shapes): shrinks the
// model conversation of one session with the `tokens`, `messages` or `summary` strategy, and
// creates no task.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompactHistoryRequest } from '../../generated/types/index.js';
import { TRANSPORTS, EchoModel, assertValid, rejectsWithStatus, startAgent, type Harness } from '../support/agent-harness.js';

/** A session with `exchanges` user/assistant pairs, built through POST /chat. */
async function chatSession(h: Harness, exchanges: number): Promise<string> {
  let sessionId: string | undefined;
  for (let i = 1; i <= exchanges; i++) {
    const reply = await h.client.chat({
      message: `message number ${i} with a few words in it`,
      ...(sessionId ? { session_id: sessionId } : {}),
    });
    sessionId = reply.session_id;
  }
  return sessionId!;
}

async function turnsOf(h: Harness, sessionId: string): Promise<number> {
  const described = await h.client.describeState({ session_id: sessionId });
  return described.state.turns as number;
}

for (const kind of TRANSPORTS) {
  describe(`POST /llm/history/compact over ${kind}`, () => {
    test('tokens: drops the oldest turns to fit max_tokens, keeping preserve_recent', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const sessionId = await chatSession(h, 3); // 6 turns
      const result = await h.client.compactHistory({
        session_id: sessionId,
        strategy: 'tokens',
        max_tokens: 1,
        preserve_recent: 2,
      });
      assertValid('compact-history-result', result);
      assert.equal(result.session_id, sessionId);
      assert.equal(result.strategy, 'tokens');
      assert.equal(result.messages_before, 6);
      assert.equal(result.messages_after, 2);
      assert.equal(result.removed, 4);
      assert.equal(result.summary, null);
      assert.ok(result.tokens_after < result.tokens_before);
      assert.equal(await turnsOf(h, sessionId), 2);
    });

    test('tokens: a history that already fits is left alone', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const sessionId = await chatSession(h, 2);
      const result = await h.client.compactHistory({ session_id: sessionId });
      assertValid('compact-history-result', result);
      assert.equal(result.strategy, 'tokens', 'tokens is the default strategy');
      assert.equal(result.removed, 0);
      assert.equal(result.messages_after, result.messages_before);
      assert.equal(result.tokens_after, result.tokens_before);
    });

    test('messages: keeps only the newest preserve_recent turns, ignoring max_tokens', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const sessionId = await chatSession(h, 3);
      const result = await h.client.compactHistory({
        session_id: sessionId,
        strategy: 'messages',
        preserve_recent: 3,
        max_tokens: 100_000,
      });
      assertValid('compact-history-result', result);
      assert.equal(result.strategy, 'messages');
      assert.equal(result.messages_before, 6);
      assert.equal(result.messages_after, 3);
      assert.equal(result.removed, 3);
      assert.equal(result.summary, null);
      assert.equal(await turnsOf(h, sessionId), 3);
    });

    test('summary: folds the older turns into one system turn written by the model', async (t) => {
      const model = new EchoModel();
      const h = await startAgent(kind, { llm: model });
      t.after(() => h.close());
      const sessionId = await chatSession(h, 3);
      const callsBefore = model.calls.length;
      const result = await h.client.compactHistory({
        session_id: sessionId,
        strategy: 'summary',
        max_tokens: 1,
        preserve_recent: 2,
      });
      assertValid('compact-history-result', result);
      assert.equal(result.strategy, 'summary');
      assert.equal(result.messages_before, 6);
      assert.equal(result.removed, 4);
      assert.equal(result.messages_after, 3, 'a summary turn plus the two kept');
      assert.equal(model.calls.length, callsBefore + 1, 'the model wrote the summary');
      // The echo model "summarizes" by echoing the transcript it was given.
      assert.match(result.summary!, /^echo: user: message number 1/);
      assert.equal(await turnsOf(h, sessionId), 3);
      // The conversation goes on with the summary in place.
      await h.client.chat({ message: 'and now?', session_id: sessionId });
      const lastConversation = model.calls.at(-1)!;
      assert.equal(lastConversation[0]!.role, 'system');
      assert.match(lastConversation[0]!.content, /Summary of the earlier conversation/);
    });

    test('an unknown session is not an error, and nothing is removed', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const result = await h.client.compactHistory({ session_id: 'no-such-session', strategy: 'messages', preserve_recent: 0 });
      assertValid('compact-history-result', result);
      assert.equal(result.messages_before, 0);
      assert.equal(result.messages_after, 0);
      assert.equal(result.removed, 0);
    });

    test('an agent without a model answers too: it has no sessions, so nothing is compacted', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      const result = await h.client.compactHistory({ session_id: 's', strategy: 'summary' });
      assertValid('compact-history-result', result);
      assert.equal(result.summary, null);
      assert.equal(result.removed, 0);
      assert.equal(result.metadata?.session_found, false);
    });

    test('creates no task', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const sessionId = await chatSession(h, 3);
      for (const strategy of ['tokens', 'messages', 'summary'] as const) {
        await h.client.compactHistory({ session_id: sessionId, strategy, max_tokens: 1, preserve_recent: 1 });
      }
      const agentState = await h.client.describeState({ scope: 'agent' });
      assert.equal(agentState.state.active_tasks, 0);
      // The status page counts no task in any state.
      const counts = [...h.agent.getStatusPage().matchAll(/data-state="[a-z-]+">(\d+)</g)].map((match) => match[1]);
      assert.deepEqual(counts, ['0', '0', '0', '0', '0', '0']);
    });

    test('an invalid request is 400', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      await rejectsWithStatus(h.client.compactHistory({ strategy: 'tokens' } as CompactHistoryRequest), 400, 'invalid_request');
      await rejectsWithStatus(
        h.client.compactHistory({ session_id: 's', strategy: 'shrink' } as unknown as CompactHistoryRequest),
        400,
        'invalid_request',
      );
    });
  });
}
