// The session store's bounds: number (least recently used dropped first) and age (a session
// unused past its time to live is gone), on a clock the test turns forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionStore } from '../../src/agent/sessions.js';

test('a session unused for longer than the time to live is dropped; use keeps it alive', () => {
  let now = 1_000_000;
  const store = new SessionStore(10, 60_000, () => now);
  store.ensure(null, 'old').turns.push({ role: 'user', content: 'hi' });
  store.ensure(null, 'kept');
  now += 40_000;
  assert.ok(store.get(null, 'kept'), 'used within the time to live');
  now += 30_000;
  assert.equal(store.get(null, 'old'), undefined, 'unused for 70 s of 60');
  assert.ok(store.get(null, 'kept'), 'used 30 s ago');
  assert.equal(store.ensure(null, 'old').turns.length, 0, 'a new session under the old id starts empty');
  now += 61_000;
  assert.equal(store.size, 0);
  assert.deepEqual(store.all(null), []);
});

test('past the maximum number the least recently used session goes first', () => {
  const store = new SessionStore(2);
  store.ensure(null, 'a');
  store.ensure(null, 'b');
  store.get(null, 'a');
  store.ensure(null, 'c');
  assert.deepEqual(
    store.all(null).map((session) => session.id),
    ['a', 'c'],
  );
});
