// Bounded retries for idempotent requests.
import type { OperationSpec } from '../../generated/operations/spec.js';
import type { Retry } from './config.js';
import { TransportError } from './errors.js';

/**
 * Delay in seconds before retry number `n` (1 for the first retry): the doubling backoff,
 * capped, plus up to `jitter` of random delay.
 */
export function backoffSeconds(policy: Retry, n: number, random: () => number = Math.random): number {
  const base = Math.min(policy.initialBackoff * 2 ** (n - 1), policy.maxBackoff);
  return base + random() * policy.jitter;
}

/** All three must hold: an idempotent spec, a retryable method, a retryable transport error. */
export function shouldRetry(policy: Retry, spec: Pick<OperationSpec, 'idempotent' | 'method'>, error: unknown): boolean {
  return (
    spec.idempotent &&
    policy.retryableMethods.includes(spec.method.toUpperCase()) &&
    error instanceof TransportError &&
    error.retryable
  );
}
