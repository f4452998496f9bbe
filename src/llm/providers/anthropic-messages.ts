// A LanguageModel over Anthropic's messages API, through the official `@anthropic-ai/sdk`
// (optional, loaded on first use). System turns become the request's `system`; tool calls are
// `tool_use` blocks whose JSON input streams in pieces; tool output goes back as `tool_result`
// blocks in a user turn. Every step streams; the SDK's own retries are off, StepCall retries
// with parley's policy. Claude's tokenizer is not published, so token counts are estimated.
import type { Retry } from '../../../generated/config/transport-config.js';
import type { LlmUsage } from '../../../generated/types/index.js';
import { ConfigError, importOptional } from '../../core/errors.js';
import type { ChatTurn, CompletionOptions, LanguageModel, ModelEvent, ModelRequest } from '../language-model.js';
import { ModelError, modelErrorForStatus, retryAfterMs } from '../model-error.js';
import { StepCall, decodeArguments, firstByteTimeout, interrupted, scrubKey, type StepDeadlines } from './step-call.js';
import { lazyLoader } from '../../core/lazy-import.js';
import { answerText, textDeltas } from './model-text.js';
import { providerBasics, type ProviderOptions } from './provider-options.js';

type AnthropicModule = typeof import('@anthropic-ai/sdk');
type AnthropicClient = InstanceType<AnthropicModule['Anthropic']>;
type StreamEvent = import('@anthropic-ai/sdk').Anthropic.RawMessageStreamEvent;
type CreateParams = import('@anthropic-ai/sdk').Anthropic.MessageCreateParamsStreaming;

const PROVIDER = 'anthropic';

export interface AnthropicMessagesOptions extends ProviderOptions {
  /** Model name: `claude-sonnet-4-5`, ... */
  readonly model: string;
  /** Default: ANTHROPIC_API_KEY. */
  readonly apiKey?: string;
  /** Default: ANTHROPIC_BASE_URL, else Anthropic's own API. */
  readonly baseUrl?: string;
  /** Retry of 408, 429, 5xx (529 overloaded too) and lost connections before any output. Default: 3 attempts. */
  readonly retry?: Partial<Retry>;
  /** `max_tokens` of each answer, which this API requires. Default 4096. */
  readonly maxOutputTokens?: number;
}

const loadAnthropic = lazyLoader(() => importOptional<AnthropicModule>('@anthropic-ai/sdk', 'the anthropic model provider'));

export class AnthropicMessagesModel implements LanguageModel {
  readonly name: string;
  readonly contextTokens: number | undefined;
  private readonly retry: Retry;
  private readonly deadlines: StepDeadlines;
  private readonly apiKey: string;
  private client: Promise<{ sdk: AnthropicModule; client: AnthropicClient }> | null = null;

  constructor(private readonly options: AnthropicMessagesOptions) {
    ({
      name: this.name,
      contextTokens: this.contextTokens,
      retry: this.retry,
      deadlines: this.deadlines,
    } = providerBasics(options));
    const key = options.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!key) throw new ConfigError('apiKey', '(not set)', 'set ANTHROPIC_API_KEY or pass apiKey');
    this.apiKey = key;
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
      const { system, messages } = toMessages(request.turns);
      const body = {
        model: this.name,
        max_tokens: this.options.maxOutputTokens ?? 4096,
        messages,
        stream: true,
        ...(system ? { system } : {}),
        ...(request.tools && request.tools.length > 0
          ? {
              tools: request.tools.map((tool) => ({
                name: tool.name,
                description: tool.description,
                input_schema: tool.parameters,
              })),
            }
          : {}),
        ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      } as unknown as CreateParams;
      const stream = await call.open(this.retry, (signal) => client.messages.create(body, { signal }), classify);
      const blocks: Array<PendingToolUse | null> = [];
      let stopReason: string | null = null;
      let stopped = false;
      let input = 0;
      let output = 0;
      try {
        for await (const event of stream as AsyncIterable<StreamEvent>) {
          call.progressed();
          switch (event.type) {
            case 'content_block_delta':
              if (event.delta.type === 'text_delta') yield { type: 'text', delta: event.delta.text };
              else if (event.delta.type === 'input_json_delta') {
                const block = blocks[event.index];
                if (block) block.json += event.delta.partial_json;
              }
              break;
            case 'content_block_start':
              blocks[event.index] =
                event.content_block.type === 'tool_use'
                  ? { id: event.content_block.id, name: event.content_block.name, json: '' }
                  : null;
              break;
            case 'message_start':
              input = event.message.usage?.input_tokens ?? 0;
              output = event.message.usage?.output_tokens ?? 0;
              break;
            case 'message_delta':
              if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
              // Cumulative counts, not increments.
              if (event.usage?.output_tokens != null) output = event.usage.output_tokens;
              if (event.usage?.input_tokens != null) input = event.usage.input_tokens;
              break;
            case 'message_stop':
              stopped = true;
              break;
          }
        }
      } catch (error) {
        throw call.failure(error, (thrown) =>
          thrown instanceof sdk.APIError || thrown instanceof SyntaxError ? classify(thrown) : interrupted(PROVIDER, thrown),
        );
      }
      if (call.signal.aborted) throw call.failure(call.signal.reason, classify);
      if (!stopped) throw interrupted(PROVIDER);
      for (const block of blocks) {
        if (block) yield { type: 'tool_call', call: { call_id: block.id, name: block.name, ...decodeArguments(block.json) } };
      }
      const usage: LlmUsage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
      yield { type: 'end', finishReason: finishReason(stopReason), usage };
    } finally {
      call.dispose();
    }
  }

  private async connect(): Promise<{ sdk: AnthropicModule; client: AnthropicClient }> {
    const sdk = await loadAnthropic();
    const client = new sdk.Anthropic({
      apiKey: this.apiKey,
      baseURL: this.options.baseUrl ?? process.env.ANTHROPIC_BASE_URL ?? undefined,
      maxRetries: 0,
      // The SDK's deadline ends when the response headers arrive: the first-byte deadline.
      timeout: this.deadlines.firstByteMs,
      defaultHeaders: this.options.headers ? { ...this.options.headers } : undefined,
      logLevel: 'off',
    });
    return { sdk, client };
  }
}

interface PendingToolUse {
  readonly id: string;
  readonly name: string;
  json: string;
}

/** Anthropic's stop reasons in the names the task stream uses (OpenAI's). */
function finishReason(stop: string | null): string {
  switch (stop) {
    case 'end_turn':
    case 'stop_sequence':
    case null:
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return stop;
  }
}

type Block = Record<string, unknown>;
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** System turns become `system`; tool output joins the user turn that follows the call. */
function toMessages(turns: readonly ChatTurn[]): { system: string; messages: Turn[] } {
  const system: string[] = [];
  const messages: Turn[] = [];
  const push = (role: Turn['role'], block: Block) => {
    const last = messages.at(-1);
    // Consecutive blocks of one role go in one message: all results of a step answer together.
    if (last && last.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const turn of turns) {
    switch (turn.role) {
      case 'system':
        system.push(turn.content);
        break;
      case 'user':
        push('user', { type: 'text', text: turn.content });
        break;
      case 'tool':
        push('user', {
          type: 'tool_result',
          tool_use_id: turn.callId ?? '',
          content: turn.content,
          is_error: turn.isError === true,
        });
        break;
      case 'assistant':
        if (turn.content) push('assistant', { type: 'text', text: turn.content });
        for (const call of turn.toolCalls ?? [])
          push('assistant', { type: 'tool_use', id: call.call_id, name: call.name, input: call.arguments });
        break;
    }
  }
  return { system: system.join('\n\n'), messages };
}

function classifyError(sdk: AnthropicModule, error: unknown, apiKey: string, firstByteMs: number): unknown {
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
    const body = error.error as { error?: { message?: unknown; type?: unknown } } | undefined;
    const message = scrubKey(typeof body?.error?.message === 'string' ? body.error.message : 'the request failed', apiKey);
    if (error.status === undefined) {
      // An `error` event inside the stream (overloaded_error, say).
      return new ModelError('model_unavailable', `${PROVIDER}: the model reported an error: ${message}`, {
        provider: PROVIDER,
        cause: error,
      });
    }
    return modelErrorForStatus(PROVIDER, error.status, message, retryAfterMs(error.headers), error);
  }
  if (error instanceof SyntaxError) {
    return new ModelError('model_response_invalid', `${PROVIDER}: the model's stream held an event that is not JSON`, {
      provider: PROVIDER,
      cause: error,
    });
  }
  return error;
}
