// Where A2A push-notification configs are kept: a small async store interface, so a shared
// backend (Redis) can fill it as well as the in-process default
// (stores/memory/memory-push-config-store.ts, stores/redis/redis-push-config-store.ts). Every
// call is scoped to the caller's tenant and principal; a config of another scope is absent.
// The stored shape and the bounds are in stores/push-configs.ts, re-exported here.
import type { StoredPushConfig } from '../../stores/push-configs.js';
import type { TaskScope } from '../../stores/task-entries.js';

export { PushConfigQuotaError, type PushConfigBounds, type StoredPushConfig } from '../../stores/push-configs.js';

export interface PushConfigStore {
  /**
   * Creates the config, or replaces the one with its id; the task's configs then live another
   * `ttlMs`. Rejects with PushConfigQuotaError when a new config would pass a bound.
   */
  put(config: StoredPushConfig): Promise<void>;
  /** The config with this id of this scope's task; undefined when absent, expired or someone else's. */
  get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  /** The task's configs in this scope, by id. */
  list(scope: TaskScope, taskId: string): Promise<readonly StoredPushConfig[]>;
  /** Removes the config; false when there was none (deleting twice is not an error). */
  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean>;
  /** The task just changed: its configs (by id), kept another `ttlMs` from now. */
  touch(scope: TaskScope, taskId: string): Promise<readonly StoredPushConfig[]>;
}
