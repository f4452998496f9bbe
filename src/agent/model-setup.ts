// An agent's language model with what goes with it: the tools the model may call, the
// instructions it gets as its system turn, and the budget of each run. Conversations run in a
// session: `converse` reads the session's history, runs the model loop and stores the
// conversation back, for POST /chat and for tasks alike (the same session id continues either).
import type { LlmRun } from '../../generated/types/index.js';
import type { ChatTurn, LanguageModel } from '../llm/language-model.js';
import { runModelLoop, type ModelLoopObserver, type ModelLoopResult, type RunBudget } from '../llm/model-loop.js';
import type { Tool } from '../llm/tool.js';
import type { SessionStore } from './sessions.js';

export interface ModelSetup {
  readonly model: LanguageModel;
  readonly tools: readonly Tool<unknown, unknown>[];
  /** The system turn every run starts with; never stored in the session. */
  readonly instructions: string | null;
  readonly budget: RunBudget | undefined;
  /** See ModelLoopOptions.textWindowMs; undefined for the default. */
  readonly textWindowMs?: number;
}

export interface ConverseOptions {
  readonly signal?: AbortSignal;
  readonly observer?: ModelLoopObserver | null;
  readonly onRun?: (run: LlmRun) => void;
  /** Replace the agent's tools for this run. */
  readonly tools?: readonly Tool<unknown, unknown>[];
  readonly budget?: RunBudget;
  readonly instructions?: string | null;
  /** False: leave the session's history out, and do not store this exchange in it. Default true. */
  readonly remember?: boolean;
}

/** Runs `prompt` as the next user turn of `owner`'s session `sessionId`. */
export async function converse(
  setup: ModelSetup,
  sessions: SessionStore,
  owner: string | null,
  sessionId: string,
  prompt: string,
  options: ConverseOptions = {},
): Promise<ModelLoopResult> {
  const remember = options.remember ?? true;
  const instructions = options.instructions === undefined ? setup.instructions : options.instructions;
  const lead: ChatTurn[] = instructions ? [{ role: 'system', content: instructions }] : [];
  const history = remember ? (sessions.get(owner, sessionId)?.turns ?? []) : [];
  const result = await runModelLoop({
    model: setup.model,
    turns: [...lead, ...history, { role: 'user', content: prompt }],
    tools: options.tools ?? setup.tools,
    budget: options.budget ?? setup.budget,
    signal: options.signal,
    observer: options.observer,
    onRun: options.onRun,
    textWindowMs: setup.textWindowMs,
  });
  // Compaction keeps leading system turns, so the instructions are still first.
  // The session keeps what fits in its bound (its oldest turns go first).
  if (remember) sessions.setTurns(sessions.ensure(owner, sessionId), result.turns.slice(lead.length));
  return result;
}
