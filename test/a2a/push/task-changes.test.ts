// What a webhook is told: a status update in ProtoJSON (the agent's latest message once the
// task is past working), and at the end of a run its new artifacts, whole, before the status;
// the state is the one the task had when the change happened, not when the JSON is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '../../../generated/types/index.js';
import { runEndChange, statusChange } from '../../../src/a2a/push/task-changes.js';

function task(): Task {
  return {
    id: 'task-1',
    state: 'working',
    messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', content: 'hello' }], timestamp: '2026-01-01T00:00:00.000Z' }],
    artifacts: [],
    metadata: { state_history: [{ state: 'working', timestamp: '2026-01-01T00:00:01.000Z' }] },
  } as unknown as Task;
}

test('a status change is written with the state of its moment', () => {
  const working = task();
  const change = statusChange(working, 'ctx');
  working.state = 'completed';
  assert.deepEqual(change(), [
    {
      statusUpdate: {
        taskId: 'task-1',
        contextId: 'ctx',
        status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:01Z' },
      },
    },
  ]);
});

test("a run's end: each new artifact whole, then the status with the agent's reply", () => {
  const done = task();
  done.artifacts = [
    { id: 'old', kind: 'result', parts: [{ type: 'text', content: 'earlier' }], timestamp: '2026-01-01T00:00:00.000Z' },
    { id: 'new', kind: 'result', parts: [{ type: 'text', content: 'hi back' }], timestamp: '2026-01-01T00:00:02.000Z' },
  ] as Task['artifacts'];
  done.messages!.push({
    id: 'm2',
    role: 'agent',
    parts: [{ type: 'text', content: 'hi back' }],
    timestamp: '2026-01-01T00:00:02.000Z',
  } as never);
  done.state = 'completed';
  done.metadata!.state_history!.push({ state: 'completed', timestamp: '2026-01-01T00:00:02.000Z' } as never);
  const [artifact, status, ...rest] = runEndChange(done, 'ctx', 1)() as Record<string, any>[];
  assert.equal(rest.length, 0);
  assert.equal(artifact!.artifactUpdate.artifact.artifactId, 'new');
  assert.deepEqual(artifact!.artifactUpdate.artifact.parts, [{ text: 'hi back' }]);
  assert.equal(artifact!.artifactUpdate.lastChunk, true);
  assert.equal(artifact!.artifactUpdate.taskId, 'task-1');
  assert.equal(status!.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(status!.statusUpdate.status.message.role, 'ROLE_AGENT');
  assert.deepEqual(status!.statusUpdate.status.message.parts, [{ text: 'hi back' }]);
});
