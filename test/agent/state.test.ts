// POST /state/describe, /state/reset, /state/compact (spec: Agent endpoints): one session's
// state (scope `session`, with session_id) or the whole agent's (scope `agent`); `keys` narrows
// the operation; reset and compact pass the agent's state policy first, describe always works.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StateRequest, StateResult } from '../../generated/types/index.js';
import type { StatePolicy } from '../../src/agent/agent-server.js';
import type { RequestContext } from '../../src/transport/endpoint.js';
import {
  TRANSPORTS,
  EchoModel,
  assertIsoTimestamp,
  assertValid,
  rejectsWithStatus,
  startAgent,
  type Harness,
} from '../support/agent-harness.js';

async function session(h: Harness, exchanges: number, text = 'hello'): Promise<string> {
  let id: string | undefined;
  for (let i = 0; i < exchanges; i++) id = (await h.client.chat({ message: text, ...(id ? { session_id: id } : {}) })).session_id;
  return id!;
}

function checkResult(
  result: StateResult,
  operation: StateResult['operation'],
  scope: 'session' | 'agent',
  sessionId: string | null,
): void {
  assertValid('state-result', result);
  assert.equal(result.operation, operation);
  assert.equal(result.scope, scope);
  assert.equal(result.session_id, sessionId);
  assertIsoTimestamp(result.timestamp);
}

for (const kind of TRANSPORTS) {
  describe(`state operations over ${kind}`, () => {
    test('describe with an empty request describes the whole agent', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const empty = await h.client.describeState({});
      checkResult(empty, 'describe', 'agent', null);
      assert.equal(empty.changed, false);
      assert.deepEqual(empty.state, { sessions: 0, active_tasks: 0, session_ids: [] });
      const a = await session(h, 1);
      const b = await session(h, 2);
      const both = await h.client.describeState({ scope: 'agent', metadata: { audit: 'yes' } });
      checkResult(both, 'describe', 'agent', null);
      assert.equal(both.state.sessions, 2);
      assert.deepEqual([...(both.state.session_ids as string[])].sort(), [a, b].sort());
      assert.deepEqual(both.metadata, { audit: 'yes' });
    });

    test('describe of one session: its turns, tokens and values; an unknown one does not exist', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const id = await session(h, 2);
      const described = await h.client.describeState({ session_id: id });
      checkResult(described, 'describe', 'session', id);
      assert.equal(described.changed, false);
      assert.equal(described.state.exists, true);
      assert.equal(described.state.turns, 4);
      assert.ok((described.state.tokens as number) > 0);
      assert.deepEqual(described.state.values, {});
      assertIsoTimestamp(described.state.created_at);
      const unknown = await h.client.describeState({ session_id: 'nobody', scope: 'session' });
      checkResult(unknown, 'describe', 'session', 'nobody');
      assert.deepEqual(unknown.state, { exists: false });
    });

    test("scope 'session' without a session_id is 400", async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      for (const call of [h.client.describeState, h.client.resetState, h.client.compactState]) {
        await rejectsWithStatus(call.call(h.client, { scope: 'session' }), 400, 'invalid_request');
      }
      await rejectsWithStatus(h.client.describeState({ scope: 'everything' } as unknown as StateRequest), 400, 'invalid_request');
    });

    test('keys narrow describe and reset to named values (none exist, so nothing changes)', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const id = await session(h, 1);
      const described = await h.client.describeState({ session_id: id, keys: ['memory'] });
      checkResult(described, 'describe', 'session', id);
      assert.deepEqual(described.state.values, {});
      const reset = await h.client.resetState({ session_id: id, keys: ['memory'] });
      checkResult(reset, 'reset', 'session', id);
      assert.equal(reset.changed, false);
      assert.equal(reset.state.exists, true, 'a keyed reset keeps the session');
      assert.equal((await h.client.describeState({ session_id: id })).state.turns, 2);
    });

    test("handler session values: kept across a session's tasks, shown by describe, narrowed and removed by a keyed reset", async (t) => {
      const h = await startAgent(kind, {
        handler: ({ session, input }) => {
          const visits = ((session.get('visits') as number | undefined) ?? 0) + 1;
          session.set('visits', visits);
          session.set('last', { text: input, at: new Date(Date.UTC(2026, 0, 2)) });
          session.set('gone', undefined);
          return `visit ${visits}`;
        },
      });
      t.after(() => h.close());
      const task = (id: string, text: string) => ({
        id,
        messages: [{ role: 'user' as const, parts: [{ type: 'text' as const, content: text }] }],
        metadata: { session_id: `s-${kind}` },
      });
      const first = await h.client.sendTask(task(`v1-${kind}`, 'one'));
      const second = await h.client.sendTask(task(`v2-${kind}`, 'two'));
      assert.equal(second.artifacts?.[0]?.parts[0]?.content, 'visit 2', JSON.stringify(first.artifacts));
      const described = await h.client.describeState({ session_id: `s-${kind}` });
      checkResult(described, 'describe', 'session', `s-${kind}`);
      // Stored as plain JSON: the Date became its ISO text; an undefined value is no key.
      assert.deepEqual(described.state.values, { visits: 2, last: { text: 'two', at: '2026-01-02T00:00:00.000Z' } });
      const narrowed = await h.client.describeState({ session_id: `s-${kind}`, keys: ['visits'] });
      assert.deepEqual(narrowed.state.values, { visits: 2 });
      const reset = await h.client.resetState({ session_id: `s-${kind}`, keys: ['visits'] });
      assert.equal(reset.changed, true);
      assert.deepEqual(reset.state.values, { last: { text: 'two', at: '2026-01-02T00:00:00.000Z' } });
      const third = await h.client.sendTask(task(`v3-${kind}`, 'three'));
      assert.equal(third.artifacts?.[0]?.parts[0]?.content, 'visit 1', 'the count starts over after the reset');
    });

    test('a task that never touches its session creates none', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      await h.client.sendTask({ id: `plain-${kind}`, messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] });
      const agent = await h.client.describeState({});
      assert.equal(agent.state.sessions, 0);
    });

    test('reset of a session deletes it and leaves the others; it is not idempotent', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const gone = await session(h, 1);
      const kept = await session(h, 1);
      const reset = await h.client.resetState({ session_id: gone, reason: 'test' });
      checkResult(reset, 'reset', 'session', gone);
      assert.equal(reset.changed, true);
      assert.deepEqual(reset.state, { exists: false });
      assert.equal((await h.client.describeState({ session_id: gone })).state.exists, false);
      assert.equal((await h.client.describeState({ session_id: kept })).state.exists, true);
      // The same request again runs again (no replay) and has nothing to do.
      const again = await h.client.resetState({ session_id: gone, reason: 'test' });
      assert.equal(again.changed, false);
    });

    test('reset of the agent clears every session', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      await session(h, 1);
      await session(h, 1);
      const reset = await h.client.resetState({ scope: 'agent' });
      checkResult(reset, 'reset', 'agent', null);
      assert.equal(reset.changed, true);
      assert.deepEqual(reset.state, { sessions_cleared: 2 });
      assert.equal((await h.client.describeState({})).state.sessions, 0);
      assert.equal((await h.client.resetState({})).changed, false);
    });

    test('compact of a session drops the oldest turns beyond the token budget; of the agent, every session', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel() });
      t.after(() => h.close());
      const long = 'word '.repeat(1200); // about 1500 tokens a turn
      const big = await session(h, 3, long);
      const small = await session(h, 1);
      const compacted = await h.client.compactState({ session_id: big });
      checkResult(compacted, 'compact', 'session', big);
      assert.equal(compacted.changed, true);
      assert.equal(compacted.state.turns_removed, 2);
      assert.equal(compacted.state.turns, 4);
      const nothing = await h.client.compactState({ session_id: small });
      assert.equal(nothing.changed, false);
      assert.equal(nothing.state.turns, 2);
      const agentWide = await h.client.compactState({ scope: 'agent' });
      checkResult(agentWide, 'compact', 'agent', null);
      assert.equal(agentWide.state.sessions, 2);
      assert.equal(agentWide.changed, false, 'already compact');
    });

    test('a state policy that refuses gives 403 for reset and compact; describe is still allowed', async (t) => {
      const asked: Array<{ operation: string; request: StateRequest; transport: string }> = [];
      const statePolicy: StatePolicy = (operation, request, context: RequestContext) => {
        asked.push({ operation, request, transport: context.transport });
        return false;
      };
      const h = await startAgent(kind, { llm: new EchoModel(), statePolicy });
      t.after(() => h.close());
      const id = await session(h, 1);
      await rejectsWithStatus(h.client.resetState({ session_id: id, reason: 'cleanup' }), 403, 'forbidden');
      await rejectsWithStatus(h.client.compactState({ scope: 'agent' }), 403, 'forbidden');
      const described = await h.client.describeState({ session_id: id });
      assert.equal(described.state.exists, true, 'the refused reset changed nothing');
      assert.deepEqual(
        asked.map(({ operation, request, transport }) => [operation, request.reason ?? null, transport]),
        [
          ['reset', 'cleanup', kind],
          ['compact', null, kind],
        ],
        'the policy is asked for reset and compact only, with the request and the caller context',
      );
    });

    test('a state policy that throws refuses with 403 and its message; one that allows lets the call run', async (t) => {
      const h = await startAgent(kind, {
        llm: new EchoModel(),
        statePolicy: async (operation, request) => {
          if (request.reason !== 'allowed') throw new Error(`no ${operation} without a reason`);
          return true;
        },
      });
      t.after(() => h.close());
      const id = await session(h, 1);
      const error = await rejectsWithStatus(h.client.resetState({ session_id: id }), 403, 'forbidden');
      assert.match(error.message, /no reset without a reason/);
      const allowed = await h.client.resetState({ session_id: id, reason: 'allowed' });
      assert.equal(allowed.changed, true);
    });
  });
}
