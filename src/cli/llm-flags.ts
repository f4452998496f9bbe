// `--llm PROVIDER:MODEL` and `--llm-base-url URL` of `parley serve agent`: which model the
// served agent answers with. `openai:<model>` talks to any server of the OpenAI chat
// completions API (OpenAI itself, or with --llm-base-url a local Ollama, llama.cpp, vLLM or
// LM Studio); `anthropic:<model>` to Anthropic's messages API. Keys come from the environment
// only (OPENAI_API_KEY, ANTHROPIC_API_KEY), so they never show in a process list.
import { ConfigError } from '../core/errors.js';
import type { LanguageModel } from '../llm/language-model.js';
import { AnthropicMessagesModel } from '../llm/providers/anthropic-messages.js';
import { OpenAIChatModel } from '../llm/providers/openai-chat.js';
import type { OptionSpecs } from './args.js';
import { UsageError } from './usage-error.js';

export const LLM_OPTIONS: OptionSpecs = {
  llm: { type: 'string' },
  'llm-base-url': { type: 'string' },
};

export const LLM_USAGE = `  --llm PROVIDER:MODEL  answer with a language model instead of echoing: openai:<model>
                    (key from OPENAI_API_KEY) or anthropic:<model> (ANTHROPIC_API_KEY);
                    the agent then serves POST /chat and a chat page at /chat
  --llm-base-url URL  the model server's API address, for a local OpenAI-compatible
                    server: http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8081/v1
                    (llama.cpp's llama-server --port 8081: its own default, 8080, is
                    this agent's); no key needed there
`;

export interface LlmFlags {
  readonly llm?: string;
  readonly 'llm-base-url'?: string;
}

/** The model the flags name, or undefined without --llm; a usage error for anything unusable. */
export function modelFromFlags(flags: LlmFlags): LanguageModel | undefined {
  const baseUrl = flags['llm-base-url'];
  if (flags.llm === undefined) {
    if (baseUrl !== undefined)
      throw new UsageError('serve agent: --llm-base-url needs --llm openai:<model> (or anthropic:<model>)');
    return undefined;
  }
  const match = /^(openai|anthropic):(.+)$/.exec(flags.llm);
  if (!match) {
    throw new UsageError(`serve agent: --llm must be openai:<model> or anthropic:<model> (got ${JSON.stringify(flags.llm)})`);
  }
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl)) {
    throw new UsageError(`serve agent: --llm-base-url must be an http:// or https:// URL (got ${JSON.stringify(baseUrl)})`);
  }
  const [, provider, model] = match as unknown as [string, 'openai' | 'anthropic', string];
  try {
    return provider === 'openai' ? new OpenAIChatModel({ model, baseUrl }) : new AnthropicMessagesModel({ model, baseUrl });
  } catch (error) {
    // The only configuration a provider checks from here is the key.
    if (error instanceof ConfigError) {
      const variable = provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY';
      const local = provider === 'openai' ? ', or point --llm-base-url at a local server' : '';
      throw new UsageError(`serve agent: --llm ${provider}:… needs an API key: set ${variable}${local}`);
    }
    throw error;
  }
}
