// What a store of A2A push-notification configs holds and the bounds every backend applies:
// the stored config (one webhook registration of one task, as its owner created it), the three
// bounds (per task, per caller's share, in all) and the refusal when one is reached. Configs are
// keyed by tenant, principal, task and config id, so a lookup from another tenant or principal
// finds nothing. A task's configs live as long as the task does: `ttlMs` after the task's last
// change, as the task index keeps it. The PushConfigStore interface stays with its consumer
// (a2a/push/push-config-store.ts); this file sits in stores/ because the backends need these
// values and stores/ lies below a2a/ (docs/layout.md).
import { shareOf, type TaskScope } from './task-entries.js';

/** Credentials sent in the webhook call's Authorization header: `<scheme> <credentials>`. */
interface StoredPushAuthentication {
  readonly scheme: string;
  readonly credentials: string;
}

/** One webhook registration, as stored (the A2A TaskPushNotificationConfig plus its owner). */
export interface StoredPushConfig {
  readonly tenant: string;
  /** The principal that created it (null without an authenticator). */
  readonly owner: string | null;
  readonly taskId: string;
  readonly id: string;
  readonly url: string;
  /** Sent as `X-A2A-Notification-Token`; empty when none. */
  readonly token: string;
  readonly authentication: StoredPushAuthentication | null;
}

export interface PushConfigBounds {
  /** Configs one task may have. Default 10. */
  readonly maxConfigsPerTask?: number;
  /** Configs one caller's share (task-entries.ts, shareOf) may have over all its tasks. Default 256. */
  readonly maxConfigsPerCaller?: number;
  /** Configs the whole store may hold. Default 10,000. */
  readonly maxConfigs?: number;
  /** How long a task's configs are kept after the task's last change (ms). Default one hour, as the task index. */
  readonly ttlMs?: number;
}

export const DEFAULT_PUSH_CONFIG_BOUNDS: Required<PushConfigBounds> = {
  maxConfigsPerTask: 10,
  maxConfigsPerCaller: 256,
  maxConfigs: 10_000,
  ttlMs: 3_600_000,
};

/** Which bound refused a new config. */
export type PushConfigLimit = 'task' | 'caller' | 'store';

/** A new config would pass a bound; replacing a config (same id) never does. */
export class PushConfigQuotaError extends Error {
  readonly code = 'push_config_quota_exceeded';
  constructor(
    readonly limit: PushConfigLimit,
    readonly bound: number,
  ) {
    super(
      limit === 'task'
        ? `this task already has ${bound} push notification configs; delete one first`
        : limit === 'caller'
          ? `this caller already has ${bound} push notification configs over its tasks; delete some first`
          : `the agent holds ${bound} push notification configs, its limit; try again later`,
    );
    this.name = 'PushConfigQuotaError';
  }
}

/** The scope a config belongs to. */
export function scopeOfConfig(config: StoredPushConfig): TaskScope {
  return { tenant: config.tenant, principal: config.owner };
}

/** One text per (tenant, principal, task): JSON keeps any of the three from passing for another. */
export function pushTaskKey(scope: TaskScope, taskId: string): string {
  return JSON.stringify([scope.tenant, scope.principal, taskId]);
}

/** The share a config counts against: its owner's, as for tasks. */
export function pushShareOf(scope: TaskScope): string {
  return shareOf(scope.tenant, scope.principal);
}
