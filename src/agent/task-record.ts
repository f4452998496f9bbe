// The engine's own bookkeeping for the task a run works on: messages and artifacts built from what a
// handler hands over. The rules any holder of a task follows (defaults, transitions) live in
// core/task-lifecycle.ts.
import type { Artifact, Message, Task } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { isPlainJson, normalizeJson } from '../core/json/normalize.js';
import { WRITE_APART_LENGTH, type LongStringSpot } from '../core/json/long-strings.js';
import { merge } from '../core/objects.js';
import type { ArtifactInput, MessageInput } from './handler.js';

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
  const message = merge(input, {
    id: input.id ?? newId(),
    role: input.role ?? 'agent',
    timestamp: input.timestamp ?? now ?? nowIso(),
  });
  return normalizeJson(message) as Message;
}

export function buildArtifact(input: ArtifactInput, now?: string): Artifact {
  // The optional descriptors the handler did not set are null, as the spec's Artifact table has
  // them, so a reader never has to tell absent from null. Copied field by field: object spread
  // is slow on Node 20.
  const artifact: Record<string, unknown> = {
    kind: 'result',
    metadata: {},
    name: null,
    uri: null,
    media_type: null,
    action_id: null,
  };
  for (const key in input) {
    if (key === 'text' || key === 'parts' || !Object.hasOwn(input, key)) continue;
    const value = input[key as keyof ArtifactInput];
    if (value !== undefined) artifact[key] = normalizeJson(value);
  }
  artifact.id ??= newId();
  artifact.parts = input.parts
    ? normalizeJson(input.parts)
    : input.text !== undefined
      ? [{ type: 'text', content: String(input.text) }]
      : [];
  artifact.timestamp ??= now ?? nowIso();
  return artifact as unknown as Artifact;
}

/**
 * Makes a finished task plain JSON, in place. The record is plain JSON unless a handler wrote
 * into `context.task` (documented as read-only) something that is not. Then the task gets the
 * rules handler output gets: a Date becomes its ISO string, a bigint a string and the like,
 * and a value with no JSON form (a cycle) is dropped. A task that lost something that way ends
 * `failed` instead of its outcome, saying what was dropped; nobody has seen the outcome yet.
 */
export function settleFinishedTask(task: Task): void {
  // One walk over the record, with no string scanned; the common case ends here.
  if (isPlainJson(task)) return;
  const dropped = makePlain(task as unknown as Record<string, unknown>);
  if (dropped.length > 0 && (task.state === 'completed' || task.state === 'input-required')) {
    const reason = `the task held values with no JSON form, dropped: ${dropped.join(', ')}`;
    const metadata = (task.metadata ??= {});
    const history = (metadata.state_history ??= []);
    const timestamp = history.at(-1)?.timestamp ?? nowIso();
    task.state = 'failed';
    history.splice(history.length - 1, 1, { state: 'failed', timestamp, reason });
    metadata.error = { name: 'TypeError', message: reason };
  }
}

/**
 * Where a task keeps strings long enough to write apart (core/json/long-strings.ts): the text
 * parts of its messages and artifacts at least WRITE_APART_LENGTH long; null for none. The
 * task engine hands this to the writer, which knows nothing of a task's shape.
 */
export function longTextParts(task: Task): LongStringSpot[] | null {
  let spots: LongStringSpot[] | null = null;
  const scan = (parts: unknown) => {
    if (!Array.isArray(parts)) return;
    for (const part of parts as Array<Record<string, unknown> | null>) {
      const content = part?.content;
      if (typeof content === 'string' && content.length >= WRITE_APART_LENGTH) {
        (spots ??= []).push({ holder: part!, key: 'content' });
      }
    }
  };
  if (Array.isArray(task.messages)) for (const message of task.messages) scan(message?.parts);
  if (Array.isArray(task.artifacts)) for (const artifact of task.artifacts) scan(artifact?.parts);
  return spots;
}

/** Normalizes every member in place; one that cannot be is dropped, item by item for lists and objects. */
function makePlain(record: Record<string, unknown>): string[] {
  const dropped: string[] = [];
  for (const key of Object.keys(record)) {
    const value = record[key];
    const plain = tryNormalize(value);
    if (plain.ok) {
      record[key] = plain.value;
    } else if (Array.isArray(value)) {
      const kept: unknown[] = [];
      value.forEach((item, index) => {
        const each = tryNormalize(item);
        if (each.ok) kept.push(each.value);
        else dropped.push(`${key}[${index}]`);
      });
      record[key] = kept;
    } else {
      // Only objects fail to normalize (a primitive always has a JSON form).
      const kept: Record<string, unknown> = {};
      for (const [name, item] of Object.entries(value as object)) {
        const each = tryNormalize(item);
        if (each.ok) kept[name] = each.value;
        else dropped.push(`${key}.${name}`);
      }
      record[key] = kept;
    }
  }
  return dropped;
}

function tryNormalize(value: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: normalizeJson(value) };
  } catch {
    return { ok: false };
  }
}
