// What both providers share around one model step: a deadline joined with the caller's
// signal, the retry of the provider's retryable failures before any output (the transport
// retry policy's backoff formula, or longer when the provider says retry-after), and the rule
// that decides what error the caller sees. One of these per step, nothing per token.
import type { Retry } from '../../../generated/config/transport-config.js';
import { backoffSeconds } from '../../transport/retry.js';
import { ModelError } from '../model-error.js';

/** Providers try a step three times by default (the transport's own default is once). */
export const DEFAULT_MODEL_RETRY: Retry = Object.freeze({
  maxAttempts: 3,
  initialBackoff: 0.5,
  maxBackoff: 8,
  jitter: 0.25,
  retryableMethods: Object.freeze(['POST']),
});

/** Each model step's deadline, from the request to the last chunk: ten minutes by default. */
export const DEFAULT_STEP_TIMEOUT_MS = 600_000;

/** A retry-after longer than this is not waited for: the step fails with the provider's error. */
const MAX_RETRY_AFTER_MS = 60_000;

export class StepCall {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort: () => void;

  constructor(
    private readonly provider: string,
    private readonly caller: AbortSignal | undefined,
    private readonly timeoutMs: number,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => this.controller.abort(this.timeoutError()), timeoutMs);
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
        return await open(this.signal);
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

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private timeoutError(): ModelError {
    return new ModelError('model_timeout', `${this.provider}: the model step took longer than ${this.timeoutMs} ms`, {
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
