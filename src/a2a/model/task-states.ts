// Task states across the A2A boundary. Every native state has an A2A twin; A2A has two that
// parley lacks (`rejected`, `auth-required`), which arrive from remote agents only and are
// kept verbatim in the task's namespaced metadata while the native state takes the nearest
// meaning (docs/a2a.md has the table).
import type { TaskState as NativeState } from '../../../generated/types/index.js';
import { TaskState } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';

const TO_A2A: Readonly<Record<NativeState, TaskState>> = {
  submitted: TaskState.SUBMITTED,
  working: TaskState.WORKING,
  'input-required': TaskState.INPUT_REQUIRED,
  completed: TaskState.COMPLETED,
  failed: TaskState.FAILED,
  canceled: TaskState.CANCELED,
};

const FROM_A2A: Readonly<Record<TaskState, NativeState>> = {
  [TaskState.UNSPECIFIED]: 'submitted',
  [TaskState.SUBMITTED]: 'submitted',
  [TaskState.WORKING]: 'working',
  [TaskState.INPUT_REQUIRED]: 'input-required',
  // Waiting on the client's credentials is, for a parley caller, waiting on the client.
  [TaskState.AUTH_REQUIRED]: 'input-required',
  [TaskState.COMPLETED]: 'completed',
  [TaskState.FAILED]: 'failed',
  // A refusal to take the task on ends it without a result, as a failure does.
  [TaskState.REJECTED]: 'failed',
  [TaskState.CANCELED]: 'canceled',
};

/** The proto enum names, as ProtoJSON writes them. */
const NAMES: Readonly<Record<TaskState, string>> = {
  [TaskState.UNSPECIFIED]: 'TASK_STATE_UNSPECIFIED',
  [TaskState.SUBMITTED]: 'TASK_STATE_SUBMITTED',
  [TaskState.WORKING]: 'TASK_STATE_WORKING',
  [TaskState.COMPLETED]: 'TASK_STATE_COMPLETED',
  [TaskState.FAILED]: 'TASK_STATE_FAILED',
  [TaskState.CANCELED]: 'TASK_STATE_CANCELED',
  [TaskState.INPUT_REQUIRED]: 'TASK_STATE_INPUT_REQUIRED',
  [TaskState.REJECTED]: 'TASK_STATE_REJECTED',
  [TaskState.AUTH_REQUIRED]: 'TASK_STATE_AUTH_REQUIRED',
};

export function stateToA2a(state: NativeState): TaskState {
  return TO_A2A[state];
}

export function stateFromA2a(state: TaskState): NativeState {
  return FROM_A2A[state] ?? 'submitted';
}

export function a2aStateName(state: TaskState): string {
  return NAMES[state] ?? NAMES[TaskState.UNSPECIFIED];
}
