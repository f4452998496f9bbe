// Turns for large-payload work: given in the order asked, one an event-loop iteration (so the
// loop polls its sockets in between); below the threshold nothing is large.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLargePayload, LARGE_PAYLOAD_BYTES, largePayloadTurn } from '../../src/core/large-payload-turns.js';

test('isLargePayload: from LARGE_PAYLOAD_BYTES (1 MiB) on', () => {
  assert.equal(LARGE_PAYLOAD_BYTES, 1024 * 1024);
  assert.equal(isLargePayload(LARGE_PAYLOAD_BYTES - 1), false);
  assert.equal(isLargePayload(LARGE_PAYLOAD_BYTES), true);
});

test('largePayloadTurn: turns come in the order asked, one a loop iteration', async () => {
  // Counts the loop's check phases: one immediate a turn, rescheduled from inside itself.
  let iteration = 0;
  let ticking = true;
  const tick = () => {
    iteration++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const seen: Array<{ turn: number; iteration: number }> = [];
  await Promise.all([0, 1, 2, 3].map((turn) => largePayloadTurn().then(() => seen.push({ turn, iteration }))));
  ticking = false;
  assert.deepEqual(
    seen.map((entry) => entry.turn),
    [0, 1, 2, 3],
  );
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i]!.iteration > seen[i - 1]!.iteration, `turns ${i - 1} and ${i} ran in one iteration`);
  }
});
