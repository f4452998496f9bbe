// Errors of the model loop, matched with `instanceof` and `code`:
// - ModelError: the provider failed a model step (rate limit, outage, refused request, bad
//   key, timeout, lost connection, a stream cut before its end, a response that breaks the
//   API's shape). `retryable` says whether another attempt could succeed; providers retry
//   those themselves (before any output) under their retry policy, so one that reaches the
//   caller has used its attempts or came mid-answer.
// - RunBudgetError: the run hit one of its budget limits (steps, tool calls, tokens, time).
import type { LlmRun } from '../../generated/types/index.js';

export type ModelErrorCode =
  | 'model_rate_limited'
  | 'model_unavailable'
  | 'model_request_rejected'
  | 'model_auth_failed'
  | 'model_timeout'
  | 'model_connection_failed'
  | 'model_stream_interrupted'
  | 'model_response_invalid';

export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly details: {
      /** Provider name: `openai` or `anthropic`. */
      readonly provider: string;
      /** HTTP status of the provider's answer, when there was one. */
      readonly statusCode?: number | null;
      /** Whether trying again could succeed. */
      readonly retryable?: boolean;
      /** What the provider asked to wait before retrying (retry-after), in ms. */
      readonly retryAfterMs?: number | null;
      readonly cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause });
    this.name = 'ModelError';
  }

  get provider(): string {
    return this.details.provider;
  }

  get statusCode(): number | null {
    return this.details.statusCode ?? null;
  }

  get retryable(): boolean {
    return this.details.retryable ?? false;
  }

  get retryAfterMs(): number | null {
    return this.details.retryAfterMs ?? null;
  }
}

/** Which run budget limit was hit. */
export type BudgetLimit = 'steps' | 'tool_calls' | 'tokens' | 'time';

export class RunBudgetError extends Error {
  readonly code = 'run_budget_exceeded';
  constructor(
    readonly limit: BudgetLimit,
    /** The configured maximum. */
    readonly maximum: number,
    /** What the run had reached when it stopped. */
    readonly reached: number,
    /** The run so far. */
    readonly run: LlmRun,
  ) {
    super(`the run exceeded its budget: ${limit} reached ${reached} of at most ${maximum}`);
    this.name = 'RunBudgetError';
  }
}

/** The model's error classified by the HTTP status of the provider's answer. */
export function modelErrorForStatus(
  provider: string,
  status: number,
  message: string,
  retryAfterMs: number | null,
  cause: unknown,
): ModelError {
  const details = { provider, statusCode: status, retryAfterMs, cause };
  const text = `${provider} answered ${status}: ${message}`;
  if (status === 429) return new ModelError('model_rate_limited', text, { ...details, retryable: true });
  if (status === 401 || status === 403) return new ModelError('model_auth_failed', text, details);
  if (status === 408) return new ModelError('model_timeout', text, { ...details, retryable: true });
  if (status >= 500) return new ModelError('model_unavailable', text, { ...details, retryable: true });
  return new ModelError('model_request_rejected', text, details);
}

/** A `retry-after` (seconds or an HTTP date) or `retry-after-ms` header, in ms; null when absent or unreadable. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined | null, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
