// src/core/task-lifecycle.ts: the defaults a new task gets, and a transition recorded in the
// task's own history (with its reason only when there is one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '../../generated/types/index.js';
import { prepareTask, transition } from '../../src/core/task-lifecycle.js';

test('prepareTask fills every default in place and keeps what was given', () => {
  const task = { id: 't1', messages: [{ role: 'user', parts: [] }] } as unknown as Task;
  const prepared = prepareTask(task, '2026-01-01T00:00:00.000Z');
  assert.equal(prepared, task);
  assert.equal(task.state, 'submitted');
  assert.deepEqual(task.artifacts, []);
  assert.deepEqual(task.metadata, { state_history: [] });
  assert.equal(task.created_at, '2026-01-01T00:00:00.000Z');
  assert.equal(task.messages![0]!.timestamp, '2026-01-01T00:00:00.000Z');
  assert.equal(typeof task.messages![0]!.id, 'string');
  const given = prepareTask({ id: 't2', state: 'working', created_at: 'then' } as Task);
  assert.equal(given.state, 'working');
  assert.equal(given.created_at, 'then');
});

test('transition sets the state and appends to the history, the reason only when given', () => {
  const task = { id: 't3' } as Task;
  transition(task, 'working', null, 'a');
  transition(task, 'failed', 'it broke', 'b');
  assert.equal(task.state, 'failed');
  assert.deepEqual(task.metadata!.state_history, [
    { state: 'working', timestamp: 'a' },
    { state: 'failed', timestamp: 'b', reason: 'it broke' },
  ]);
});
