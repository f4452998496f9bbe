// src/core/clock.ts, ids.ts and task-state.ts.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { nowIso, nowSeconds, sleep } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { canTransition, isTerminal, TASK_STATES, TERMINAL_STATES } from '../../src/core/task-state.js';
import { validate } from '../../generated/validators/index.js';
import type { TaskState } from '../../generated/types/index.js';

// ---- clock -------------------------------------------------------------------------------

test('nowIso is ISO 8601 UTC with Z and a valid date-time', () => {
  const value = nowIso();
  assert.match(value, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.ok(!Number.isNaN(Date.parse(value)));
});

test('nowIso reads the same as toISOString at every millisecond, across seconds, minutes and years', (t) => {
  t.after(() => mock.timers.reset());
  // 999 then 000 of the next second, one-digit and two-digit milliseconds, a new year.
  const instants = [
    Date.UTC(2026, 10, 25, 6, 59, 59, 998),
    Date.UTC(2026, 10, 25, 6, 59, 59, 999),
    Date.UTC(2026, 10, 25, 7, 0, 0, 0),
    Date.UTC(2026, 10, 25, 7, 0, 0, 7),
    Date.UTC(2026, 10, 25, 7, 0, 0, 42),
    Date.UTC(2026, 10, 25, 7, 0, 0, 420),
    Date.UTC(2026, 10, 25, 7, 0, 1, 5),
    Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    Date.UTC(2027, 0, 1, 0, 0, 0, 1),
  ];
  mock.timers.enable({ apis: ['Date'], now: instants[0] });
  for (const instant of instants) {
    mock.timers.setTime(instant);
    assert.equal(nowIso(), new Date(instant).toISOString());
    // Asked again within the millisecond: the same string.
    assert.equal(nowIso(), new Date(instant).toISOString());
  }
});

test('nowSeconds is the Unix time in seconds, with fractions', () => {
  const before = Date.now() / 1000;
  const value = nowSeconds();
  const after = Date.now() / 1000;
  assert.ok(value >= before && value <= after);
});

test('sleep resolves', async () => {
  await sleep(1);
});

test('sleep rejects at once with the reason of an already-aborted signal', async () => {
  const reason = new Error('gone');
  await assert.rejects(sleep(60_000, AbortSignal.abort(reason)), (error) => error === reason);
});

test('sleep rejects with the reason when aborted while waiting', async () => {
  const aborter = new AbortController();
  const sleeping = sleep(60_000, aborter.signal);
  const reason = new Error('stop');
  aborter.abort(reason);
  await assert.rejects(sleeping, (error) => error === reason);
});

test('sleep that finishes detaches from the signal (a later abort changes nothing)', async () => {
  const aborter = new AbortController();
  await sleep(1, aborter.signal);
  aborter.abort(new Error('late'));
});

// ---- ids ---------------------------------------------------------------------------------

test('newId gives distinct version 4 UUIDs, across several draws of random bytes', () => {
  const first = newId();
  const copy = `${first}`;
  const ids = new Set(Array.from({ length: 2_000 }, () => newId()));
  assert.equal(ids.size, 2_000);
  assert.ok(!ids.has(first));
  // Each id is a string of its own: later ids do not change an earlier one.
  assert.equal(first, copy);
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  // Every digit that is not fixed takes all sixteen values over 2,000 ids (the variant digit its four).
  const list = [...ids];
  for (let at = 0; at < 36; at++) {
    if ([8, 13, 14, 18, 23].includes(at)) continue;
    const seen = new Set(list.map((id) => id[at]));
    assert.equal(seen.size, at === 19 ? 4 : 16, `position ${at}`);
  }
});

// ---- task states -------------------------------------------------------------------------

test('task states are the six of the spec', () => {
  assert.deepEqual([...TASK_STATES], ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled']);
  for (const state of TASK_STATES) assert.ok(validate('task-state', state).valid, state);
});

test('terminal states are completed, failed and canceled', () => {
  assert.deepEqual([...TERMINAL_STATES].sort(), ['canceled', 'completed', 'failed']);
  for (const state of TASK_STATES) assert.equal(isTerminal(state), ['completed', 'failed', 'canceled'].includes(state));
});

// The transitions the spec's table shows.
const allowed: Array<[TaskState, TaskState]> = [
  ['submitted', 'working'],
  ['working', 'completed'],
  ['working', 'input-required'],
  ['working', 'failed'],
];
for (const [from, to] of allowed) {
  test(`transition ${from} -> ${to} is allowed`, () => assert.equal(canTransition(from, to), true));
}

for (const from of ['completed', 'failed', 'canceled'] as TaskState[]) {
  test(`no transition leaves the terminal state ${from}`, () => {
    for (const to of TASK_STATES) assert.equal(canTransition(from, to), false, `${from} -> ${to}`);
  });
}

test('no state transitions to itself or back to submitted', () => {
  for (const state of TASK_STATES) {
    assert.equal(canTransition(state, state), false, state);
    assert.equal(canTransition(state, 'submitted'), false, state);
  }
});
