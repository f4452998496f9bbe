// parley's task events as A2A 1.0 StreamResponse objects (ProtoJSON), for SendStreamingMessage
// and SubscribeToTask: the task first, then status updates, artifacts (each whole artifact one
// chunk; a model's text as chunks of one artifact per model message, `append` after its first
// chunk, `lastChunk` on its last), and the task's last status, which closes the stream. Tool
// calls and results have no A2A twin and are left out.
import type { JsonObject } from '@bufbuild/protobuf';
import type { Task as NativeTask, StreamEvent } from '../../../generated/types/index.js';
import { isTerminal } from '../../core/task-state.js';
import { artifactToA2aJson } from './artifacts.js';
import { messageToA2aJson } from './messages.js';
import { a2aStateName, stateToA2a } from './task-states.js';
import { taskToA2aJson } from './tasks.js';
import { timestampJson } from './timestamps.js';

/** The artifact a model's streamed text goes into: one per model message. */
const MODEL_TEXT_ARTIFACT = 'model-text';

/** The task as the first event of a stream. */
export function taskResponse(task: NativeTask, contextId: string, historyLength?: number): JsonObject {
  return { task: taskToA2aJson(task, { contextId, historyLength, includeArtifacts: true }) };
}

/** The task's status as the event that closes a stream (a final or interrupted state). */
export function lastStatusResponse(task: NativeTask, contextId: string): JsonObject {
  const { status } = taskToA2aJson(task, { contextId, historyLength: 0, includeArtifacts: false });
  return { statusUpdate: { taskId: task.id, contextId, status } };
}

/** Each artifact of a task as one whole chunk (for a subscriber to a task that ran without a stream). */
export function artifactResponses(task: NativeTask, contextId: string): JsonObject[] {
  return (task.artifacts ?? []).map((artifact) => artifactUpdate(task.id, contextId, artifactToA2aJson(artifact), false, true));
}

/** Whether a StreamResponse closes its stream: a status update to a final or interrupted state. */
export function closesStream(response: JsonObject): boolean {
  const update = response.statusUpdate as { status?: { state?: string } } | undefined;
  const state = update?.status?.state;
  return state !== undefined && CLOSING.has(state);
}

const CLOSING = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/**
 * Turns one task's events into StreamResponses, in order. Stateful: it knows which model
 * messages have had a chunk already. The closing event (task_completed) is the caller's
 * (lastStatusResponse), since the task's record must be settled first.
 */
export class StreamResponses {
  private readonly started = new Set<string>();
  private first = true;

  constructor(
    private readonly taskId: string,
    private readonly contextId: string,
    private readonly historyLength?: number,
  ) {}

  /** The StreamResponse of `event`, or null for one A2A has no twin of. */
  of(event: StreamEvent): JsonObject | null {
    const { taskId, contextId } = this;
    switch (event.type) {
      case 'task_status':
        if (this.first) {
          this.first = false;
          return taskResponse(event.task, contextId, this.historyLength);
        }
        if (isTerminal(event.state)) return null;
        return statusUpdate(taskId, contextId, {
          state: a2aStateName(stateToA2a(event.state)),
          timestamp: timestampJson(event.timestamp, Date.now()),
        });
      case 'task_artifact':
        return artifactUpdate(taskId, contextId, artifactToA2aJson(event.artifact), false, true);
      case 'task_message':
        if (event.message.role === 'user') return null;
        return statusUpdate(taskId, contextId, {
          state: 'TASK_STATE_WORKING',
          message: messageToA2aJson(event.message, taskId, contextId),
          timestamp: timestampJson(event.timestamp, Date.now()),
        });
      case 'task_llm_stream': {
        const id = `${MODEL_TEXT_ARTIFACT}-${event.message_id ?? event.step ?? 0}`;
        const append = this.started.has(id);
        if (!append) this.started.add(id);
        if (event.final) this.started.delete(id);
        const artifact = { artifactId: id, name: 'model text', parts: [{ text: event.delta }] };
        return artifactUpdate(taskId, contextId, artifact, append, event.final === true);
      }
      default:
        return null;
    }
  }
}

// The two update events written straight as ProtoJSON, as messages.ts writes messages: fields in
// the proto's order, those at their defaults (false, empty) left out. These run once per event
// of every stream; building protobuf-es messages only to write them out cost more than the rest.

function statusUpdate(taskId: string, contextId: string, status: JsonObject): JsonObject {
  const update: JsonObject = {};
  if (taskId) update.taskId = taskId;
  if (contextId) update.contextId = contextId;
  update.status = status;
  return { statusUpdate: update };
}

function artifactUpdate(
  taskId: string,
  contextId: string,
  artifact: JsonObject,
  append: boolean,
  lastChunk: boolean,
): JsonObject {
  const update: JsonObject = {};
  if (taskId) update.taskId = taskId;
  if (contextId) update.contextId = contextId;
  update.artifact = artifact;
  if (append) update.append = true;
  if (lastChunk) update.lastChunk = true;
  return { artifactUpdate: update };
}
