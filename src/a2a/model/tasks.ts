// Tasks across the A2A boundary: a native task as an A2A Task (for the request handler's
// answers), and an A2A Task folded into the caller's native task (for the outbound client,
// which keeps its own task id and records the remote one in namespaced metadata).
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Message as NativeMessage, Task as NativeTask } from '../../../generated/types/index.js';
import { TaskState, type Task } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { transition } from '../../core/task-lifecycle.js';
import { statusStamp } from '../../stores/task-entries.js';
import { artifactFromA2a, artifactToA2aJson } from './artifacts.js';
import { messageFromA2a, messageToA2aJson } from './messages.js';
import { a2aStateName, stateFromA2a, stateToA2a } from './task-states.js';
import { timestampJson } from './timestamps.js';

/** The metadata key of an inbound task: how it arrived over A2A. */
export const INBOUND_KEY = 'a2a_inbound';
/** The metadata key of a task sent to an A2A agent: the remote task's id, context, state and time. */
export const REMOTE_KEY = 'a2a_remote';

/** What an inbound task records in `metadata.a2a_inbound`. */
export interface InboundRecord {
  context_id: string;
  tenant: string;
  /** The message that created the task. */
  message_id: string;
}

/** What an outbound task records in `metadata.a2a_remote`. */
export interface RemoteRecord {
  url: string;
  task_id: string;
  context_id: string;
  /** The remote state as A2A names it (it may have no native twin). */
  state: string;
  status_timestamp: string | null;
}

export interface TaskView {
  readonly contextId: string;
  /** Unset: the whole history; 0: none; n: the n latest messages. */
  readonly historyLength?: number;
  readonly includeArtifacts: boolean;
}

/**
 * A native task as an A2A Task in ProtoJSON, written directly rather than built as a protobuf-es
 * message and written out by toJson: every answer holds one, and the detour was the largest cost
 * of a SendMessage after the socket. Fields in the proto's order, those at their defaults left
 * out as ProtoJSON does, except `artifacts`, written (empty too) when asked for.
 */
export function taskToA2aJson(task: NativeTask, view: TaskView): JsonObject {
  const state = stateToA2a(task.state ?? 'submitted');
  const messages = task.messages ?? [];
  const limit = view.historyLength;
  const shown = limit === undefined ? messages : limit <= 0 ? [] : messages.slice(-limit);
  const latestReply = state === TaskState.SUBMITTED || state === TaskState.WORKING ? undefined : latestAgentMessage(messages);
  const status: JsonObject = {};
  if (state !== TaskState.UNSPECIFIED) status.state = a2aStateName(state);
  if (latestReply) status.message = messageToA2aJson(latestReply, task.id, view.contextId);
  // statusTime's reading: the last state change, else creation, else the epoch.
  status.timestamp = timestampJson(statusStamp(task), 0);
  const json: JsonObject = {};
  if (task.id) json.id = task.id;
  if (view.contextId) json.contextId = view.contextId;
  json.status = status;
  if (view.includeArtifacts) json.artifacts = (task.artifacts ?? []).map(artifactToA2aJson);
  if (shown.length > 0) json.history = shown.map((message) => messageToA2aJson(message, task.id, view.contextId));
  json.metadata = { ...(task.metadata as JsonObject | undefined) };
  return json;
}

function latestAgentMessage(messages: readonly NativeMessage[]): NativeMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role !== 'user') return messages[i];
  return undefined;
}

/**
 * Folds a remote A2A task into the caller's task: state, the messages and artifacts it does
 * not have yet, and the remote ids in `metadata.a2a_remote`. The local id never changes.
 */
export function applyRemoteTask(local: NativeTask, remote: Task, url: string): NativeTask {
  local.messages ??= [];
  local.artifacts ??= [];
  local.metadata ??= {};
  const known = new Set(local.messages.map((message) => message.id));
  const incoming = [...remote.history];
  if (remote.status?.message) incoming.push(remote.status.message);
  incoming.forEach((message, index) => {
    if (known.has(message.messageId)) return;
    known.add(message.messageId);
    local.messages!.push(messageFromA2a(message, `/history/${index}`));
  });
  const artifacts = new Map(local.artifacts.map((artifact) => [artifact.id, artifact]));
  remote.artifacts.forEach((artifact, index) => {
    artifacts.set(artifact.artifactId, artifactFromA2a(artifact, `/artifacts/${index}`));
  });
  local.artifacts = [...artifacts.values()];
  const remoteState = remote.status?.state ?? TaskState.UNSPECIFIED;
  const timestamp = remote.status?.timestamp ? timestampDate(remote.status.timestamp).toISOString() : null;
  const state = stateFromA2a(remoteState);
  if (local.state !== state) transition(local, state, null, timestamp ?? undefined);
  const record: RemoteRecord = {
    url,
    task_id: remote.id,
    context_id: remote.contextId,
    state: a2aStateName(remoteState),
    status_timestamp: timestamp,
  };
  local.metadata[REMOTE_KEY] = record;
  return local;
}

/** The remote record of a task sent to an A2A agent, if it has one. */
export function remoteRecord(task: NativeTask): RemoteRecord | null {
  const record = task.metadata?.[REMOTE_KEY];
  return record && typeof record === 'object' && typeof (record as RemoteRecord).task_id === 'string'
    ? (record as RemoteRecord)
    : null;
}
