// The default engine: runs a submitted task through the agent's handler. A task goes from
// `submitted` to `working` before the handler runs, and ends `completed`, `input-required`,
// `failed` (the handler threw or said so) or `canceled`. Every transition is recorded in
// `metadata.state_history`. Active runs can be cancelled from another request; finished tasks
// are kept in a short, bounded list for the status page and for idempotent cancels.
import type { CancelRequest, StreamEvent, Task } from '../../generated/types/index.js';
import { AsyncQueue } from '../core/async-queue.js';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { isTerminal } from '../core/task-state.js';
import { normalizeJson } from '../core/json.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { RequestContext, StreamItem } from '../transport/endpoint.js';
import { EndpointError } from '../transport/endpoint-error.js';
import type { AgentEvent, AgentHandler, HandlerOutput, TaskContext, TaskOutcome } from './handler.js';
import { buildArtifact, buildMessage, latestUserText, prepareTask, transition } from './task-record.js';

type EventSink = (event: StreamEvent) => void;

interface Run {
  readonly task: Task;
  readonly controller: AbortController;
  readonly startedAt: number;
  canceled: boolean;
}

export interface TaskSummary {
  readonly id: string;
  readonly state: Task['state'];
  readonly created_at: string | undefined;
  readonly updated_at: string;
  readonly messages: number;
  readonly artifacts: number;
}

export interface TaskEngineOptions {
  readonly handler: AgentHandler;
  readonly llm: LanguageModel | null;
  /** Finished tasks kept for the status page and idempotent cancels (oldest dropped first). */
  readonly recentLimit?: number;
}

export class TaskEngine {
  private readonly active = new Map<string, Run>();
  private readonly recent = new Map<string, Task>();
  private readonly recentLimit: number;

  constructor(private readonly options: TaskEngineOptions) {
    this.recentLimit = options.recentLimit ?? 100;
  }

  get activeCount(): number {
    return this.active.size;
  }

  /** Runs a task to its end and returns it. */
  submit(task: Task, request: RequestContext): Promise<Task> {
    return this.execute(task, request, null);
  }

  /** Runs a task and yields its events; the last one, `task_completed`, closes the stream. */
  async *stream(task: Task, request: RequestContext): AsyncGenerator<StreamItem, void, undefined> {
    const queue = new AsyncQueue<StreamItem>();
    let finished = false;
    this.execute(task, request, (event) => queue.push({ result: event, final: false })).then(
      (final) => {
        finished = true;
        queue.push({
          result: { type: 'task_completed', task_id: final.id, timestamp: nowIso(), state: final.state!, task: final },
          final: true,
        });
        queue.end();
      },
      (error: unknown) => {
        finished = true;
        queue.fail(error);
      },
    );
    try {
      yield* queue;
    } finally {
      // The client stopped reading before the end: stop the work it asked for.
      if (!finished) this.abort(task.id, 'stream closed by the client');
    }
  }

  /** Cancels an active task (best effort) and returns it; a recently finished one comes back unchanged. */
  cancel(request: CancelRequest): Task {
    const reason = typeof request.metadata?.reason === 'string' ? request.metadata.reason : 'canceled by request';
    const run = this.active.get(request.id);
    if (run && !run.canceled) {
      this.abort(request.id, reason);
      return structuredClone(run.task);
    }
    if (run) return structuredClone(run.task);
    const finished = this.recent.get(request.id);
    if (finished) return structuredClone(finished);
    throw new EndpointError(404, 'not_found', `no active task with id ${JSON.stringify(request.id)}`);
  }

  /** Active tasks first, then recently finished ones, newest first. */
  summaries(limit = 20): TaskSummary[] {
    const running = [...this.active.values()].map((run) => run.task);
    const done = [...this.recent.values()].reverse();
    return [...running, ...done].slice(0, limit).map((task) => {
      const history = task.metadata?.state_history ?? [];
      return {
        id: task.id,
        state: task.state,
        created_at: task.created_at,
        updated_at: history.at(-1)?.timestamp ?? task.created_at ?? '',
        messages: task.messages?.length ?? 0,
        artifacts: task.artifacts?.length ?? 0,
      };
    });
  }

  private abort(id: string, reason: string): void {
    const run = this.active.get(id);
    if (!run || run.canceled) return;
    run.canceled = true;
    transition(run.task, 'canceled', reason);
    run.controller.abort(new TaskCanceledError(reason));
  }

  private async execute(input: Task, request: RequestContext, sink: EventSink | null): Promise<Task> {
    const task = prepareTask(input);
    if (this.active.has(task.id)) {
      throw new EndpointError(409, 'conflict', `task ${task.id} is already running`);
    }
    if (isTerminal(task.state!)) {
      throw new EndpointError(409, 'conflict', `task ${task.id} is already ${task.state}; submit a new task id`);
    }
    const run: Run = { task, controller: new AbortController(), startedAt: Date.now(), canceled: false };
    this.active.set(task.id, run);
    const history = task.metadata!.state_history!;
    if (history.length === 0) transition(task, 'submitted');
    transition(task, 'working');
    const emit = (event: Record<string, unknown>) =>
      sink?.({ ...event, task_id: task.id, timestamp: nowIso() } as StreamEvent);
    emit({ type: 'task_status', state: 'working', task: structuredClone(task) });

    const onRequestAbort = () => this.abort(task.id, 'the caller went away');
    request.signal.addEventListener('abort', onRequestAbort, { once: true });
    try {
      const context = this.context(task, run, request, emit);
      const work = runHandler(this.options.handler, context);
      // A handler that ignores its signal may still settle after a cancel; nobody awaits it then.
      work.catch(() => undefined);
      const outcome = await Promise.race([work, canceled(run.controller.signal)]);
      if (!run.canceled) applyOutcome(task, outcome, context);
    } catch (error) {
      if (!run.canceled) {
        const message = error instanceof Error ? error.message : String(error);
        task.metadata!.error = { name: error instanceof Error ? error.name : 'Error', message };
        transition(task, 'failed', message || 'the handler failed');
      }
    } finally {
      request.signal.removeEventListener('abort', onRequestAbort);
      this.active.delete(task.id);
      this.remember(task);
    }
    return structuredClone(task);
  }

  private context(task: Task, run: Run, request: RequestContext, emit: (event: Record<string, unknown>) => void): TaskContext {
    const sessionId = typeof task.metadata?.session_id === 'string' ? task.metadata.session_id : task.id;
    const live = () => !run.canceled;
    return {
      task: structuredClone(task),
      input: latestUserText(task),
      sessionId,
      signal: run.controller.signal,
      llm: this.options.llm,
      request,
      emit: (event: AgentEvent) => {
        if (live()) emit(normalizeEvent(event));
      },
      artifact: (input) => {
        const artifact = buildArtifact(input);
        if (live()) {
          task.artifacts!.push(artifact);
          emit({ type: 'task_artifact', artifact });
        }
        return artifact;
      },
      message: (input) => {
        const message = buildMessage(input);
        if (live()) {
          task.messages!.push(message);
          emit({ type: 'task_message', message });
        }
        return message;
      },
      tool: async (call, work) => {
        const call_id = call.call_id ?? newId();
        if (live()) emit({ type: 'task_tool_call', tool_call: { ...call, call_id } });
        try {
          const result = await work();
          if (live()) emit(normalizeEvent({ type: 'task_tool_result', tool_result: { call_id, result } }));
          return result;
        } catch (error) {
          if (live()) emit(normalizeEvent({ type: 'task_tool_result', tool_result: { call_id, error } }));
          throw error;
        }
      },
    };
  }

  private remember(task: Task): void {
    this.recent.delete(task.id);
    this.recent.set(task.id, task);
    while (this.recent.size > this.recentLimit) this.recent.delete(this.recent.keys().next().value!);
  }
}

/** Runs a plain or generator handler; generator yields become events. */
async function runHandler(handler: AgentHandler, context: TaskContext): Promise<HandlerOutput> {
  const result = handler(context);
  if (result && typeof result === 'object' && Symbol.asyncIterator in result && 'next' in result) {
    const generator = result as AsyncGenerator<AgentEvent, HandlerOutput, undefined>;
    try {
      for (;;) {
        const step = await generator.next();
        if (step.done) return step.value;
        if (context.signal.aborted) return undefined;
        context.emit(step.value);
      }
    } finally {
      if (context.signal.aborted) await generator.return(undefined).catch(() => undefined);
    }
  }
  return (await result) as HandlerOutput;
}

function applyOutcome(task: Task, output: HandlerOutput, context: TaskContext): void {
  const outcome: TaskOutcome = typeof output === 'string' ? { text: output } : (output ?? {});
  if (outcome.text !== undefined) {
    context.message(outcome.text);
    context.artifact({ kind: 'result', text: outcome.text });
  }
  for (const message of outcome.messages ?? []) context.message(message);
  for (const artifact of outcome.artifacts ?? []) context.artifact(artifact);
  if (outcome.metadata) Object.assign(task.metadata!, normalizeJson(outcome.metadata));
  transition(task, outcome.state ?? 'completed', outcome.reason ?? null);
}

/** Tool output goes out as `call_id`, `result`, `error`, whatever the tool returned or threw. */
function normalizeEvent(event: AgentEvent): Record<string, unknown> {
  if (event.type !== 'task_tool_result') return normalizeJson(event) as Record<string, unknown>;
  const { call_id, result, error } = event.tool_result;
  const errorText = error === undefined || error === null ? null : error instanceof Error ? error.message : normalizeJson(error);
  return {
    type: 'task_tool_result',
    tool_result: { call_id, result: result === undefined ? null : normalizeJson(result), error: errorText },
  };
}

export class TaskCanceledError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'TaskCanceledError';
  }
}

function canceled(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
