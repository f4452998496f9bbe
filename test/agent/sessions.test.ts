// The session store's bounds: number (least recently used dropped first) and age (a session
// unused past its time to live is gone), on a clock the test turns forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionStore } from '../../src/agent/sessions.js';

test('a session unused for longer than the time to live is dropped; use keeps it alive', () => {
  let now = 1_000_000;
  const store = new SessionStore(10, 60_000, () => now);
  store.ensure('old').turns.push({ role: 'user', content: 'hi' });
  store.ensure('kept');
  now += 40_000;
  assert.ok(store.get('kept'), 'used within the time to live');
  now += 30_000;
  assert.equal(store.get('old'), undefined, 'unused for 70 s of 60');
  assert.ok(store.get('kept'), 'used 30 s ago');
  assert.equal(store.ensure('old').turns.length, 0, 'a new session under the old id starts empty');
  now += 61_000;
  assert.equal(store.size, 0);
  assert.deepEqual(store.all(), []);
});

test('past the maximum number the least recently used session goes first', () => {
  const store = new SessionStore(2);
  store.ensure('a');
  store.ensure('b');
  store.get('a');
  store.ensure('c');
  assert.deepEqual(
    store.all().map((session) => session.id),
    ['a', 'c'],
  );
});
