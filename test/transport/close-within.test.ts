// closeWithin: a close that settles in time ends the wait and nothing is cut; one that does not
// is cut off at the deadline and waited for until the cut has closed it; without a cut the
// wait simply ends at the deadline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeWithin } from '../../src/transport/close-within.js';
import { deferred } from '../support/async.js';

test('a close that settles within the deadline is not cut', async () => {
  const closed = deferred();
  let cuts = 0;
  const waiting = closeWithin(closed.promise, 60_000, () => cuts++);
  closed.resolve();
  await waiting;
  assert.equal(cuts, 0);
});

// The helper's timer does not hold the process open; these tests keep it alive themselves.
function keepAlive(t: { after: (fn: () => void) => void }): void {
  const timer = setInterval(() => undefined, 1000);
  t.after(() => clearInterval(timer));
}

test('past the deadline the close is cut, and the wait lasts until the cut has closed it', { timeout: 10_000 }, async (t) => {
  keepAlive(t);
  const closed = deferred();
  const cut = deferred();
  let done = false;
  const waiting = closeWithin(closed.promise, 1, () => cut.resolve()).then(() => (done = true));
  await cut.promise;
  // Cut, but not closed yet: still waiting.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(done, false);
  closed.resolve();
  await waiting;
  assert.equal(done, true);
});

test('without a cut, the wait ends at the deadline though nothing closed', { timeout: 10_000 }, async (t) => {
  keepAlive(t);
  const never = new Promise<void>(() => undefined);
  await closeWithin(never, 1);
});
