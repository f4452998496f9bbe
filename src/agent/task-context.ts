// The TaskContext a handler receives: one object per run, its methods on the prototype so a
// task costs one allocation here, not a closure per method.
import type { Artifact, Message, StreamEvent, Task, ToolCall } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { normalizeJson } from '../core/json.js';
import { merge } from '../core/objects.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { RequestContext } from '../transport/endpoint.js';
import type { AgentEvent, ArtifactInput, MessageInput, TaskContext } from './handler.js';
import { buildArtifact, buildMessage, latestUserText } from './task-record.js';
import { SessionValuesView, type SessionStore, type SessionValues } from './sessions.js';

export type EventSink = (event: StreamEvent) => void;

/** What the engine tracks about one active task. */
export interface Run {
  readonly task: Task;
  readonly sink: EventSink | null;
  controller: AbortController | null;
  canceled: boolean;
  /** Why the run was cancelled; the handler's signal carries it even if made afterwards. */
  cancelReason: unknown;
}

export class RunContext implements TaskContext {
  readonly input: string;
  readonly sessionId: string;

  private values: SessionValues | null = null;

  constructor(
    private readonly run: Run,
    readonly llm: LanguageModel | null,
    readonly request: RequestContext,
    private readonly sessions: SessionStore,
  ) {
    const task = run.task;
    this.input = latestUserText(task);
    this.sessionId = typeof task.metadata?.session_id === 'string' ? task.metadata.session_id : task.id;
  }

  /** The task as submitted, defaults filled in. Treat it as read-only. */
  get task(): Task {
    return this.run.task;
  }

  /** Made on first use; the session itself only once a value is set. */
  get session(): SessionValues {
    return (this.values ??= new SessionValuesView(this.sessions, this.sessionId));
  }

  /** Created on first use: most handlers never look at it. */
  get signal(): AbortSignal {
    const run = this.run;
    if (!run.controller) {
      run.controller = new AbortController();
      if (run.canceled) run.controller.abort(run.cancelReason);
    }
    return run.controller.signal;
  }

  emit(event: AgentEvent): void {
    // Without a stream nobody receives events: skip shaping them.
    if (this.run.sink && !this.run.canceled) this.send(normalizeEvent(event));
  }

  /** `now`, when given, stamps what has no timestamp of its own (one clock read per outcome). */
  artifact(input: ArtifactInput, now?: string): Artifact {
    const artifact = buildArtifact(input, now);
    if (!this.run.canceled) {
      this.run.task.artifacts!.push(artifact);
      this.send({ type: 'task_artifact', artifact });
    }
    return artifact;
  }

  message(input: MessageInput, now?: string): Message {
    const message = buildMessage(input, now);
    if (!this.run.canceled) {
      this.run.task.messages!.push(message);
      this.send({ type: 'task_message', message });
    }
    return message;
  }

  async tool<T>(call: Omit<ToolCall, 'call_id'> & { call_id?: string }, work: () => Promise<T> | T): Promise<T> {
    const call_id = call.call_id ?? newId();
    this.emit({ type: 'task_tool_call', tool_call: merge(call, { call_id }) });
    try {
      const result = await work();
      this.emit({ type: 'task_tool_result', tool_result: { call_id, result } });
      return result;
    } catch (error) {
      this.emit({ type: 'task_tool_result', tool_result: { call_id, error } });
      throw error;
    }
  }

  /** Stamps and forwards an event to the stream, when there is one. */
  send(event: Record<string, unknown>): void {
    const sink = this.run.sink;
    if (sink) sink(merge(event, { task_id: this.run.task.id, timestamp: nowIso() }) as unknown as StreamEvent);
  }
}

/** Tool output goes out as `call_id`, `result`, `error`, whatever the tool returned or threw. */
function normalizeEvent(event: AgentEvent): Record<string, unknown> {
  if (event.type !== 'task_tool_result') return normalizeJson(event) as Record<string, unknown>;
  const { call_id, result, error } = event.tool_result;
  return {
    type: 'task_tool_result',
    tool_result: { call_id, result: result === undefined ? null : normalizeJson(result), error: errorText(error) },
  };
}

/** A tool failure as text, whatever was thrown. */
function errorText(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(normalizeJson(error));
  } catch {
    return String(error);
  }
}
