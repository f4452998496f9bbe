// Building and updating the task a run works on: defaults filled in, transitions recorded.
import type { Artifact, Message, Task, TaskState } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { normalizeJson } from '../core/json.js';
import { merge } from '../core/objects.js';
import type { ArtifactInput, MessageInput } from './handler.js';

/** Fills in every default of a submitted task, in place: the engine owns the object. */
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

export function transition(task: Task, state: TaskState, reason?: string | null, timestamp = nowIso()): void {
  task.state = state;
  const history = (task.metadata ??= {}).state_history ?? (task.metadata.state_history = []);
  history.push(reason ? { state, timestamp, reason } : { state, timestamp });
}

/** Text of the latest user message, its text parts joined by newlines. */
export function latestUserText(task: Task): string {
  const messages = task.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user') continue;
    let text: string | null = null;
    for (const part of message.parts) {
      if (part.type !== 'text' || typeof part.content !== 'string') continue;
      text = text === null ? part.content : `${text}\n${part.content}`;
    }
    return text ?? '';
  }
  return '';
}

// What a handler hands over is normalized here, as it is attached: the task record stays plain
// JSON, which the engine relies on when it serializes the finished task.

export function buildMessage(input: MessageInput, now?: string): Message {
  if (typeof input === 'string') {
    return { id: newId(), role: 'agent', parts: [{ type: 'text', content: input }], timestamp: now ?? nowIso() };
  }
  const message = merge(input, { id: input.id ?? newId(), role: input.role ?? 'agent', timestamp: input.timestamp ?? now ?? nowIso() });
  return normalizeJson(message) as Message;
}

export function buildArtifact(input: ArtifactInput, now?: string): Artifact {
  // Optional fields the handler did not set (name, uri, media_type, action_id) stay absent
  // rather than null: every answer is smaller for it. Copied field by field: object spread
  // is slow on Node 20.
  const artifact: Record<string, unknown> = { kind: 'result', metadata: {} };
  for (const key in input) {
    if (key === 'text' || key === 'parts' || !Object.hasOwn(input, key)) continue;
    const value = input[key as keyof ArtifactInput];
    if (value !== undefined) artifact[key] = normalizeJson(value);
  }
  artifact.id ??= newId();
  artifact.parts = input.parts ? normalizeJson(input.parts) : input.text !== undefined ? [{ type: 'text', content: String(input.text) }] : [];
  artifact.timestamp ??= now ?? nowIso();
  return artifact as unknown as Artifact;
}
