// The TaskContext a handler receives: one object per run, its work in prototype methods so a
// task costs one allocation here. A handler may take the context's functions out of it
// (`({ input, artifact }) => ...`), so each public function is a closure over the context, made
// the first time the handler reads it; the engine and the model loop call the methods.
import type { Artifact, LlmRun, Message, StreamEvent, Task, ToolCall } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import { StateError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { EncodedJson } from '../core/json/encoded.js';
import { normalizeJson } from '../core/json/normalize.js';
import { merge } from '../core/objects.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { ModelLoopObserver, ModelLoopResult, ModelTextChunk } from '../llm/model-loop.js';
import type { RequestContext } from '../transport/endpoint.js';
import type { AgentEvent, ArtifactInput, MessageInput, RunModelOptions, TaskContext } from './handler.js';
import { converse, type ModelSetup } from './model-setup.js';
import { buildArtifact, buildMessage, latestUserText } from './task-record.js';
import { SessionValuesView, sessionOwner, type SessionStore, type SessionValues } from './sessions.js';

/** Takes a stamped event, with its JSON text when the sender made it. */
export type EventSink = (event: StreamEvent, encoded?: EncodedJson) => void;

/** What the engine tracks about one active task. */
export interface Run {
  readonly task: Task;
  readonly sink: EventSink | null;
  controller: AbortController | null;
  canceled: boolean;
  /** Why the run was cancelled; the handler's signal carries it even if made afterwards. */
  cancelReason: unknown;
  /** The handler read `context.task`, so it may have written into the record (see settleFinishedTask). */
  exposed: boolean;
  /** For a stream: null while its queue has room, else a promise for when it has. */
  readonly room: (() => Promise<void> | null) | null;
}

export class RunContext implements TaskContext {
  readonly input: string;
  readonly sessionId: string;

  private values: SessionValues | null = null;
  /** The public functions, each made on first read. */
  private bound: BoundFunctions | null = null;
  private lastMiddle: {
    readonly messageId: string;
    readonly model: string;
    readonly step: number;
    readonly text: string;
  } | null = null;

  constructor(
    private readonly run: Run,
    private readonly setup: ModelSetup | null,
    readonly request: RequestContext,
    private readonly sessions: SessionStore,
  ) {
    const task = run.task;
    this.input = latestUserText(task);
    this.sessionId = typeof task.metadata?.session_id === 'string' ? task.metadata.session_id : task.id;
  }

  get llm(): LanguageModel | null {
    return this.setup?.model ?? null;
  }

  /** The task as submitted, defaults filled in. Treat it as read-only. */
  get task(): Task {
    this.run.exposed = true;
    return this.run.task;
  }

  /** Made on first use; the session itself only once a value is set. */
  get session(): SessionValues {
    return (this.values ??= new SessionValuesView(this.sessions, sessionOwner(this.request.security), this.sessionId));
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

  get emit(): (event: AgentEvent) => void {
    return ((this.bound ??= {}).emit ??= (event) => this.emitEvent(event));
  }

  get artifact(): (input: ArtifactInput) => Artifact {
    return ((this.bound ??= {}).artifact ??= (input) => this.attachArtifact(input));
  }

  get message(): (input: MessageInput) => Message {
    return ((this.bound ??= {}).message ??= (input) => this.attachMessage(input));
  }

  get runModel(): (options?: RunModelOptions) => Promise<ModelLoopResult> {
    return ((this.bound ??= {}).runModel ??= (options) => this.runModelNow(options));
  }

  get tool(): TaskContext['tool'] {
    return ((this.bound ??= {}).tool ??= (call, work) => this.runTool(call, work));
  }

  emitEvent(event: AgentEvent): void {
    // Without a stream nobody receives events: skip shaping them. A model's text chunk (a
    // string delta, no usage object) is plain JSON as made: one per token, so it skips the walk.
    if (!this.run.sink || this.run.canceled) return;
    const plain = event.type === 'task_llm_stream' && typeof event.delta === 'string' && event.usage == null;
    this.send(plain ? event : normalizeEvent(event));
  }

  /**
   * A model step's text chunk, from the model loop. One a token, always the same shape: the
   * event and its JSON text are made here in one go (the text as JSON.stringify would write
   * the event), so the transport neither walks nor serializes it again.
   */
  text(chunk: ModelTextChunk): void {
    const sink = this.run.sink;
    if (!sink || this.run.canceled) return;
    const { delta, messageId, model, step } = chunk;
    const task_id = this.run.task.id;
    const timestamp = nowIso();
    const event = { type: 'task_llm_stream', delta, final: false, message_id: messageId, model, step, task_id, timestamp };
    const middle = this.chunkMiddle(messageId, model, step);
    const text = `{"type":"task_llm_stream","delta":${JSON.stringify(delta)}${middle}${timestamp}"}`;
    sink(event as StreamEvent, { text, bytes: Buffer.byteLength(text) });
  }

  /** The JSON between a text chunk's delta and its timestamp's value, the same for a whole step. */
  private chunkMiddle(messageId: string, model: string, step: number): string {
    const last = this.lastMiddle;
    if (last && last.messageId === messageId && last.model === model && last.step === step) return last.text;
    const text =
      `,"final":false,"message_id":${JSON.stringify(messageId)},"model":${JSON.stringify(model)},"step":${JSON.stringify(step)},` +
      `"task_id":${JSON.stringify(this.run.task.id)},"timestamp":"`;
    this.lastMiddle = { messageId, model, step, text };
    return text;
  }

  /** Null while the stream has room for more events; the model loop waits on anything else. */
  room(): Promise<void> | null {
    return this.run.room?.() ?? null;
  }

  private runModelNow(options: RunModelOptions = {}): Promise<ModelLoopResult> {
    const setup = this.setup;
    if (!setup) return Promise.reject(new StateError('this agent has no language model', 'no_model'));
    const { prompt, ...rest } = options;
    return converse(setup, this.sessions, sessionOwner(this.request.security), this.sessionId, prompt ?? this.input, {
      ...rest,
      signal: this.signal,
      observer: this.observer(),
      onRun: (summary) => this.recordRun(summary),
    });
  }

  /** `now`, when given, stamps what has no timestamp of its own (one clock read per outcome). */
  attachArtifact(input: ArtifactInput, now?: string): Artifact {
    const artifact = buildArtifact(input, now);
    if (!this.run.canceled) {
      this.run.task.artifacts!.push(artifact);
      this.send({ type: 'task_artifact', artifact });
    }
    return artifact;
  }

  attachMessage(input: MessageInput, now?: string): Message {
    const message = buildMessage(input, now);
    if (!this.run.canceled) {
      this.run.task.messages!.push(message);
      this.send({ type: 'task_message', message });
    }
    return message;
  }

  private async runTool<T>(call: Omit<ToolCall, 'call_id'> & { call_id?: string }, work: () => Promise<T> | T): Promise<T> {
    const call_id = call.call_id ?? newId();
    this.emitEvent({ type: 'task_tool_call', tool_call: merge(call, { call_id }) });
    try {
      const result = await work();
      this.emitEvent({ type: 'task_tool_result', tool_result: { call_id, result } });
      return result;
    } catch (error) {
      this.emitEvent({ type: 'task_tool_result', tool_result: { call_id, error } });
      throw error;
    }
  }

  /** What the model loop reports to: this run's methods. */
  private observer(): ModelLoopObserver {
    return {
      emit: (event) => this.emitEvent(event),
      text: (chunk) => this.text(chunk),
      message: (input) => this.attachMessage(input),
      room: () => this.room(),
    };
  }

  /** Adds a model run's figures to `metadata.llm` (summed when a handler runs the model more than once). */
  private recordRun(summary: LlmRun): void {
    if (this.run.canceled) return;
    const metadata = this.run.task.metadata!;
    const before = metadata.llm as LlmRun | undefined;
    metadata.llm = before
      ? {
          model: summary.model,
          steps: before.steps + summary.steps,
          tool_calls: before.tool_calls + summary.tool_calls,
          usage: {
            input_tokens: before.usage.input_tokens + summary.usage.input_tokens,
            output_tokens: before.usage.output_tokens + summary.usage.output_tokens,
            total_tokens: before.usage.total_tokens + summary.usage.total_tokens,
          },
          compactions: (before.compactions ?? 0) + (summary.compactions ?? 0),
        }
      : summary;
  }

  /** Stamps and forwards an event to the stream, when there is one. */
  send(event: Record<string, unknown>): void {
    const sink = this.run.sink;
    if (sink) sink(merge(event, { task_id: this.run.task.id, timestamp: nowIso() }) as unknown as StreamEvent);
  }
}

interface BoundFunctions {
  emit?: TaskContext['emit'];
  artifact?: TaskContext['artifact'];
  message?: TaskContext['message'];
  runModel?: TaskContext['runModel'];
  tool?: TaskContext['tool'];
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
