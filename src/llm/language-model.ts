// The interface parley talks to a language model through. Providers implement it; an agent
// with a model answers POST /chat and, without a handler of its own, treats task text as a
// prompt.

export interface ChatTurn {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface CompletionOptions {
  readonly signal?: AbortSignal;
}

export interface LanguageModel {
  /** Model name, shown on the card and in stream events. */
  readonly name: string;
  /** The whole reply to a conversation. */
  complete(turns: readonly ChatTurn[], options?: CompletionOptions): Promise<string>;
  /** The reply piece by piece; when absent, `complete` is used and arrives as one piece. */
  stream?(turns: readonly ChatTurn[], options?: CompletionOptions): AsyncIterable<string>;
}

/** A rough token count (about four characters a token), for budgets and compaction. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
