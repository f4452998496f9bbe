// Where a server reports the end of each A2A push-notification call (a webhook POST), so an
// exporter can count them without the push code knowing of one: the agent server forwards each
// call's outcome here, and the Prometheus view, when metrics are on, sets `observer`. With no
// observer a report costs one null check.

/**
 * How one webhook call ended; `refused` is the destination policy's refusal (an SSRF guard).
 * `config_read_failed` counts a task change that never became calls because its task's webhook
 * configs could not be read (the config store unreachable): one per change, since how many
 * calls it would have made is what could not be read.
 */
export type PushDeliveryOutcome = 'delivered' | 'failed' | 'refused' | 'dropped' | 'config_read_failed';

export const PUSH_DELIVERY_OUTCOMES: readonly PushDeliveryOutcome[] = [
  'delivered',
  'failed',
  'refused',
  'dropped',
  'config_read_failed',
];

/** Told of each call's end; `seconds` from its first attempt, null for a call never attempted. */
export type PushDeliveryObserver = (outcome: PushDeliveryOutcome, seconds: number | null) => void;

export class PushDeliveryWatch {
  /** Set by an exporter; null costs nothing per call. */
  observer: PushDeliveryObserver | null = null;

  ended(outcome: PushDeliveryOutcome, seconds: number | null): void {
    this.observer?.(outcome, seconds);
  }
}
