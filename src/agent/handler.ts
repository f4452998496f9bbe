// What an agent author writes: a function from a task to an outcome. It may be a plain async
// function, or an async generator that yields stream events as it works; either way the
// engine records state transitions, attaches messages and artifacts, and streams events to
// clients that asked for a stream.
import type { Artifact, Message, Task, ToolCall } from '../../generated/types/index.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { LoopEvent, LoopMessage } from '../llm/loop-events.js';
import type { ModelLoopResult } from '../llm/model-loop.js';
import type { RequestContext } from '../transport/endpoint.js';
import type { ConverseOptions } from './model-setup.js';
import type { SessionValues } from './sessions.js';

/** An artifact as a handler writes it: the engine fills in `id` and `timestamp`. */
export type ArtifactInput = Omit<Artifact, 'id' | 'parts'> &
  Partial<Pick<Artifact, 'id'>> & {
    parts?: Artifact['parts'];
    /** Shorthand for a single text part. */
    text?: string;
  };

/**
 * A message as a handler writes it: text alone, or a message without id and timestamp. The
 * same shape the model loop hands over (llm/loop-events.ts), so the engine keeps both alike.
 */
export type MessageInput = LoopMessage;

/** What a handler returns. */
export interface TaskOutcome {
  /** Shorthand: an agent message with this text, and a `result` artifact holding it. */
  readonly text?: string;
  readonly messages?: readonly MessageInput[];
  readonly artifacts?: readonly ArtifactInput[];
  /**
   * How the task ends: `completed` (the default when the handler returns), `input-required`
   * (the agent asks the user something; send the task again with the answer), or `failed`.
   */
  readonly state?: 'completed' | 'input-required' | 'failed';
  /** Why, recorded in the state history (for input-required: the question, if no message says it). */
  readonly reason?: string;
  /** Merged into the task's metadata. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing (an async function without return) is typed void, and must fit.
export type HandlerOutput = string | TaskOutcome | void | undefined;

/**
 * Events a handler may yield or emit while it works; the engine stamps task id and time. The
 * model loop's own events (llm/loop-events.ts): a handler streams what the loop streams.
 */
export type AgentEvent = LoopEvent;

export type { ToolOutput } from '../llm/loop-events.js';

/** What a handler may change about one model run (the agent's tools, instructions and budget otherwise). */
export type RunModelOptions = Omit<ConverseOptions, 'signal' | 'observer' | 'onRun'> & {
  /** The user turn to send. Default: the task's text (`input`). */
  readonly prompt?: string;
};

/**
 * What a handler gets. Its functions (and those of `session`) need no `this`: a handler may
 * take them out of it, `({ input, artifact }) => ...`.
 */
export interface TaskContext {
  /**
   * The task as submitted, with defaults filled in. Read-only: change it through the outcome,
   * message() and artifact(), which normalize what they attach; the finished record is
   * serialized as it stands.
   */
  readonly task: Task;
  /** Text of the latest user message (its text parts joined by newlines). */
  readonly input: string;
  /** Session the task belongs to: `metadata.session_id`, else the task id. */
  readonly sessionId: string;
  /**
   * Values kept in that session across its tasks (shown and reset by the state operations). With
   * an authenticator the session is the calling principal's own.
   */
  readonly session: SessionValues;
  /** Aborted when the task is cancelled or its stream's client goes away. */
  readonly signal: AbortSignal;
  /** The agent's language model, if it has one. */
  readonly llm: LanguageModel | null;
  /** The request that carried the task. */
  readonly request: RequestContext;
  /** Sends a stream event now. */
  emit(event: AgentEvent): void;
  /** Attaches an artifact now; stream clients see it at once. */
  artifact(artifact: ArtifactInput): Artifact;
  /** Attaches an agent message now; stream clients see it at once. */
  message(message: MessageInput): Message;
  /**
   * Runs the agent's model on `prompt` (default: the task's text) in this task's session: the
   * model loop with the agent's tools, its events on this task's stream, the step messages on
   * the task, the run's summary in `metadata.llm`. Rejects with ModelError or RunBudgetError.
   */
  runModel(options?: RunModelOptions): Promise<ModelLoopResult>;
  /** Calls a tool-like function and reports the call and its output as events. */
  tool<T>(call: Omit<ToolCall, 'call_id'> & { call_id?: string }, run: () => Promise<T> | T): Promise<T>;
}

export type AgentHandler = (
  context: TaskContext,
) => HandlerOutput | Promise<HandlerOutput> | AsyncGenerator<AgentEvent, HandlerOutput, undefined>;

/** Ends a task waiting for the user: `return needsInput('Which city?')`. */
export function needsInput(question: string): TaskOutcome {
  return { state: 'input-required', messages: [question], reason: question };
}
