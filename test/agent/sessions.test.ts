// The session store's bounds: number and bytes of all sessions (least recently used dropped
// first), bytes of one session (oldest turns dropped to fit, a value too large refused), and
// age (a session unused past its time to live is gone), on a clock the test turns forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionStore } from '../../src/agent/sessions.js';
import type { ChatTurn } from '../../src/llm/language-model.js';

/** A turn whose JSON is exactly `bytes` long. */
function turnOf(bytes: number, role: ChatTurn['role'] = 'user', mark = 'x'): ChatTurn {
  const empty = JSON.stringify({ role, content: '' }).length;
  const turn = { role, content: mark.padEnd(bytes - empty, '.') };
  assert.equal(Buffer.byteLength(JSON.stringify(turn)), bytes);
  return turn;
}

test('a session unused for longer than the time to live is dropped; use keeps it alive', () => {
  let now = 1_000_000;
  const store = new SessionStore({ maxSessions: 10, ttlMs: 60_000, clock: () => now });
  store.setTurns(store.ensure(null, 'old'), [{ role: 'user', content: 'hi' }]);
  store.ensure(null, 'kept');
  now += 40_000;
  assert.ok(store.get(null, 'kept'), 'used within the time to live');
  now += 30_000;
  assert.equal(store.get(null, 'old'), undefined, 'unused for 70 s of 60');
  assert.ok(store.get(null, 'kept'), 'used 30 s ago');
  assert.equal(store.ensure(null, 'old').turns.length, 0, 'a new session under the old id starts empty');
  now += 61_000;
  assert.equal(store.size, 0);
  assert.equal(store.totalSize, 0);
  assert.deepEqual(store.all(null), []);
});

test('past the maximum number the least recently used session goes first', () => {
  const store = new SessionStore({ maxSessions: 2 });
  store.ensure(null, 'a');
  store.ensure(null, 'b');
  store.get(null, 'a');
  store.ensure(null, 'c');
  assert.deepEqual(
    store.all(null).map((session) => session.id),
    ['a', 'c'],
  );
});

test('past the total bytes the least recently used sessions go first, whoever owns them', () => {
  const store = new SessionStore({ totalBytes: 10_000, sessionBytes: 4_000 });
  store.setTurns(store.ensure('alice', 'a'), [turnOf(3_000)]);
  store.setTurns(store.ensure('bob', 'b'), [turnOf(3_000)]);
  store.setTurns(store.ensure('alice', 'c'), [turnOf(3_000)]);
  assert.equal(store.totalSize, 9_000);
  store.get('alice', 'a');
  store.setTurns(store.ensure('bob', 'd'), [turnOf(3_000)]);
  assert.equal(store.get('bob', 'b'), undefined, 'the least recently used went');
  assert.deepEqual(
    store.all('alice').map((session) => session.id),
    ['c', 'a'],
  );
  assert.equal(store.totalSize, 9_000);
  // A session that grows is the last to go: the others make room for it.
  store.setTurns(store.get('bob', 'd')!, [turnOf(3_000), turnOf(900)]);
  assert.ok(store.get('bob', 'd'));
  assert.ok(store.totalSize <= 10_000);
});

test('one session past its bytes loses its oldest turns, never leaving a tool turn without its call', () => {
  const store = new SessionStore({ sessionBytes: 1_000 });
  const session = store.ensure(null, 's');
  const turns = [turnOf(300, 'user', 'u1'), turnOf(300, 'assistant', 'a1'), turnOf(300, 'tool', 't1'), turnOf(300, 'user', 'u2')];
  assert.equal(store.setTurns(session, turns), 1);
  assert.deepEqual(
    session.turns.map((turn) => turn.content.slice(0, 2)),
    ['a1', 't1', 'u2'],
  );
  assert.equal(session.turnBytes, 900);
  // Without room for the assistant turn, its tool turn goes with it.
  assert.equal(store.setTurns(session, [...turns, turnOf(300, 'assistant', 'a2')]), 3);
  assert.deepEqual(
    session.turns.map((turn) => turn.content.slice(0, 2)),
    ['u2', 'a2'],
  );
  // A turn larger than the whole bound is not kept.
  assert.equal(store.setTurns(session, [turnOf(1_001)]), 1);
  assert.deepEqual(session.turns, []);
  assert.equal(store.totalSize, 0);
});

test('a value that alone would outgrow one session is refused; values that fit push out old turns', () => {
  const store = new SessionStore({ sessionBytes: 1_000 });
  const session = store.ensure(null, 's');
  store.setTurns(session, [turnOf(400), turnOf(400)]);
  store.setValue(session, 'small', JSON.stringify('x'.repeat(100)));
  assert.equal(session.turns.length, 2, '800 + 107 bytes fit');
  assert.throws(
    () => store.setValue(session, 'big', JSON.stringify('x'.repeat(1_000))),
    (error: Error & { code?: string }) => error.name === 'InvalidArgumentError' && error.code === 'session_too_large',
  );
  assert.deepEqual([...session.values.keys()], ['small'], 'the refused value is not stored');
  store.setValue(session, 'medium', JSON.stringify('x'.repeat(300)));
  assert.equal(session.turns.length, 1, 'the oldest turn gave way');
  assert.ok(session.turnBytes + session.valueBytes <= 1_000);
  assert.equal(store.totalSize, session.turnBytes + session.valueBytes);
  assert.ok(store.deleteValue(session, 'medium'));
  assert.equal(store.totalSize, 400 + 'small'.length + 102);
});

test('bytes are given back when sessions are reset, cleared or expire; a session dropped meanwhile stays dropped', () => {
  let now = 0;
  const store = new SessionStore({ ttlMs: 1_000, clock: () => now });
  const a = store.ensure('alice', 'a');
  store.setTurns(a, [turnOf(500)]);
  store.setTurns(store.ensure('alice', 'b'), [turnOf(500)]);
  store.setTurns(store.ensure('bob', 'c'), [turnOf(500)]);
  assert.ok(store.delete(a));
  assert.equal(store.totalSize, 1_000);
  // A compaction that finishes after its session was reset must not bring it (or its bytes) back.
  store.setTurns(a, [turnOf(200)]);
  assert.equal(store.get('alice', 'a'), undefined);
  assert.equal(store.totalSize, 1_000);
  assert.equal(store.clear('alice'), 1);
  assert.equal(store.totalSize, 500);
  now += 2_000;
  assert.equal(store.totalSize, 0);
});

test('one session is never bounded above all of them', () => {
  const store = new SessionStore({ totalBytes: 500, sessionBytes: 4_000 });
  assert.equal(store.sessionBytes, 500);
});
