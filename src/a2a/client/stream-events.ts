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
//
// The peer is not trusted to be kind. What it folds into the task is bounded (`maxTaskBytes`,
// the client's max_response_bytes: the most a blocking SendMessage's answer could hold), and
// each event costs work in proportion to its own size, not to the task's: known message ids and
// artifact positions are kept here rather than searched for, appended parts are added in place
// (each event's artifact is a view of the parts as they were then), and the whole task is
// copied into an event only when the state moves on (a peer that flips between submitted and
// working gets no copy per flip).
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type {
  Artifact as NativeArtifact,
  Task as NativeTask,
  StreamEvent,
  TaskState as NativeState,
} from '../../../generated/types/index.js';
import { TaskState, type StreamResponse, type Task, type TaskStatus } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { nowIso } from '../../core/clock.js';
import { jsonByteLength } from '../../core/json/measure.js';
import { transition } from '../../core/task-lifecycle.js';
import { assertWithin } from '../../transport/limits.js';
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
  /** Ids of the task's messages, so a status message is checked against them without a search. */
  private readonly messageIds = new Set<string>();
  /** Where each artifact id sits in `task.artifacts`, and its size as folded so far. */
  private readonly artifactSlots = new Map<string, { index: number; bytes: number }>();
  /** The non-closing states this stream has shown: a flip back to one of them is no news. */
  private readonly seenStates = new Set<NativeState>();
  /** Bytes of messages and artifacts this stream has folded into the task. */
  private folded = 0;
  private sawTask = false;

  /**
   * `task` is the caller's task, changed in place; `url` the interface the events come from;
   * `maxTaskBytes` the most the stream may fold into it (a TransportLimitError past it).
   */
  constructor(
    readonly task: NativeTask,
    private readonly url: string,
    private readonly maxTaskBytes: number = Number.POSITIVE_INFINITY,
  ) {
    for (const message of task.messages ?? []) if (message.id) this.messageIds.add(message.id);
    this.indexArtifacts();
    if (task.state) this.seenStates.add(task.state);
  }

  /** The native events of one StreamResponse, in order (none for one with nothing new). */
  fold(response: StreamResponse): StreamEvent[] {
    if (this.done) return [];
    const payload = response.payload;
    switch (payload.case) {
      case 'task': {
        const state = payload.value.status?.state ?? TaskState.UNSPECIFIED;
        if (!this.sawTask) {
          // The first task: folded whole, once.
          this.sawTask = true;
          const before = this.task.messages?.length ?? 0;
          applyRemoteTask(this.task, payload.value, this.url);
          for (const message of this.task.messages!.slice(before)) this.addMessageBytes(message);
          this.indexArtifacts(true);
          if (CLOSING.has(state)) return [this.completed()];
          this.seenStates.add(this.task.state ?? 'submitted');
          return [this.statusEvent(this.task.state ?? 'submitted')];
        }
        // A later task (some agents send one again): its news, as the updates would bring it.
        return this.laterTask(payload.value);
      }
      case 'message': {
        const message = messageFromA2a(payload.value, '/message');
        this.addMessage(message);
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
        const current = this.foldArtifact(artifactFromA2a(artifact, '/artifactUpdate/artifact'), append);
        return [this.artifactEvent(current)];
      }
      default:
        return [];
    }
  }

  private status(status: TaskStatus | undefined, taskId: string, contextId: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!status) return events;
    if (status.message && !this.messageIds.has(status.message.messageId)) {
      const message = messageFromA2a(status.message, '/statusUpdate/status/message');
      this.addMessage(message);
      events.push(this.messageEvent(message));
    }
    const timestamp = status.timestamp ? timestampDate(status.timestamp).toISOString() : nowIso();
    this.record({ task_id: taskId, context_id: contextId, state: a2aStateName(status.state), status_timestamp: timestamp });
    const state = stateFromA2a(status.state);
    const closing = CLOSING.has(status.state);
    // A working state shown before (working, back to submitted, working again) is no change:
    // neither a state history entry nor a copy of the task per flip.
    const changed = state !== this.task.state && (closing || !this.seenStates.has(state));
    if (changed) transition(this.task, state, null, timestamp);
    if (closing) events.push(this.completed());
    else if (changed) {
      this.seenStates.add(state);
      events.push(this.statusEvent(state));
    }
    return events;
  }

  /** A task event after the first: its new messages, its artifacts (each replacing its id's), its status. */
  private laterTask(remote: Task): StreamEvent[] {
    const events: StreamEvent[] = [];
    remote.history.forEach((item, index) => {
      if (this.messageIds.has(item.messageId)) return;
      const message = messageFromA2a(item, `/task/history/${index}`);
      this.addMessage(message);
      events.push(this.messageEvent(message));
    });
    remote.artifacts.forEach((item, index) => {
      events.push(this.artifactEvent(this.foldArtifact(artifactFromA2a(item, `/task/artifacts/${index}`), false)));
    });
    events.push(...this.status(remote.status, remote.id, remote.contextId));
    return events;
  }

  /** A message of the stream, added to the task and counted. */
  private addMessage(message: NonNullable<NativeTask['messages']>[number]): void {
    this.addMessageBytes(message);
    (this.task.messages ??= []).push(message);
  }

  private addMessageBytes(message: NonNullable<NativeTask['messages']>[number]): void {
    if (message.id) this.messageIds.add(message.id);
    this.count(jsonByteLength(message));
  }

  /**
   * An artifact of the stream into the task: new, replacing the one of its id, or (`append`)
   * its parts added to that one's, in place. Answers the artifact as it now stands.
   */
  private foldArtifact(incoming: NativeArtifact, append: boolean): NativeArtifact {
    const artifacts = (this.task.artifacts ??= []);
    const slot = this.artifactSlots.get(incoming.id);
    if (!slot) {
      const bytes = jsonByteLength(incoming);
      this.count(bytes);
      this.artifactSlots.set(incoming.id, { index: artifacts.length, bytes });
      artifacts.push(incoming);
      return incoming;
    }
    if (append) {
      const bytes = jsonByteLength(incoming.parts);
      this.count(bytes);
      slot.bytes += bytes;
      const current = artifacts[slot.index]!;
      // In place (the events hold views, artifactEvent): copying the parts so far for every
      // chunk would cost the square of their number.
      for (const part of incoming.parts) current.parts.push(part);
      return current;
    }
    const bytes = jsonByteLength(incoming);
    this.count(bytes - slot.bytes);
    slot.bytes = bytes;
    artifacts[slot.index] = incoming;
    return incoming;
  }

  /**
   * A task_artifact event with the artifact as it stands now: later chunks are added to the
   * task's artifact in place, so the event holds a view of its parts as they are at this event,
   * copied only when it is read (a copy per chunk would cost the square of their number).
   */
  private artifactEvent(current: NativeArtifact): StreamEvent {
    const parts = current.parts;
    const length = parts.length;
    let copy: NativeArtifact['parts'] | undefined;
    const artifact = { ...current };
    Object.defineProperty(artifact, 'parts', {
      enumerable: true,
      configurable: true,
      get: () => (copy ??= parts.slice(0, length)),
      set: (value: NativeArtifact['parts']) => {
        copy = value;
      },
    });
    return { type: 'task_artifact', task_id: this.task.id, timestamp: current.timestamp ?? nowIso(), artifact };
  }

  /** Where each artifact sits; `measure`: count those not counted yet (the first task's). */
  private indexArtifacts(measure = false): void {
    (this.task.artifacts ?? []).forEach((artifact, index) => {
      const slot = this.artifactSlots.get(artifact.id);
      if (slot && !measure) return;
      const bytes = measure ? jsonByteLength(artifact) : 0;
      if (measure) this.count(bytes - (slot?.bytes ?? 0));
      this.artifactSlots.set(artifact.id, { index, bytes });
    });
  }

  /** Adds `bytes` to what the stream has folded in; past `maxTaskBytes` the stream is refused. */
  private count(bytes: number): void {
    this.folded += bytes;
    assertWithin('response', this.folded, this.maxTaskBytes, { url: this.url });
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
