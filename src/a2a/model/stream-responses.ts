// parley's task events as A2A 1.0 StreamResponse objects (ProtoJSON), for SendStreamingMessage
// and SubscribeToTask: the task first, then status updates, artifacts (each whole artifact one
// chunk; a model's text as chunks of one artifact per model message, `append` after its first
// chunk, `lastChunk` on its last), and the task's last status, which closes the stream. Tool
// calls and results have no A2A twin and are left out.
import { create, toJson, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { Task as NativeTask, StreamEvent } from '../../../generated/types/index.js';
import { StreamResponseSchema, TaskState } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { isTerminal } from '../../core/task-state.js';
import { artifactToA2a } from './artifacts.js';
import { messageToA2a } from './messages.js';
import { stateToA2a } from './task-states.js';
import { taskToA2aJson } from './tasks.js';

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
  return (task.artifacts ?? []).map((artifact) =>
    streamJson({
      case: 'artifactUpdate',
      value: { taskId: task.id, contextId, artifact: artifactToA2a(artifact), append: false, lastChunk: true },
    }),
  );
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
        return streamJson({
          case: 'statusUpdate',
          value: { taskId, contextId, status: { state: stateToA2a(event.state), timestamp: stampOf(event.timestamp) } },
        });
      case 'task_artifact':
        return streamJson({
          case: 'artifactUpdate',
          value: { taskId, contextId, artifact: artifactToA2a(event.artifact), append: false, lastChunk: true },
        });
      case 'task_message':
        if (event.message.role === 'user') return null;
        return streamJson({
          case: 'statusUpdate',
          value: {
            taskId,
            contextId,
            status: {
              state: TaskState.WORKING,
              timestamp: stampOf(event.timestamp),
              message: messageToA2a(event.message, taskId, contextId),
            },
          },
        });
      case 'task_llm_stream': {
        const id = `${MODEL_TEXT_ARTIFACT}-${event.message_id ?? event.step ?? 0}`;
        const append = this.started.has(id);
        if (!append) this.started.add(id);
        if (event.final) this.started.delete(id);
        return streamJson({
          case: 'artifactUpdate',
          value: {
            taskId,
            contextId,
            artifact: { artifactId: id, name: 'model text', parts: [{ content: { case: 'text', value: event.delta } }] },
            append,
            lastChunk: event.final === true,
          },
        });
      }
      default:
        return null;
    }
  }
}

type Payload = Parameters<typeof create<typeof StreamResponseSchema>>[1] extends infer I
  ? I extends { payload?: infer P }
    ? P
    : never
  : never;

function streamJson(payload: Payload): JsonObject {
  return toJson(StreamResponseSchema, create(StreamResponseSchema, { payload })) as JsonObject;
}

function stampOf(timestamp: string) {
  const ms = Date.parse(timestamp);
  return timestampFromMs(Number.isNaN(ms) ? Date.now() : ms);
}
