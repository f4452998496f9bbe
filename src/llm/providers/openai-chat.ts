// A LanguageModel over the OpenAI chat completions API, through the official `openai` package
// (optional, loaded on first use). With `baseUrl` the same provider talks to anything that
// serves that API: Ollama (http://127.0.0.1:11434/v1), llama.cpp's server, vLLM, LM Studio.
// Every step streams (with usage in the last chunk); tool calls arrive in pieces keyed by
// their index and are handed on once the stream is done. The SDK's own retries are off:
// StepCall retries with parley's policy so every provider behaves the same.
import type { Retry } from '../../../generated/config/transport-config.js';
import type { LlmUsage } from '../../../generated/types/index.js';
import { ConfigError, importOptional } from '../../core/errors.js';
import type { ChatTurn, CompletionOptions, LanguageModel, ModelEvent, ModelRequest, TokenCounter } from '../language-model.js';
import { ModelError, modelErrorForStatus, retryAfterMs } from '../model-error.js';
import { tiktokenCounter } from '../tokenizer.js';
import { StepCall, decodeArguments, firstByteTimeout, interrupted, scrubKey, type StepDeadlines } from './step-call.js';
import { lazyLoader } from '../../core/lazy-import.js';
import { answerText, textDeltas } from './model-text.js';
import { providerBasics, type ProviderOptions } from './provider-options.js';

type OpenAIModule = typeof import('openai');
type OpenAIClient = InstanceType<OpenAIModule['OpenAI']>;
type ChatMessage = import('openai').OpenAI.Chat.ChatCompletionMessageParam;
type ChatChunk = import('openai').OpenAI.Chat.ChatCompletionChunk;

const PROVIDER = 'openai';

export interface OpenAIChatOptions extends ProviderOptions {
  /** Model name as the server knows it: `gpt-4o-mini`, `llama3.2`, ... */
  readonly model: string;
  /** Default: OPENAI_API_KEY. A local server (a `baseUrl`) needs none. */
  readonly apiKey?: string;
  /** Default: OPENAI_BASE_URL, else OpenAI's own API. */
  readonly baseUrl?: string;
  /**
   * Upper bound on the tokens of each answer: `max_completion_tokens` to OpenAI itself (its
   * reasoning models refuse the older field), `max_tokens` to a server at a `baseUrl`.
   */
  readonly maxOutputTokens?: number;
}

const loadOpenAI = lazyLoader(() => importOptional<OpenAIModule>('openai', 'the openai model provider'));

export class OpenAIChatModel implements LanguageModel {
  readonly name: string;
  readonly contextTokens: number | undefined;
  private readonly retry: Retry;
  private readonly deadlines: StepDeadlines;
  private readonly apiKey: string;
  private readonly outputLimitField: 'max_tokens' | 'max_completion_tokens';
  private client: Promise<{ sdk: OpenAIModule; client: OpenAIClient }> | null = null;

  constructor(private readonly options: OpenAIChatOptions) {
    ({
      name: this.name,
      contextTokens: this.contextTokens,
      retry: this.retry,
      deadlines: this.deadlines,
    } = providerBasics(options));
    const baseUrl = options.baseUrl ?? process.env.OPENAI_BASE_URL;
    const key = options.apiKey ?? process.env.OPENAI_API_KEY;
    // The key is checked, never shown: the error names where it comes from.
    if (!key && !baseUrl) throw new ConfigError('apiKey', '(not set)', 'set OPENAI_API_KEY or pass apiKey');
    // Local servers ignore the key, but the SDK insists on one.
    this.apiKey = key || 'none';
    this.outputLimitField = baseUrl ? 'max_tokens' : 'max_completion_tokens';
  }

  tokenCounter(): Promise<TokenCounter> {
    return tiktokenCounter(this.name);
  }

  complete(turns: readonly ChatTurn[], options?: CompletionOptions): Promise<string> {
    return answerText(this.step({ turns, signal: options?.signal }));
  }

  stream(turns: readonly ChatTurn[], options?: CompletionOptions): AsyncIterable<string> {
    return textDeltas(this.step({ turns, signal: options?.signal }));
  }

  async *step(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const { sdk, client } = await (this.client ??= this.connect());
    const call = new StepCall(PROVIDER, request.signal, this.deadlines);
    const classify = (error: unknown) => classifyError(sdk, error, this.apiKey, this.deadlines.firstByteMs);
    try {
      const body = {
        model: this.name,
        messages: toMessages(request.turns),
        stream: true as const,
        stream_options: { include_usage: true },
        ...(request.tools && request.tools.length > 0
          ? {
              tools: request.tools.map((tool) => ({
                type: 'function' as const,
                function: {
                  name: tool.name,
                  description: tool.description,
                  parameters: tool.parameters as Record<string, unknown>,
                },
              })),
            }
          : {}),
        ...(this.options.maxOutputTokens !== undefined ? { [this.outputLimitField]: this.options.maxOutputTokens } : {}),
        ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      };
      const stream = await call.open(this.retry, (signal) => client.chat.completions.create(body, { signal }), classify);
      const calls: PendingCall[] = [];
      let finishReason: string | null = null;
      let usage: LlmUsage | null = null;
      try {
        for await (const chunk of stream as AsyncIterable<ChatChunk>) {
          call.progressed();
          if (chunk.usage) usage = toUsage(chunk.usage);
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const delta = choice.delta;
          if (delta?.content) yield { type: 'text', delta: delta.content };
          if (delta?.tool_calls) for (const piece of delta.tool_calls) addPiece(calls, piece);
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      } catch (error) {
        throw call.failure(error, (thrown) =>
          thrown instanceof sdk.APIError || thrown instanceof SyntaxError ? classify(thrown) : interrupted(PROVIDER, thrown),
        );
      }
      // The SDK ends quietly when its request is aborted.
      if (call.signal.aborted) throw call.failure(call.signal.reason, classify);
      if (finishReason === null) throw interrupted(PROVIDER);
      for (const pending of calls) {
        if (!pending.id || !pending.name) {
          throw new ModelError('model_response_invalid', `${PROVIDER}: a tool call came without its id or name`, {
            provider: PROVIDER,
          });
        }
        yield { type: 'tool_call', call: { call_id: pending.id, name: pending.name, ...decodeArguments(pending.arguments) } };
      }
      yield { type: 'end', finishReason, usage };
    } finally {
      call.dispose();
    }
  }

  private async connect(): Promise<{ sdk: OpenAIModule; client: OpenAIClient }> {
    const sdk = await loadOpenAI();
    const client = new sdk.OpenAI({
      apiKey: this.apiKey,
      baseURL: this.options.baseUrl ?? process.env.OPENAI_BASE_URL ?? undefined,
      maxRetries: 0,
      // The SDK's deadline ends when the response headers arrive: the first-byte deadline.
      timeout: this.deadlines.firstByteMs,
      defaultHeaders: this.options.headers ? { ...this.options.headers } : undefined,
      // Nothing of a request (its key least of all) reaches the console through the SDK.
      logLevel: 'off',
    });
    return { sdk, client };
  }
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

type ToolCallPiece = NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>[number];

/** Tool calls stream as pieces with an index: the first names the call, the rest add argument text. */
function addPiece(calls: PendingCall[], piece: ToolCallPiece): void {
  const index = piece.index ?? calls.length;
  const pending = (calls[index] ??= { id: '', name: '', arguments: '' });
  if (piece.id) pending.id = piece.id;
  if (piece.function?.name) pending.name += piece.function.name;
  if (piece.function?.arguments) pending.arguments += piece.function.arguments;
}

function toUsage(usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }): LlmUsage {
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: usage.total_tokens ?? input + output };
}

function toMessages(turns: readonly ChatTurn[]): ChatMessage[] {
  return turns.map((turn): ChatMessage => {
    switch (turn.role) {
      case 'system':
        return { role: 'system', content: turn.content };
      case 'user':
        return { role: 'user', content: turn.content };
      case 'tool':
        return { role: 'tool', tool_call_id: turn.callId ?? '', content: turn.content };
    }
    // The one role left is the assistant's.
    if (!turn.toolCalls || turn.toolCalls.length === 0) return { role: 'assistant', content: turn.content };
    return {
      role: 'assistant',
      content: turn.content || null,
      tool_calls: turn.toolCalls.map((call) => ({
        id: call.call_id,
        type: 'function' as const,
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      })),
    };
  });
}

/** The SDK's failure as a ModelError; anything else (a bug, an abort) unchanged. */
function classifyError(sdk: OpenAIModule, error: unknown, apiKey: string, firstByteMs: number): unknown {
  if (error instanceof sdk.APIUserAbortError) return error;
  // The SDK's own deadline is the first-byte one (see connect()).
  if (error instanceof sdk.APIConnectionTimeoutError) return firstByteTimeout(PROVIDER, firstByteMs, error);
  if (error instanceof sdk.APIConnectionError) {
    return new ModelError('model_connection_failed', `${PROVIDER}: could not reach the model server`, {
      provider: PROVIDER,
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof sdk.APIError) {
    const status = error.status;
    const message = scrubKey(errorMessage(error.error) ?? 'the request failed', apiKey);
    if (status === undefined) {
      // An error event inside the stream.
      return new ModelError('model_unavailable', `${PROVIDER}: the model reported an error: ${message}`, {
        provider: PROVIDER,
        cause: error,
      });
    }
    return modelErrorForStatus(PROVIDER, status, message, retryAfterMs(error.headers), error);
  }
  if (error instanceof SyntaxError) {
    return new ModelError('model_response_invalid', `${PROVIDER}: the model's stream held a chunk that is not JSON`, {
      provider: PROVIDER,
      cause: error,
    });
  }
  return error;
}

function errorMessage(body: unknown): string | null {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : null;
}
