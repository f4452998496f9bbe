// The event that closes every task stream: the finished task with its id and state. The engine
// sends it at the end of a run; a stream that falls back to `sendTask` (the runtime transport,
// for a target without a stream endpoint) gets the same event made from the unary answer.
import type { Task, TaskCompletedEvent } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';

export function taskCompletedEvent(task: Task): TaskCompletedEvent {
  // The engine always sets a state; a bare unary answer without one came back as a success.
  return { type: 'task_completed', task_id: task.id, timestamp: nowIso(), state: task.state ?? 'completed', task };
}
