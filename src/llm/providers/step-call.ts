// What both providers share around one model step: a deadline joined with the caller's
// signal, the retry of the provider's retryable failures before any output (the transport
// retry policy's backoff formula, or longer when the provider says retry-after), and the rule
// that decides what error the caller sees. One of these per step, nothing per token.
import type { Retry } from '../../../generated/config/transport-config.js';
import { backoffSeconds } from '../../transport/retry.js';
import { ConfigError } from '../../core/errors.js';
import { ModelError } from '../model-error.js';

/** Providers try a step three times by default (the transport's own default is once). */
export const DEFAULT_MODEL_RETRY: Retry = Object.freeze({
  maxAttempts: 3,
  initialBackoff: 0.5,
  maxBackoff: 8,
  jitter: 0.25,
  retryableMethods: Object.freeze(['POST']),
});

/**
 * Each model step's deadline, from the request to the last chunk: five minutes by default, no
 * longer than the run's own time budget (model-loop.ts).
 */
export const DEFAULT_STEP_TIMEOUT_MS = 300_000;

/**
 * How long one attempt waits for the model server's answer to begin (its response headers): a
 * server that accepted the request and says nothing fails the attempt, which is retried.
 */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 60_000;

/** How long an answer that has begun may go without a chunk before the step fails. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** The deadlines of one model step, in milliseconds; see the defaults above. */
export interface StepDeadlines {
  readonly stepMs: number;
  readonly firstByteMs: number;
  readonly idleMs: number;
}

/** A provider's deadline options with the defaults filled in; each must be a positive number. */
export function stepDeadlines(options: {
  readonly timeoutMs?: number;
  readonly firstByteTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
}): StepDeadlines {
  return {
    stepMs: positive('timeoutMs', options.timeoutMs, DEFAULT_STEP_TIMEOUT_MS),
    firstByteMs: positive('firstByteTimeoutMs', options.firstByteTimeoutMs, DEFAULT_FIRST_BYTE_TIMEOUT_MS),
    idleMs: positive('idleTimeoutMs', options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS),
  };
}

function positive(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && value > 0 && Number.isFinite(value))) {
    throw new ConfigError(field, value, 'must be a positive number of milliseconds');
  }
  return value;
}

/** A retry-after longer than this is not waited for: the step fails with the provider's error. */
const MAX_RETRY_AFTER_MS = 60_000;

export class StepCall {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  /** The idle deadline, armed once the answer began and pushed back by every chunk. */
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly onCallerAbort: () => void;

  constructor(
    private readonly provider: string,
    private readonly caller: AbortSignal | undefined,
    private readonly deadlines: StepDeadlines,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => this.controller.abort(this.timeoutError()), deadlines.stepMs);
    this.timer.unref();
    this.onCallerAbort = () => this.controller.abort(caller!.reason);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /**
   * Opens the provider's stream, retrying what may succeed later. `classify` turns whatever
   * the SDK threw into a ModelError (or returns it unchanged when it is no provider failure).
   */
  async open<T>(policy: Retry, open: (signal: AbortSignal) => Promise<T>, classify: (error: unknown) => unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const opened = await open(this.signal);
        this.progressed();
        return opened;
      } catch (thrown) {
        const error = this.failure(thrown, classify);
        if (!(error instanceof ModelError) || !error.retryable || attempt >= policy.maxAttempts) throw error;
        const retryAfter = error.retryAfterMs ?? 0;
        if (retryAfter > MAX_RETRY_AFTER_MS) throw error;
        await this.sleep(Math.max(backoffSeconds(policy, attempt) * 1000, retryAfter), classify);
      }
    }
  }

  /** What the caller sees for `thrown`: its own abort reason, the deadline, or the provider's failure. */
  failure(thrown: unknown, classify: (error: unknown) => unknown): unknown {
    if (this.caller?.aborted) return this.caller.reason;
    if (this.signal.aborted) return this.signal.reason;
    return classify(thrown);
  }

  /**
   * A chunk came: the idle deadline starts again. A timer refreshed in place, so a chunk costs
   * no new timer.
   */
  progressed(): void {
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => this.controller.abort(this.idleError()), this.deadlines.idleMs);
    this.idleTimer.unref();
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private timeoutError(): ModelError {
    return new ModelError('model_timeout', `${this.provider}: the model step took longer than ${this.deadlines.stepMs} ms`, {
      provider: this.provider,
    });
  }

  private idleError(): ModelError {
    const ms = this.deadlines.idleMs;
    return new ModelError('model_timeout', `${this.provider}: the model's answer stalled: nothing for ${ms} ms (idle timeout)`, {
      provider: this.provider,
    });
  }

  private sleep(ms: number, classify: (error: unknown) => unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', stop);
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      const stop = () => {
        done();
        reject(this.failure(this.signal.reason, classify));
      };
      this.signal.addEventListener('abort', stop, { once: true });
    });
  }
}

/** The error of an attempt whose answer did not begin within the first-byte deadline. */
export function firstByteTimeout(provider: string, ms: number, cause: unknown): ModelError {
  return new ModelError(
    'model_timeout',
    `${provider}: the model server did not begin its answer within ${ms} ms (first-byte timeout)`,
    {
      provider,
      retryable: true,
      cause,
    },
  );
}

/** The end of a stream that never said it was done. */
export function interrupted(provider: string, cause?: unknown): ModelError {
  return new ModelError('model_stream_interrupted', `${provider}: the model's stream ended before the answer was complete`, {
    provider,
    cause,
  });
}

/** Decodes a tool call's arguments: a JSON object, or `{}` with the reason it is not one. */
export function decodeArguments(text: string): { arguments: Record<string, unknown>; argumentsError?: string } {
  if (text.trim() === '') return { arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { arguments: {}, argumentsError: `the arguments are not valid JSON: ${text.slice(0, 200)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { arguments: {}, argumentsError: `the arguments are not a JSON object: ${text.slice(0, 200)}` };
  }
  return { arguments: value as Record<string, unknown> };
}

/** A provider's error text without the key, should a server echo it back. */
export function scrubKey(message: string, apiKey: string): string {
  return apiKey.length >= 8 && message.includes(apiKey) ? message.split(apiKey).join('[key]') : message;
}
