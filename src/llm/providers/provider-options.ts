// The options every model provider takes, and what each constructor makes of them first: the
// model name checked, the retry policy and step deadlines with their defaults filled in. The
// OpenAI and Anthropic providers wrote these fields and this prologue twice; a provider adds
// only what is its own (where its key comes from, what its output limit means on its API).
import type { Retry } from '../../../generated/config/transport-config.js';
import { ConfigError } from '../../core/errors.js';
import { DEFAULT_MODEL_RETRY, stepDeadlines, type StepDeadlines } from './step-call.js';

export interface ProviderOptions {
  /** Model name as the provider's server knows it. */
  readonly model: string;
  /** The API key; each provider names the environment variable it falls back to. */
  readonly apiKey?: string;
  /** Where the API is served; each provider names its environment variable and default. */
  readonly baseUrl?: string;
  /** Per model step, from the request to the last chunk or event. Default 300000 (five minutes). */
  readonly timeoutMs?: number;
  /** How long each attempt waits for the answer to begin (response headers). Default 60000. */
  readonly firstByteTimeoutMs?: number;
  /** How long a begun answer may go without a chunk or event before the step fails. Default 30000. */
  readonly idleTimeoutMs?: number;
  /** Retry of 408, 429, 5xx and lost connections before any output. Default: 3 attempts. */
  readonly retry?: Partial<Retry>;
  /** Tokens of context the model reads at most; the model loop compacts the history above it. */
  readonly contextTokens?: number;
  /** Upper bound on the tokens of each answer; each provider says which request field carries it. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Extra request headers (for a gateway, say). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a provider's constructor reads from its options before anything of its own. */
interface ProviderBasics {
  readonly name: string;
  readonly contextTokens: number | undefined;
  readonly retry: Retry;
  readonly deadlines: StepDeadlines;
}

/** Checks the model name and fills in the retry and deadline defaults; throws ConfigError. */
export function providerBasics(options: ProviderOptions): ProviderBasics {
  if (!options.model) throw new ConfigError('model', options.model, 'must name the model');
  return {
    name: options.model,
    contextTokens: options.contextTokens,
    retry: { ...DEFAULT_MODEL_RETRY, ...options.retry },
    deadlines: stepDeadlines(options),
  };
}
