// The two rules every holder of a task follows, whoever runs it: a new task gets its defaults
// filled in, and a change of state is recorded in the task's own history. The agent engine,
// the A2A adapter and the A2A client all keep tasks, so the rules live here, below all three,
// rather than in the engine's bookkeeping.
import type { Task, TaskState } from '../../generated/types/index.js';
import { nowIso } from './clock.js';
import { newId } from './ids.js';

/** Fills in every default of a submitted task, in place: the caller owns the object. */
export function prepareTask(task: Task, now = nowIso()): Task {
  task.state ??= 'submitted';
  task.messages ??= [];
  for (const message of task.messages) {
    message.id ??= newId();
    message.timestamp ??= now;
  }
  task.artifacts ??= [];
  task.metadata ??= {};
  task.metadata.state_history ??= [];
  task.created_at ??= now;
  return task;
}

/** Moves the task to `state` and appends the move to `metadata.state_history`. */
export function transition(task: Task, state: TaskState, reason?: string | null, timestamp = nowIso()): void {
  task.state = state;
  const history = (task.metadata ??= {}).state_history ?? (task.metadata.state_history = []);
  history.push(reason ? { state, timestamp, reason } : { state, timestamp });
}
