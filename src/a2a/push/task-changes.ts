// What a webhook is told of a task's change, as A2A StreamResponses in ProtoJSON: a status
// update when the task reaches a state, and when a run ends an artifact update for each artifact
// it produced (whole: lastChunk true), then the status update, the order a stream would give
// them. What can still change is read at once (state, time, the agent's latest message, the
// artifacts so far); the JSON is written only if the task has configs (push-delivery.ts).
import { create, toJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { Message as NativeMessage, Task as NativeTask } from '../../../generated/types/index.js';
import { StreamResponseSchema, TaskState } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { statusTime } from '../../stores/task-entries.js';
import { artifactToA2a } from '../model/artifacts.js';
import { messageToA2a } from '../model/messages.js';
import { stateToA2a } from '../model/task-states.js';
import type { TaskChange } from './push-delivery.js';

/** The task is now in its current state: one status update. */
export function statusChange(task: NativeTask, contextId: string): TaskChange {
  const status = statusOf(task, contextId);
  return () => [status()];
}

/** A run ended: its artifacts from `firstArtifact` on, each an artifact update, then the status update. */
export function runEndChange(task: NativeTask, contextId: string, firstArtifact: number): TaskChange {
  const artifacts = (task.artifacts ?? []).slice(firstArtifact);
  const status = statusOf(task, contextId);
  return () => [
    ...artifacts.map((artifact) =>
      streamResponse({
        case: 'artifactUpdate',
        value: { taskId: task.id, contextId, artifact: artifactToA2a(artifact), append: false, lastChunk: true },
      }),
    ),
    status(),
  ];
}

/** The status as it is now, written later. */
function statusOf(task: NativeTask, contextId: string): () => JsonValue {
  const state = stateToA2a(task.state ?? 'submitted');
  const time = statusTime(task);
  const reply =
    state === TaskState.SUBMITTED || state === TaskState.WORKING ? undefined : latestAgentMessage(task.messages ?? []);
  return () =>
    streamResponse({
      case: 'statusUpdate',
      value: {
        taskId: task.id,
        contextId,
        status: {
          state,
          timestamp: timestampFromMs(time),
          message: reply ? messageToA2a(reply, task.id, contextId) : undefined,
        },
      },
    });
}

type Payload = NonNullable<Parameters<typeof create<typeof StreamResponseSchema>>[1]>['payload'];

function streamResponse(payload: Payload): JsonValue {
  return toJson(StreamResponseSchema, create(StreamResponseSchema, { payload }));
}

function latestAgentMessage(messages: readonly NativeMessage[]): NativeMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role !== 'user') return messages[i];
  return undefined;
}
