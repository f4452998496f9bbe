// Client side of idempotency: the key a logical request carries on every attempt.
import type { OperationSpec } from '../../generated/operations/spec.js';

/**
 * The key for an idempotent request: the value of the first of the spec's key fields (`id`,
 * `task_id`, `agent_url`) present in the payload, otherwise the request id. Non-idempotent and
 * streaming requests carry none. The server namespaces keys by method and path.
 */
export function idempotencyKeyFor(spec: OperationSpec, payload: unknown, requestId: string): string | null {
  if (!spec.idempotent || spec.streaming) return null;
  if (payload && typeof payload === 'object') {
    for (const field of spec.idempotencyKeyFrom) {
      const value = (payload as Record<string, unknown>)[field];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return requestId;
}
