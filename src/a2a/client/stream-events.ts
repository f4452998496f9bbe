// An A2A stream (SendStreamingMessage, SubscribeToTask) as parley's native task stream: the
// inverse of how parley's server maps its task events to StreamResponses. The caller's task is
// kept up to date as the events arrive and every native event carries its id:
//
// | A2A StreamResponse | native StreamEvent |
// |---|---|
// | `task` (the first event) | `task_status` with the task folded in (the remote ids in `metadata.a2a_remote`) |
// | `message` (a message-only stream) | `task_message`, then `task_completed` (`completed`) |
// | `statusUpdate` with a `status.message` not seen yet | `task_message` |
// | `statusUpdate` to another working state | `task_status` |
// | `statusUpdate` to a final or interrupted state (or a `task` in one) | `task_completed`, the last event |
// | `artifactUpdate` of a `model-text-<id>` artifact (parley's model text) | `task_llm_stream` (`delta`, `final` = `lastChunk`) |
// | any other `artifactUpdate` | `task_artifact`: the artifact as it now stands (`append` adds its parts to the one with that id) |
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Task as NativeTask, StreamEvent, TaskState as NativeState } from '../../../generated/types/index.js';
import { TaskState, type StreamResponse, type TaskStatus } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { nowIso } from '../../core/clock.js';
import { transition } from '../../core/task-lifecycle.js';
import { artifactFromA2a } from '../model/artifacts.js';
import { messageFromA2a } from '../model/messages.js';
import { a2aStateName, stateFromA2a } from '../model/task-states.js';
import { applyRemoteTask, REMOTE_KEY, type RemoteRecord } from '../model/tasks.js';

/** The artifact id prefix under which parley's server streams a model's text. */
const MODEL_TEXT_PREFIX = 'model-text-';

/** A2A states that close a stream: the final ones and the interrupted ones. */
const CLOSING = new Set<TaskState>([
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.REJECTED,
  TaskState.INPUT_REQUIRED,
  TaskState.AUTH_REQUIRED,
]);

export class StreamFolder {
  /** True once the stream's last native event (task_completed) has been made. */
  done = false;

  /** `task` is the caller's task, changed in place; `url` the interface the events come from. */
  constructor(
    readonly task: NativeTask,
    private readonly url: string,
  ) {}

  /** The native events of one StreamResponse, in order (none for one with nothing new). */
  fold(response: StreamResponse): StreamEvent[] {
    if (this.done) return [];
    const payload = response.payload;
    switch (payload.case) {
      case 'task': {
        applyRemoteTask(this.task, payload.value, this.url);
        const state = payload.value.status?.state ?? TaskState.UNSPECIFIED;
        if (CLOSING.has(state)) return [this.completed()];
        return [this.statusEvent(this.task.state ?? 'submitted')];
      }
      case 'message': {
        const message = messageFromA2a(payload.value, '/message');
        (this.task.messages ??= []).push(message);
        const events: StreamEvent[] = [this.messageEvent(message)];
        this.record({ context_id: payload.value.contextId, state: 'message' });
        transition(this.task, 'completed');
        events.push(this.completed());
        return events;
      }
      case 'statusUpdate':
        return this.status(payload.value.status, payload.value.taskId, payload.value.contextId);
      case 'artifactUpdate': {
        const { artifact, append, lastChunk } = payload.value;
        if (!artifact) return [];
        if (artifact.artifactId.startsWith(MODEL_TEXT_PREFIX) && artifact.parts.every((part) => part.content.case === 'text')) {
          return [
            {
              type: 'task_llm_stream',
              task_id: this.task.id,
              timestamp: nowIso(),
              delta: artifact.parts.map((part) => part.content.value as string).join(''),
              final: lastChunk,
              message_id: artifact.artifactId.slice(MODEL_TEXT_PREFIX.length) || null,
            },
          ];
        }
        const incoming = artifactFromA2a(artifact, '/artifactUpdate/artifact');
        const artifacts = (this.task.artifacts ??= []);
        const index = artifacts.findIndex((known) => known.id === incoming.id);
        if (index === -1) artifacts.push(incoming);
        else if (append) artifacts[index] = { ...artifacts[index]!, parts: [...artifacts[index]!.parts, ...incoming.parts] };
        else artifacts[index] = incoming;
        const current = artifacts[index === -1 ? artifacts.length - 1 : index]!;
        return [{ type: 'task_artifact', task_id: this.task.id, timestamp: current.timestamp ?? nowIso(), artifact: current }];
      }
      default:
        return [];
    }
  }

  private status(status: TaskStatus | undefined, taskId: string, contextId: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!status) return events;
    const known = new Set((this.task.messages ??= []).map((message) => message.id));
    if (status.message && !known.has(status.message.messageId)) {
      const message = messageFromA2a(status.message, '/statusUpdate/status/message');
      this.task.messages.push(message);
      events.push(this.messageEvent(message));
    }
    const timestamp = status.timestamp ? timestampDate(status.timestamp).toISOString() : nowIso();
    this.record({ task_id: taskId, context_id: contextId, state: a2aStateName(status.state), status_timestamp: timestamp });
    const state = stateFromA2a(status.state);
    const changed = state !== this.task.state;
    if (changed) transition(this.task, state, null, timestamp);
    if (CLOSING.has(status.state)) events.push(this.completed());
    else if (changed) events.push(this.statusEvent(state));
    return events;
  }

  private record(fields: Partial<RemoteRecord>): void {
    const metadata = (this.task.metadata ??= {});
    const previous = (metadata[REMOTE_KEY] ?? {}) as Partial<RemoteRecord>;
    const record: RemoteRecord = {
      url: this.url,
      task_id: previous.task_id ?? '',
      context_id: previous.context_id ?? '',
      state: previous.state ?? '',
      status_timestamp: previous.status_timestamp ?? null,
      ...fields,
    };
    metadata[REMOTE_KEY] = record;
  }

  private statusEvent(state: NativeState): StreamEvent {
    return { type: 'task_status', task_id: this.task.id, timestamp: nowIso(), state, task: structuredClone(this.task) };
  }

  private messageEvent(message: NonNullable<NativeTask['messages']>[number]): StreamEvent {
    return { type: 'task_message', task_id: this.task.id, timestamp: nowIso(), message };
  }

  private completed(): StreamEvent {
    this.done = true;
    const state = this.task.state ?? 'completed';
    return { type: 'task_completed', task_id: this.task.id, timestamp: nowIso(), state, task: structuredClone(this.task) };
  }
}
