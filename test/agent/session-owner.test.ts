// A session belongs to the principal that made it (issue 28, defect 1): with an authenticator,
// another principal naming its id (on a task, a chat, a state operation, a history compaction)
// finds nothing and gets a session of its own; listing shows a caller its own sessions only. A
// call with no identity (a direct in-process call) is one more principal, the anonymous one.
// Without an authenticator every caller shares the sessions, as before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Authenticator } from '../../src/auth/authenticator.js';
import type { RequestContext } from '../../src/transport/endpoint.js';
import {
  EchoModel,
  TRANSPORTS,
  startAgent,
  texts,
  uniqueId,
  userTask,
  type Harness,
  type HarnessOptions,
} from '../support/agent-harness.js';

const KEYS: Readonly<Record<string, string>> = { 'key-alice': 'alice', 'key-bob': 'bob' };

const keys: Authenticator = {
  scheme: { type: 'apiKey', scheme: null, description: 'test keys', metadata: {} },
  authenticate: async (credentials) => {
    if (!Object.hasOwn(KEYS, credentials)) throw new Error('Invalid API key');
    return { principal_id: KEYS[credentials]!, token: credentials, expires_at: null, metadata: {} };
  },
  refreshToken: async (context) => context,
};

/** What an in-process caller passes when it calls the server's methods directly, with no identity. */
function noIdentity(): RequestContext {
  return {
    requestId: uniqueId('req'),
    idempotencyKey: null,
    params: {},
    security: null,
    signal: new AbortController().signal,
    transport: 'runtime',
    url: '',
  };
}

/** User turns of the conversation the model was last given. */
function lastUserTurns(model: EchoModel): string[] {
  return model.calls
    .at(-1)!
    .filter((turn) => turn.role === 'user')
    .map((turn) => turn.content);
}

async function guarded(kind: (typeof TRANSPORTS)[number], model: EchoModel, options: HarnessOptions = {}) {
  const h = await startAgent(
    kind,
    { llm: model, authenticator: keys, ...options },
    { authenticator: keys, credentials: 'key-alice' },
  );
  const bob = await h.newClient({ authenticator: keys, credentials: 'key-bob' });
  return { h, alice: h.client, bob };
}

function sessionTask(text: string, sessionId: string) {
  return userTask(uniqueId(), text, { metadata: { session_id: sessionId } });
}

for (const kind of TRANSPORTS) {
  describe(`sessions belong to their principal over ${kind}`, () => {
    test("a task naming another principal's session runs in a session of its own", async (t) => {
      const model = new EchoModel();
      const { h, alice, bob } = await guarded(kind, model);
      t.after(() => h.close());
      const id = uniqueId('session');
      await alice.sendTask(sessionTask('the secret plan', id));
      const bobs = await bob.sendTask(sessionTask('what plan?', id));
      assert.equal(bobs.state, 'completed');
      assert.deepEqual(lastUserTurns(model), ['what plan?']);
      assert.ok(!JSON.stringify(bobs).includes('secret'));
      await alice.sendTask(sessionTask('go on', id));
      assert.deepEqual(lastUserTurns(model), ['the secret plan', 'go on']);
      const own = await alice.describeState({ session_id: id });
      assert.equal(own.state.turns, 4, "A's session holds A's two exchanges only");
    });

    test("context.session values are the caller's own under the same session id", async (t) => {
      const { h, alice, bob } = await guarded(kind, new EchoModel(), {
        handler: ({ input, session }) => {
          const before = session.get('note');
          if (input.startsWith('set ')) session.set('note', input.slice(4));
          return `note: ${String(before)}`;
        },
      });
      t.after(() => h.close());
      const id = uniqueId('session');
      await alice.sendTask(sessionTask('set alice-only', id));
      const bobs = await bob.sendTask(sessionTask('read', id));
      assert.deepEqual(texts(bobs.artifacts![0]!.parts), ['note: undefined']);
      const described = await bob.describeState({ session_id: id, keys: ['note'] });
      assert.deepEqual(described.state, { exists: false });
      const alices = await alice.sendTask(sessionTask('read', id));
      assert.deepEqual(texts(alices.artifacts![0]!.parts), ['note: alice-only']);
    });

    test("listing, resetting and compacting the whole agent touch only the caller's sessions", async (t) => {
      const { h, alice, bob } = await guarded(kind, new EchoModel());
      t.after(() => h.close());
      const a = (await alice.chat({ message: 'from alice' })).session_id;
      const b = (await bob.chat({ message: 'from bob' })).session_id;
      const aliceList = await alice.describeState({});
      assert.deepEqual(aliceList.state.session_ids, [a]);
      assert.equal(aliceList.state.sessions, 1);
      const compacted = await bob.compactState({ scope: 'agent' });
      assert.equal(compacted.state.sessions, 1);
      const reset = await bob.resetState({ scope: 'agent' });
      assert.deepEqual(reset.state, { sessions_cleared: 1 });
      assert.deepEqual((await bob.describeState({})).state.session_ids, []);
      assert.equal((await alice.describeState({ session_id: a })).state.exists, true);
      assert.equal((await alice.describeState({ session_id: b })).state.exists, false);
    });

    test("POST /llm/history/compact of another principal's session finds nothing and changes nothing", async (t) => {
      const { h, alice, bob } = await guarded(kind, new EchoModel());
      t.after(() => h.close());
      const id = (await alice.chat({ message: 'one' })).session_id;
      await alice.chat({ message: 'two', session_id: id });
      const result = await bob.compactHistory({ session_id: id, strategy: 'messages', max_tokens: 10, preserve_recent: 0 });
      assert.equal(result.messages_before, 0);
      assert.deepEqual(result.metadata, { session_found: false });
      assert.equal((await alice.describeState({ session_id: id })).state.turns, 4);
    });

    test('with an authenticator, a call with no identity is the anonymous principal: it sees only its own sessions', async (t) => {
      const model = new EchoModel();
      const { h, alice } = await guarded(kind, model);
      t.after(() => h.close());
      const a = (await alice.chat({ message: 'alice speaks' })).session_id;
      const anonymous = await h.agent.chat({ message: 'who is there?', session_id: a }, noIdentity());
      assert.equal(anonymous.session_id, a);
      assert.deepEqual(lastUserTurns(model), ['who is there?']);
      assert.deepEqual(h.agent.describeState({}, noIdentity()).state.session_ids, [a]);
      assert.deepEqual((await alice.describeState({})).state.session_ids, [a]);
      assert.equal((await alice.describeState({ session_id: a })).state.turns, 2, "the anonymous turn is not in A's session");
    });
  });
}

describe('without an authenticator', () => {
  test('every caller shares the sessions, as before', async (t) => {
    const model = new EchoModel();
    const h: Harness = await startAgent('http', { llm: model });
    t.after(() => h.close());
    const other = await h.newClient();
    const id = (await h.client.chat({ message: 'first' })).session_id;
    await other.chat({ message: 'second', session_id: id });
    assert.deepEqual(lastUserTurns(model), ['first', 'second']);
    assert.deepEqual((await other.describeState({})).state.session_ids, [id]);
  });
});
