// The model loop: send the conversation (and the tools) to the model, stream its text out as
// `task_llm_stream` events, run the tools it asks for, give it their output, and go again
// until it answers without asking for a tool. Each model step ends with a `final: true` chunk
// (its finish reason and usage on it). A step that asked for tools is kept in the task as an
// assistant message with `tool_call` parts, the tools' output as an agent message with
// `tool_result` parts. Bad calls (unknown tool, arguments that are not JSON or fail the
// schema) and tools that throw become error results the model reads; they do not end the run.
// The run budget (steps, tool calls, tokens, time) does: RunBudgetError. Above the model's
// context size the conversation is compacted before the step.
import type { LlmRun, LlmUsage, Message, Part } from '../../generated/types/index.js';
import { InvalidArgumentError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { normalizeJson } from '../core/json/normalize.js';
import { compactHistory, countTokens } from './history-compaction.js';
import { estimateTokens, type ChatTurn, type LanguageModel, type ModelToolCall, type TokenCounter } from './language-model.js';
import type { LoopEvent, LoopMessage } from './loop-events.js';
import { RunBudgetError } from './model-error.js';
import type { Tool } from './tool.js';

/** Limits of one run. Defaults: 10 steps, 20 tool calls, no token limit, 5 minutes. */
export interface RunBudget {
  /** Model steps (requests to the model) at most. */
  readonly maxSteps?: number;
  /** Tool calls at most, over all steps. */
  readonly maxToolCalls?: number;
  /** Tokens (input and output, over all steps, as the provider counts them) at most. */
  readonly maxTokens?: number;
  /** Wall time of the whole run, in ms. */
  readonly maxTimeMs?: number;
}

export const DEFAULT_RUN_BUDGET: Required<RunBudget> = Object.freeze({
  maxSteps: 10,
  maxToolCalls: 20,
  maxTokens: Number.POSITIVE_INFINITY,
  maxTimeMs: 300_000,
});

/** Where the loop reports what it does: a task (TaskContext is one), or nothing for a chat. */
export interface ModelLoopObserver {
  emit(event: LoopEvent): void;
  /**
   * A text chunk of a model step (`task_llm_stream`, `final: false`), when the observer can
   * send one cheaper than through emit: its shape is fixed, and there is one a token. Without
   * it, chunks go to emit.
   */
  text?(chunk: ModelTextChunk): void;
  message(message: LoopMessage): Message;
  /** Null while the reader keeps up; else the loop stops reading the model until this settles. */
  room?(): Promise<void> | null;
}

/** A text chunk of step `step`, streamed for message `messageId`. */
export interface ModelTextChunk {
  readonly delta: string;
  readonly messageId: string;
  readonly model: string;
  readonly step: number;
}

export interface ModelLoopOptions {
  readonly model: LanguageModel;
  /** The conversation so far, ending with the new user turn. Not changed. */
  readonly turns: readonly ChatTurn[];
  readonly tools?: readonly Tool<unknown, unknown>[];
  readonly budget?: RunBudget;
  readonly signal?: AbortSignal;
  readonly observer?: ModelLoopObserver | null;
  /** Told the run's summary when it ends, however it ends. */
  readonly onRun?: (run: LlmRun) => void;
  /**
   * Text chunks that arrive within this many milliseconds of the last text event sent are
   * merged into the next one (see ChunkBatch). 0: one event per read. Default TEXT_WINDOW_MS.
   */
  readonly textWindowMs?: number;
}

/**
 * Default textWindowMs: at most 20 text events a second per stream. A reader cannot follow text
 * faster than that, and each event costs a write and the client's wake-up: at 12 ms (about 80
 * events a second) the agent spent 1.3 times the CPU per token of the provider's SDK reading
 * the stream alone, at 50 ms 1.02-1.25 over four runs (bench/llm, paced), and 0.83-0.96 once
 * the loop also stopped reading while a chunk waits (ChunkBatch). The first chunk after a
 * pause leaves at once; only a steady stream waits, up to the window.
 * Keep it above the sse and websocket transports' default stream flush interval (10 ms) plus a
 * timer's jitter: with equal spacings the two clocks lock out of phase (the transport writes an
 * event a few ms after this loop hands it over, so the next one, a window later, is again
 * younger than the interval and waits a second time).
 */
const TEXT_WINDOW_MS = 50;

export interface ModelLoopResult {
  /** The model's answer. */
  readonly text: string;
  /** Id of the message the answer's text was streamed for (`message_id` of its chunks). */
  readonly messageId: string;
  /** The conversation after the run (compacted if it had to be), the answer last. */
  readonly turns: ChatTurn[];
  readonly run: LlmRun;
}

/** Share of the model's context a compacted conversation is cut down to, leaving room to answer. */
const COMPACT_TO = 0.75;

export async function runModelLoop(options: ModelLoopOptions): Promise<ModelLoopResult> {
  const { model, observer = null, textWindowMs = TEXT_WINDOW_MS } = options;
  if (!(textWindowMs >= 0) || !Number.isFinite(textWindowMs)) {
    throw new InvalidArgumentError(`textWindowMs must be a number of milliseconds >= 0 (got ${String(textWindowMs)})`);
  }
  const tools = new Map((options.tools ?? []).map((entry) => [entry.name, entry]));
  if (tools.size > 0 && !model.step) {
    throw new InvalidArgumentError(
      `model ${model.name} cannot call tools: it has no step() (use a provider from parley's llm/providers)`,
    );
  }
  const budget = { ...DEFAULT_RUN_BUDGET, ...options.budget };
  const usage: { -readonly [K in keyof LlmUsage]: LlmUsage[K] } = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  const run = { model: model.name, steps: 0, tool_calls: 0, usage, compactions: 0 };
  const summary = (): LlmRun => ({ ...run, usage: { ...usage } });
  // The run's deadline, joined with the caller's signal: tools and model steps get this one.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new RunBudgetError('time', budget.maxTimeMs, budget.maxTimeMs, summary())),
    budget.maxTimeMs,
  );
  timer.unref();
  const caller = options.signal;
  const onAbort = () => deadline.abort(caller!.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  const signal = deadline.signal;
  const definitions = [...tools.values()].map(({ name, description, parameters }) => ({ name, description, parameters }));
  let turns = [...options.turns];
  let counter: TokenCounter | null = null;
  try {
    for (;;) {
      signal.throwIfAborted();
      if (run.steps >= budget.maxSteps) throw new RunBudgetError('steps', budget.maxSteps, run.steps, summary());
      if (model.contextTokens !== undefined) {
        counter ??= model.tokenCounter ? await model.tokenCounter() : estimateTokens;
        if (countTokens(turns, counter) > model.contextTokens) {
          const maxTokens = Math.floor(model.contextTokens * COMPACT_TO);
          turns = (
            await compactHistory(turns, { strategy: 'tokens', max_tokens: maxTokens, preserve_recent: 1 }, null, signal, counter)
          ).turns;
          run.compactions++;
        }
      }
      run.steps++;
      const step = await runStep(model, turns, definitions, run.steps, signal, observer, textWindowMs);
      if (step.usage) {
        usage.input_tokens += step.usage.input_tokens;
        usage.output_tokens += step.usage.output_tokens;
        usage.total_tokens += step.usage.total_tokens;
      }
      if (usage.total_tokens > budget.maxTokens)
        throw new RunBudgetError('tokens', budget.maxTokens, usage.total_tokens, summary());
      if (step.calls.length === 0) {
        turns.push({ role: 'assistant', content: step.text });
        return { text: step.text, messageId: step.messageId, turns, run: summary() };
      }
      turns.push({ role: 'assistant', content: step.text, toolCalls: step.calls });
      observer?.message({ id: step.messageId, role: 'assistant', parts: callParts(step.text, step.calls) });
      const results: Part[] = [];
      for (const call of step.calls) {
        if (run.tool_calls >= budget.maxToolCalls) {
          throw new RunBudgetError('tool_calls', budget.maxToolCalls, run.tool_calls, summary());
        }
        run.tool_calls++;
        const toolCall = call.argumentsError
          ? { call_id: call.call_id, name: call.name, arguments: call.arguments, arguments_error: call.argumentsError }
          : { call_id: call.call_id, name: call.name, arguments: call.arguments };
        observer?.emit({ type: 'task_tool_call', tool_call: toolCall });
        const outcome = await runTool(call, tools, signal);
        const result = outcome.error === null ? (normalizeJson(outcome.result ?? null) as unknown) : null;
        observer?.emit({ type: 'task_tool_result', tool_result: { call_id: call.call_id, result, error: outcome.error } });
        results.push({ type: 'tool_result', content: { call_id: call.call_id, result, error: outcome.error } });
        turns.push({
          role: 'tool',
          callId: call.call_id,
          content: outcome.error ?? (typeof result === 'string' ? result : JSON.stringify(result)),
          ...(outcome.error !== null ? { isError: true } : {}),
        });
      }
      observer?.message({ role: 'agent', parts: results });
    }
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
    options.onRun?.(summary());
  }
}

interface StepResult {
  readonly messageId: string;
  readonly text: string;
  readonly calls: ModelToolCall[];
  readonly usage: LlmUsage | null;
}

async function runStep(
  model: LanguageModel,
  turns: readonly ChatTurn[],
  tools: ReadonlyArray<{ name: string; description: string; parameters: Readonly<Record<string, unknown>> }>,
  step: number,
  signal: AbortSignal,
  observer: ModelLoopObserver | null,
  textWindowMs: number,
): Promise<StepResult> {
  const messageId = newId();
  const name = model.name;
  let text = '';
  const calls: ModelToolCall[] = [];
  let finishReason = 'stop';
  let usage: LlmUsage | null = null;
  if (model.step) {
    const chunks = observer ? new ChunkBatch(observer, messageId, name, step, textWindowMs) : null;
    try {
      for await (const event of model.step({ turns, tools, signal })) {
        if (chunks) chunks.received++;
        if (event.type === 'text') {
          if (event.delta === '') continue;
          text += event.delta;
          if (chunks) {
            chunks.add(event.delta);
            // While the chunk waits for its window, reading on would only add to it: the model's
            // next chunks wait in the connection and are read together when the window closes.
            const closing = chunks.closing(signal);
            if (closing) await closing;
            // A slow stream reader holds the model's stream back (TCP does the rest) instead of piling up chunks.
            const wait = observer!.room?.();
            if (wait) await wait;
          }
        } else if (event.type === 'tool_call') {
          calls.push(event.call);
        } else {
          finishReason = event.finishReason;
          usage = event.usage;
        }
      }
    } finally {
      // The text so far goes out before anything else, the step's failure included.
      chunks?.flush();
    }
  } else if (model.stream) {
    for await (const delta of model.stream(turns, { signal })) {
      text += delta;
      if (observer) sendText(observer, { delta, messageId, model: name, step });
    }
  } else {
    text = await model.complete(turns, { signal });
    if (observer) sendText(observer, { delta: text, messageId, model: name, step });
  }
  // A model that ignores its signal must not carry on past a cancel.
  signal.throwIfAborted();
  observer?.emit({
    type: 'task_llm_stream',
    delta: '',
    final: true,
    message_id: messageId,
    model: name,
    step,
    finish_reason: calls.length > 0 ? 'tool_calls' : finishReason,
    usage,
  });
  return { messageId, text, calls, usage };
}

/** Turns a ChunkBatch watches after a chunk leaves for one in which nothing came from the model. */
const PROBES = 3;

/**
 * Text chunks of one step on their way to the stream. A chunk goes out at the end of the event
 * loop turn it arrived in (one read from the model's connection), merged with the others of
 * that turn, unless the last text event left less than `windowMs` ago: then it waits for the
 * window to close and goes out with whatever else arrived meanwhile. A model streaming at
 * 30-80 tokens a second (12-33 ms apart) still gets about one event a token, each sent the
 * turn it arrives; a burst (a fast local model, a reader catching up) costs one event per
 * window, not one per token, all the way to the client. The concatenated deltas are the same
 * either way; what a chunk can wait is bounded by the window.
 *
 * When the loop has caught up with the model (a whole turn of the event loop passed after a
 * chunk left without the model sending anything more), it reads nothing while the next chunk
 * waits for its window (see closing()): the model's chunks of that window stay in the
 * connection's buffers, and the loop reads them all in one go when the window closes, just
 * before the chunk leaves. Nothing leaves later for it, and a model that sends a token a
 * millisecond costs one pass through the SDK's stream parser and the loop per window instead
 * of one per token. The end of the step (the finish chunk, a tool call) is read at most one
 * window late, as the text is. A model that has not been caught up with (a burst, a fast
 * local model) is read on without a pause, so nothing slows it down.
 */
class ChunkBatch {
  private pending = '';
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  /** performance.now() when the last text event left; -Infinity before the first. */
  private lastSent = Number.NEGATIVE_INFINITY;
  /** The loop's wait for the window to close, while it waits; see closing(). */
  private closed: { readonly promise: Promise<void>; readonly release: () => void } | null = null;
  /** Events read from the model so far; the loop counts them. */
  received = 0;
  /** Whether, since the last chunk left, a whole turn of the event loop read nothing from the model. */
  private caughtUp = false;
  /** `received` at the last probe, and the probes left after the last chunk left. */
  private receivedAtProbe = 0;
  private probesLeft = 0;
  private readonly flushLater = () => {
    this.scheduled = false;
    this.timer = null;
    this.flush();
    // The next few turns tell whether more is waiting in the connection (each polls it).
    // Another event of the agent may let a chunk in before the first probe, so one turn
    // that reads something does not yet make a burst.
    this.caughtUp = false;
    this.receivedAtProbe = this.received;
    this.probesLeft = PROBES;
    setImmediate(this.probe);
  };
  private readonly probe = () => {
    if (this.received === this.receivedAtProbe) {
      this.caughtUp = true;
      return;
    }
    this.receivedAtProbe = this.received;
    if (--this.probesLeft > 0) setImmediate(this.probe);
  };
  private readonly windowClosed = () => {
    this.timer = null;
    // The loop reads what arrived during the window first; the chunk leaves at the end of
    // that turn, with all of it.
    setImmediate(this.flushLater);
    this.closed?.release();
  };

  constructor(
    private readonly observer: ModelLoopObserver,
    private readonly messageId: string,
    private readonly model: string,
    private readonly step: number,
    private readonly windowMs: number,
  ) {}

  add(delta: string): void {
    this.pending += delta;
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.windowMs > 0 ? this.lastSent + this.windowMs - performance.now() : 0;
    if (wait > 0) this.timer = setTimeout(this.windowClosed, wait);
    else setImmediate(this.flushLater);
  }

  /**
   * Null unless a chunk waits for its window and the loop had caught up with the model; then a
   * promise that settles when the window closes or `signal` aborts, whichever comes first (it
   * never rejects: the model's stream reports the abort on the next read).
   */
  closing(signal: AbortSignal): Promise<void> | null {
    if (this.timer === null || !this.caughtUp || signal.aborted) return null;
    if (this.closed) return this.closed.promise;
    let release!: () => void;
    const promise = new Promise<void>((resolve) => {
      release = () => {
        this.closed = null;
        signal.removeEventListener('abort', release);
        resolve();
      };
    });
    signal.addEventListener('abort', release, { once: true });
    this.closed = { promise, release };
    return promise;
  }

  /** Sends what is pending now (before any other event of the step). */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.scheduled = false;
    }
    if (this.pending === '') return;
    const delta = this.pending;
    this.pending = '';
    this.lastSent = performance.now();
    sendText(this.observer, { delta, messageId: this.messageId, model: this.model, step: this.step });
  }
}

/** A text chunk to the observer: through text() when it has one, else as an ordinary event. */
function sendText(observer: ModelLoopObserver, chunk: ModelTextChunk): void {
  if (observer.text) {
    observer.text(chunk);
    return;
  }
  const { delta, messageId, model, step } = chunk;
  observer.emit({ type: 'task_llm_stream', delta, final: false, message_id: messageId, model, step });
}

/** The tool's output, or an error message for the model; only a cancel (or the deadline) throws. */
async function runTool(
  call: ModelToolCall,
  tools: ReadonlyMap<string, Tool<unknown, unknown>>,
  signal: AbortSignal,
): Promise<{ result?: unknown; error: string | null }> {
  if (call.argumentsError) return { error: call.argumentsError };
  const target = tools.get(call.name);
  if (!target) {
    const known = [...tools.keys()].join(', ') || 'none';
    return { error: `there is no tool named ${JSON.stringify(call.name)} (tools: ${known})` };
  }
  const problem = target.check(call.arguments);
  if (problem) return { error: problem };
  try {
    const result = await target.run(call.arguments, { signal, callId: call.call_id });
    signal.throwIfAborted();
    return { result, error: null };
  } catch (error) {
    signal.throwIfAborted();
    return { error: errorMessage(error) };
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(normalizeJson(error));
  } catch {
    return String(error);
  }
}

function callParts(text: string, calls: readonly ModelToolCall[]): Part[] {
  const parts: Part[] = text ? [{ type: 'text', content: text }] : [];
  for (const call of calls)
    parts.push({ type: 'tool_call', content: { call_id: call.call_id, name: call.name, arguments: call.arguments } });
  return parts;
}
