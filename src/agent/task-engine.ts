// The default engine: runs a submitted task through the agent's handler. A task goes from
// `submitted` to `working` before the handler runs, and ends `completed`, `input-required`,
// `failed` (the handler threw or said so) or `canceled`. Every transition is recorded in
// `metadata.state_history`. Active runs, and tasks waiting for input, can be cancelled from
// another request by the principal that submitted them; cancel is not a way to look a task up,
// so any other id (unknown, finished, someone else's) gets one and the same 404. Finished tasks
// are kept in a short, bounded list for the status page's counts; one waiting for input keeps
// its JSON text there too, for its cancel: a finished task graph kept alive past a few
// young-generation collections costs the garbage collector more than serializing it once
// (docs/benchmarks.md).
import type { CancelRequest, Task, TaskState } from '../../generated/types/index.js';
import { AsyncQueue } from '../core/async-queue.js';
import { nowIso } from '../core/clock.js';
import { isTerminal } from '../core/task-state.js';
import { DeferredJson, PreEncoded, type EncodedJson } from '../core/json/encoded.js';
import { writeWithLongStrings } from '../core/json/long-strings.js';
import { normalizeJson } from '../core/json/normalize.js';
import type { RequestContext, StreamItem } from '../transport/endpoint.js';
import { EndpointError } from '../transport/endpoint-error.js';
import type { AgentEvent, AgentHandler, HandlerOutput, TaskOutcome } from './handler.js';
import type { ModelSetup } from './model-setup.js';
import { RunContext, type EventSink, type Run } from './task-context.js';
import { taskCompletedEvent } from './task-completed-event.js';
import { longTextParts, settleFinishedTask } from './task-record.js';
import { prepareTask, transition } from '../core/task-lifecycle.js';
import type { SessionStore } from './sessions.js';

/** How many tasks the engine knows of, by state: the active ones and the recently finished ones. */
export type TaskCounts = Partial<Record<TaskState, number>>;

export interface TaskEngineOptions {
  readonly handler: AgentHandler;
  /** The agent's model, its tools, instructions and run budget, if it has a model. */
  readonly model: ModelSetup | null;
  /** Where handlers keep per-session values (`context.session`). */
  readonly sessions: SessionStore;
  /** Finished tasks counted on the status page (oldest dropped first). */
  readonly recentLimit?: number;
}

export class TaskEngine {
  private readonly active = new Map<string, EngineRun>();
  private readonly recent = new Map<string, FinishedTask>();
  private readonly recentLimit: number;

  constructor(private readonly options: TaskEngineOptions) {
    this.recentLimit = options.recentLimit ?? 100;
  }

  get activeCount(): number {
    return this.active.size;
  }

  /**
   * Runs a task to its end and returns it with the JSON the engine made of it. Tasks given to
   * the engine are plain JSON: a fresh parse from a wire, or normalized by AgentServer.
   */
  submit(task: Task, request: RequestContext): Promise<PreEncoded> {
    return this.execute(task, request, null);
  }

  /**
   * Runs a task and yields its events; the last one, `task_completed`, closes the stream. The
   * run starts at the first read. A plain iterator over the event queue rather than an async
   * generator around it: one layer less for every event.
   */
  stream(task: Task, request: RequestContext): AsyncIterableIterator<StreamItem> {
    let reader: AsyncIterator<StreamItem> | null = null;
    let leave: (() => void) | null = null;
    const start = (): AsyncIterator<StreamItem> => {
      const queue = new AsyncQueue<StreamItem>(STREAM_HIGH_WATER);
      let finished = false;
      // A network transport learns first that its client left (the request's signal), while
      // the reader may be parked waiting for the next event; cancel from there too.
      const signal = request.signal;
      const onLeave = () => {
        if (!finished) this.abort(task.id, 'stream closed by the client');
      };
      signal.addEventListener('abort', onLeave, { once: true });
      const settled = () => {
        finished = true;
        signal.removeEventListener('abort', onLeave);
      };
      // The reader stopped before the end: stop the work it asked for.
      leave = () => {
        signal.removeEventListener('abort', onLeave);
        onLeave();
      };
      const sink: EventSink = (event, encoded) => queue.push({ result: event, final: false, encoded });
      this.execute(task, request, sink, () => queue.room()).then(
        (finished) => {
          settled();
          const final = finished.value as Task;
          const event = taskCompletedEvent(final);
          // Written as the task is (long text parts apart), with the same repair.
          queue.push({ result: event, final: true, encoded: new DeferredJson(event, (value) => writeHoldingTask(value, final)) });
          queue.end();
        },
        (error: unknown) => {
          settled();
          queue.fail(error);
        },
      );
      // A signal that aborted before the run began never fires: the client is already gone.
      if (signal.aborted) onLeave();
      return queue[Symbol.asyncIterator]();
    };
    const events: AsyncIterableIterator<StreamItem> = {
      next: () => (reader ??= start()).next(),
      return: () => {
        leave?.();
        return reader?.return?.() ?? Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => events,
    };
    return events;
  }

  /**
   * Cancels a running task (best effort) or one waiting for input, and returns it. `principal`
   * is the caller's (null without an authenticator): only the one that submitted the task may
   * cancel it. Every other case is the same 404, so a cancel reveals neither a finished task's
   * content nor whether an id exists.
   */
  cancel(request: CancelRequest, principal: string | null): Task {
    const reason = typeof request.metadata?.reason === 'string' ? request.metadata.reason : 'canceled by request';
    const run = this.active.get(request.id);
    if (run && run.owner === principal) {
      this.abort(request.id, reason);
      return structuredClone(run.task);
    }
    const waiting = run ? undefined : this.recent.get(request.id);
    // Waiting for the user's answer is not running, but it is not over either.
    if (waiting?.encoded && waiting.owner === principal) {
      const task = JSON.parse(waiting.encoded.text) as Task;
      transition(task, 'canceled', reason);
      this.remember(task.id, { state: task.state!, owner: waiting.owner, encoded: null });
      return task;
    }
    throw new EndpointError('not_found', 'no active task with that id');
  }

  /** Active and recently finished tasks, counted by state; nothing that identifies a task. */
  counts(): TaskCounts {
    const counts: TaskCounts = {};
    for (const run of this.active.values()) counts[run.task.state!] = (counts[run.task.state!] ?? 0) + 1;
    for (const finished of this.recent.values()) counts[finished.state] = (counts[finished.state] ?? 0) + 1;
    return counts;
  }

  private abort(id: string, reason: string): void {
    const run = this.active.get(id);
    if (!run || run.canceled) return;
    run.canceled = true;
    transition(run.task, 'canceled', reason);
    const error = new TaskCanceledError(reason);
    run.cancelReason = error;
    run.controller?.abort(error);
    run.cancel?.(error);
  }

  /** `room`, for streams: a generator handler waits on it before producing more events. */
  private execute(input: Task, request: RequestContext, sink: EventSink | null, room: Room | null = null): Promise<PreEncoded> {
    // The engine owns the task from here (transports decode a fresh copy per request). A
    // unary caller that goes away does not cancel it: its retry finds the finished result in
    // the idempotency cache. A stream's consumer leaving does (see stream()).
    let run: EngineRun;
    try {
      run = this.begin(input, request, sink, room);
    } catch (error) {
      return Promise.reject(error);
    }
    const context = new RunContext(run, this.options.model, request, this.options.sessions);
    let output: unknown;
    try {
      if (sink) context.send({ type: 'task_status', state: 'working', task: structuredClone(run.task) });
      output = this.options.handler(context);
    } catch (error) {
      this.fail(run, error);
      return this.finishNow(run);
    }
    if (isPending(output)) return this.settle(run, context, output, room);
    // A plain handler finished synchronously: no turns to wait for.
    try {
      if (!run.canceled) applyOutcome(run.task, output as HandlerOutput, context);
    } catch (error) {
      // What it returned cannot be attached (a cycle): the task fails, as if it had thrown.
      this.fail(run, error);
    }
    return this.finishNow(run);
  }

  /** Checks and registers a submitted task and moves it to `working`. */
  private begin(input: Task, request: RequestContext, sink: EventSink | null, room: Room | null): EngineRun {
    const now = nowIso();
    const task = prepareTask(input, now);
    if (this.active.has(task.id)) {
      throw new EndpointError('conflict', `task ${task.id} is already running`);
    }
    if (isTerminal(task.state!)) {
      throw new EndpointError('conflict', `task ${task.id} is already ${task.state}; submit a new task id`);
    }
    const owner = request.security?.principal_id ?? null;
    const run: EngineRun = {
      task,
      sink,
      room,
      controller: null,
      canceled: false,
      cancelReason: undefined,
      exposed: false,
      cancel: null,
      owner,
    };
    this.active.set(task.id, run);
    if (task.metadata!.state_history!.length === 0) transition(task, 'submitted', null, now);
    transition(task, 'working', null, now);
    return run;
  }

  /** Waits for a handler that returned a promise or a generator. */
  private async settle(
    run: EngineRun,
    context: RunContext,
    output: PromiseLike<HandlerOutput> | AsyncGenerator<AgentEvent, HandlerOutput>,
    room: Room | null,
  ): Promise<PreEncoded> {
    try {
      // Settles with the handler, or at once when the task is cancelled: a handler that
      // ignores its signal cannot hold the caller.
      const outcome = await new Promise<HandlerOutput>((resolve, reject) => {
        run.cancel = reject;
        drain(output, context, room).then(resolve, reject);
      });
      if (!run.canceled) applyOutcome(run.task, outcome, context);
    } catch (error) {
      this.fail(run, error);
    }
    return this.finish(run);
  }

  private fail(run: EngineRun, error: unknown): void {
    if (run.canceled) return;
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown } | null)?.code;
    // The code, when the error has one, is what a client can act on (`run_budget_exceeded`, ...).
    run.task.metadata!.error = {
      name: error instanceof Error ? error.name : 'Error',
      message,
      ...(typeof code === 'string' ? { code } : {}),
    };
    transition(run.task, 'failed', message || 'the handler failed');
  }

  /**
   * Finished tasks are never changed again, so the caller can have the record itself, with
   * its JSON, written once when someone reads it: a network transport writes it as the answer,
   * an in-process caller only measures it and copies the record. The record is plain JSON by
   * construction (decoded or normalized input, handler output normalized as it is attached);
   * a handler that read `context.task` may have written into it anyway, so its record is
   * checked here (settleFinishedTask), and writing the text repairs what slipped past.
   */
  private finish(run: EngineRun): PreEncoded {
    const task = run.task;
    this.active.delete(task.id);
    if (run.exposed) settleFinishedTask(task);
    // A task waiting for input keeps its text in the recent list, for a cancel; written now,
    // before the caller that gets the record could change it.
    const waiting = task.state === 'input-required';
    const encoded = new DeferredJson(task, writeFinishedTask);
    if (waiting) encoded.writeNow();
    this.remember(task.id, { state: task.state!, owner: run.owner, encoded: waiting ? encoded : null });
    return new PreEncoded(task, encoded);
  }

  private finishNow(run: EngineRun): Promise<PreEncoded> {
    try {
      return Promise.resolve(this.finish(run));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private remember(id: string, finished: FinishedTask): void {
    this.recent.delete(id);
    this.recent.set(id, finished);
    while (this.recent.size > this.recentLimit) this.recent.delete(this.recent.keys().next().value!);
  }
}

/** What the recent list keeps of a finished task: the JSON only of one waiting for input, which a cancel may still change. */
interface FinishedTask {
  readonly state: TaskState;
  /** The principal that submitted it (null without an authenticator). */
  readonly owner: string | null;
  readonly encoded: EncodedJson | null;
}

/** Events a stream buffers for a slow reader before its generator handler is held back. */
const STREAM_HIGH_WATER = 256;

/** Null while a stream has room for more events, else a promise for when it has. */
type Room = () => Promise<void> | null;

interface EngineRun extends Run {
  cancel: ((error: unknown) => void) | null;
  /** The principal that submitted the task (null without an authenticator): the one who may cancel it. */
  readonly owner: string | null;
}

/** Whether a handler's result still has to be waited for: a promise or an async generator. */
function isPending(output: unknown): output is PromiseLike<HandlerOutput> | AsyncGenerator<AgentEvent, HandlerOutput> {
  if (output === null || typeof output !== 'object') return false;
  return typeof (output as PromiseLike<unknown>).then === 'function' || Symbol.asyncIterator in output;
}

/** Awaits a promise, or runs a generator to its end with its yields becoming events. */
async function drain(
  output: PromiseLike<HandlerOutput> | AsyncGenerator<AgentEvent, HandlerOutput>,
  context: RunContext,
  room: Room | null,
): Promise<HandlerOutput> {
  if (!(Symbol.asyncIterator in output) || !('next' in output)) return await output;
  const generator = output;
  try {
    for (;;) {
      const step = await generator.next();
      if (step.done) return step.value;
      context.emitEvent(step.value);
      // A consumer that reads slower than the handler yields holds the handler back here,
      // instead of the events piling up in memory.
      const wait = room?.();
      if (wait) await wait;
    }
  } finally {
    await generator.return(undefined).catch(() => undefined);
  }
}

/** Attaches what the handler returned and records the final state, all at one instant. */
function applyOutcome(task: Task, output: HandlerOutput, context: RunContext): void {
  const outcome: TaskOutcome = typeof output === 'string' ? { text: output } : (output ?? {});
  const now = nowIso();
  if (outcome.text !== undefined) {
    context.attachMessage(outcome.text, now);
    context.attachArtifact({ kind: 'result', text: outcome.text }, now);
  }
  for (const message of outcome.messages ?? []) context.attachMessage(message, now);
  for (const artifact of outcome.artifacts ?? []) context.attachArtifact(artifact, now);
  if (outcome.metadata) Object.assign(task.metadata!, normalizeJson(outcome.metadata));
  transition(task, outcome.state ?? 'completed', outcome.reason ?? null, now);
}

/** The reason a canceled task's handler finds on its AbortSignal. */
export class TaskCanceledError extends Error {
  readonly code = 'task_canceled';
  constructor(reason: string) {
    super(reason);
    this.name = 'TaskCanceledError';
  }
}

/**
 * A finished task's JSON text; with its size too when the task carries long text parts, which
 * are written apart (core/json/long-strings.ts, told where by longTextParts). A record
 * JSON.stringify refuses (a handler kept an object it had attached and later put a bigint or a
 * cycle into it) is repaired first, as settleFinishedTask repairs it.
 */
export function writeFinishedTask(task: unknown): string | EncodedJson {
  return writeWithLongStrings(task, task as Task, longTextParts, settleFinishedTask);
}

/** writeFinishedTask for a value that holds the finished `task` (the event that closes its stream). */
function writeHoldingTask(value: unknown, task: Task): string | EncodedJson {
  return writeWithLongStrings(value, task, longTextParts, settleFinishedTask);
}
