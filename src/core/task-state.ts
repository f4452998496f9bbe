// Task states and which moves between them the engine allows.
import type { TaskState } from '../../generated/types/index.js';

export const TASK_STATES: readonly TaskState[] = ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled'];

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled']);

const NEXT: Readonly<Record<TaskState, readonly TaskState[]>> = {
  submitted: ['working', 'canceled', 'failed'],
  working: ['completed', 'input-required', 'failed', 'canceled'],
  // A task waiting for input goes back to work when the user answers (a new submission of
  // the same task id), or can be canceled.
  'input-required': ['working', 'canceled', 'failed'],
  completed: [],
  failed: [],
  canceled: [],
};

export function isTerminal(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}

export function canTransition(from: TaskState, to: TaskState): boolean {
  return NEXT[from].includes(to);
}
