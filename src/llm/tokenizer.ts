// Token counting with a real tokenizer where one fits the model: OpenAI's models use the BPE
// encodings `js-tiktoken` ships (an optional package, loaded on first use). Models it does not
// know (Ollama's llama, Anthropic's Claude, whose tokenizer is not published) get the
// estimate. Each encoding is built once per process: its table takes a moment to load.
import { importOptional } from '../core/errors.js';
import { estimateTokens, type LanguageModel, type TokenCounter } from './language-model.js';

type TiktokenLite = typeof import('js-tiktoken/lite');

const encodings = new Map<string, Promise<TokenCounter>>();

/** A counter for `model`'s own encoding; the estimate when `js-tiktoken` does not know the model or is not installed. */
export async function tiktokenCounter(model: string): Promise<TokenCounter> {
  let lite: TiktokenLite;
  try {
    lite = await importOptional<TiktokenLite>('js-tiktoken/lite', 'exact token counts for OpenAI models');
  } catch {
    return estimateTokens;
  }
  let encoding: string;
  try {
    encoding = lite.getEncodingNameForModel(model as Parameters<TiktokenLite['getEncodingNameForModel']>[0]);
  } catch {
    return estimateTokens;
  }
  let counter = encodings.get(encoding);
  if (!counter) {
    counter = loadEncoding(lite, encoding);
    encodings.set(encoding, counter);
  }
  return counter;
}

async function loadEncoding(lite: TiktokenLite, encoding: string): Promise<TokenCounter> {
  const ranks = (await import(`js-tiktoken/ranks/${encoding}`)) as {
    default: ConstructorParameters<TiktokenLite['Tiktoken']>[0];
  };
  const tokenizer = new lite.Tiktoken(ranks.default);
  // Special-token text in a conversation is counted as ordinary text, not refused.
  return (text) => tokenizer.encode(text, [], []).length;
}

/** The model's own counter when it has one, else the estimate. */
export function modelTokenCounter(model: LanguageModel | null): Promise<TokenCounter> {
  return model?.tokenCounter ? model.tokenCounter() : Promise.resolve(estimateTokens);
}
