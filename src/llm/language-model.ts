// The interface parley talks to a language model through. Providers implement it; an agent
// with a model answers POST /chat and, without a handler of its own, treats task text as a
// prompt. `complete` is all a model must offer; `step` is what the model loop uses when it is
// there: one request with tool definitions, answered as a stream of text, tool calls and an end.
import type { LlmUsage } from '../../generated/types/index.js';

/** One turn of a conversation, as sessions keep it and providers translate it. */
export interface ChatTurn {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  /** Text of the turn; for a tool turn, the tool's output as JSON (or its error message). */
  readonly content: string;
  /** Assistant turns: the tools the model asked for in that turn. */
  readonly toolCalls?: readonly ModelToolCall[];
  /** Tool turns: the `call_id` this output answers. */
  readonly callId?: string;
  /** Tool turns: true when `content` is an error message rather than output. */
  readonly isError?: boolean;
}

export interface CompletionOptions {
  readonly signal?: AbortSignal;
}

/** A tool as the model sees it: its name, what it is for and the JSON Schema of its arguments. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** A tool call as the model made it. */
export interface ModelToolCall {
  readonly call_id: string;
  readonly name: string;
  /** The decoded arguments; `{}` when they could not be decoded (see `argumentsError`). */
  readonly arguments: Record<string, unknown>;
  /** Set when the model's arguments were not a JSON object: why, with the text it sent. */
  readonly argumentsError?: string;
}

export interface ModelRequest {
  readonly turns: readonly ChatTurn[];
  readonly tools?: readonly ToolDefinition[];
  readonly signal?: AbortSignal;
}

/** What one model step streams: text as it comes, each complete tool call, then one `end`. */
export type ModelEvent =
  | { readonly type: 'text'; readonly delta: string }
  | { readonly type: 'tool_call'; readonly call: ModelToolCall }
  | { readonly type: 'end'; readonly finishReason: string; readonly usage: LlmUsage | null };

/** Counts the tokens of a text the way a model's tokenizer would. */
export type TokenCounter = (text: string) => number;

export interface LanguageModel {
  /** Model name, shown on the card and in stream events. */
  readonly name: string;
  /** Tokens the model reads at most (prompt and history); the model loop compacts above it. */
  readonly contextTokens?: number;
  /** The whole reply to a conversation. */
  complete(turns: readonly ChatTurn[], options?: CompletionOptions): Promise<string>;
  /** The reply piece by piece; when absent, `complete` is used and arrives as one piece. */
  stream?(turns: readonly ChatTurn[], options?: CompletionOptions): AsyncIterable<string>;
  /** One model step with tools; without it the model loop cannot offer tools. */
  step?(request: ModelRequest): AsyncIterable<ModelEvent>;
  /** The model's own tokenizer, when one is known; else token counts are estimated. */
  tokenCounter?(): Promise<TokenCounter>;
}

/** A rough token count (about four characters a token), for budgets and compaction. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Text a turn costs the model: its content plus the tool calls it carries. */
export function turnText(turn: ChatTurn): string {
  if (!turn.toolCalls || turn.toolCalls.length === 0) return turn.content;
  return turn.content + turn.toolCalls.map((call) => call.name + JSON.stringify(call.arguments)).join('');
}
